"""Pure: ratings and statistics from stored results, taken in schedule order.

Nothing here reads a clock, a database or the order in which matches finished: the same
results give the same numbers, so a run on 1 worker, on 2, on a cluster or resumed after a
crash ends with an identical table.

* Rating: TrueSkill (default) or OpenSkill Plackett-Luce, updated match by match in schedule
  order; a free-for-all of single seats, ties as draws, or teams where the game reports them
  (a team's rank is its best seat's). Bots are ordered by the conservative ``mu - 3 sigma``;
  a bot whose place above the next is not established is shown tied with it (``2=``).
* Forfeits: a forfeited seat never wins. Its relative score counts it with the lowest score at
  its table (the points its random stand-in made are not its own), and a match in which every
  seat forfeited says nothing about who is stronger: it is left out of the ratings.
* Per-deal relative score: in each match, a seat's score minus the mean score of its table;
  averaged, for each bot, over the matches of a duplicate set. Only complete sets count (all
  rotations stored), since the point of the set is that deal and seat luck cancel; they are
  taken in schedule order (a set's first position), the order the statistics look in. Each is
  computed from one exactly rounded sum, so bots level in a set are exactly level (0, never
  3.5e-18) and a set's value does not depend on the order of its matches.
* Confidence: anytime-valid confidence sequences over duplicate sets (the independent units),
  guaranteed for any scores inside the game's score range (:mod:`arena.ladder.stats`).
* Order: a bot's place above the next is established when it finishes ahead of it in more of
  the sets they both played, by an anytime test of each ordered pair, Holm's procedure holding
  the family-wise error rate over every pair of the table at 5 %; otherwise ``2=``.
* Seat effects: the same relative score per seat position instead of per bot. In a complete
  set every bot sits in every seat once, so bot strength cancels and what is left is the seat.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from statistics import fmean
from typing import Any

from arena.ladder import stats
from arena.ladder.stats import Bounds, Estimate

OK = "ok"


@dataclass(frozen=True)
class RatingSettings:
    """Rating model and its parameters. ``tau`` defaults to 0: bots are static programs, and a
    positive tau makes online ratings forget early games (research notes, section 4.4)."""

    model: str = "trueskill"
    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 0.0
    draw_probability: float = 0.10
    # Following ladders (arena/ladder/follow.py): (new version, previous version) pairs; a new
    # version starts at its previous version's mu with sigma reset. Empty: everyone fresh.
    inherit: tuple[tuple[str, str], ...] = ()
    # The game's score range at the ladder's seats and options (Game.score_range), set by the
    # ladder file's reader: every interval's guarantee rests on it.
    score_range: tuple[float, float] = (0.0, 1.0)


@dataclass(frozen=True)
class SeatRecord:
    bot: str
    score: float
    rank: int
    status: str


@dataclass(frozen=True)
class MatchRecord:
    """A stored match as the statistics see it; ``position`` is its place in the schedule."""

    position: int
    match_id: str
    set_id: str
    seats: tuple[SeatRecord, ...]
    teams: tuple[tuple[int, ...], ...] | None = None


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class HistoryRow:
    position: int
    match_id: str
    bot: str
    mu: float
    sigma: float


@dataclass
class BotStats:
    """One row of the ladder table. ``place`` is its rank from 1 and ``tied`` says its order
    against the bot above is not established (then it shares that bot's place)."""

    bot: str
    rating: Rating
    games: int = 0
    wins: int = 0
    mean_rank: float | None = None
    mean_score: float | None = None
    faults: dict[str, int] = field(default_factory=dict)
    relative: Estimate = stats.NO_SETS
    place: int = 1
    tied: bool = False

    @property
    def sets(self) -> int:
        return self.relative.sets

    @property
    def relative_ci(self) -> tuple[float, float] | None:
        return self.relative.ci

    def as_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "conservative": self.rating.conservative,
            "mu": self.rating.mu,
            "sigma": self.rating.sigma,
            "games": self.games,
            "wins": self.wins,
            "mean_rank": self.mean_rank,
            "mean_score": self.mean_score,
            "faults": self.faults,
            "sets": self.sets,
            "relative_score": self.relative.mean,
            "relative_score_ci": list(self.relative_ci) if self.relative_ci else None,
            "place": self.place,
            "tied": self.tied,
        }


class _Model:
    """TrueSkill or OpenSkill behind one small interface: ``new()`` and ``rate()``."""

    def __init__(self, settings: RatingSettings) -> None:
        s = settings
        if s.model == "openskill":
            from openskill.models import PlackettLuce

            self.impl: Any = PlackettLuce(mu=s.mu, sigma=s.sigma, beta=s.beta, tau=s.tau)
            self.new: Callable[..., Any] = self.impl.rating
        else:
            import trueskill

            self.impl = trueskill.TrueSkill(
                mu=s.mu, sigma=s.sigma, beta=s.beta, tau=s.tau, draw_probability=s.draw_probability
            )
            self.new = self.impl.create_rating

    def rate(self, groups: list[list[Any]], ranks: list[int]) -> list[list[Any]]:
        return [list(g) for g in self.impl.rate(groups, ranks=ranks)]


def _groups(match: MatchRecord) -> list[tuple[int, ...]]:
    if match.teams:
        return [tuple(t) for t in match.teams]
    return [(seat,) for seat in range(len(match.seats))]


class Rater:
    """The rating model as one step, shared by the batch (:func:`rate`) and the ratings the
    store keeps up to date match by match (``arena/ladder/rated.py``). Every rating passes
    through its ``(mu, sigma)`` floats between matches, as the store keeps it, so the two agree
    exactly."""

    def __init__(self, settings: RatingSettings) -> None:
        self.model = _Model(settings)
        self.fresh = _ms(self.model.new())
        self.inherit = dict(settings.inherit)

    def first(self, bot: str, known: Mapping[str, Pair]) -> Pair:
        """A bot's rating before its first match: a new version starts at its previous
        version's mu (as it is now) with sigma reset; anyone else fresh."""
        old = self.inherit.get(bot)
        if old is None:
            return self.fresh
        return _ms(self.model.new(mu=known.get(old, self.fresh)[0]))

    def step(
        self, known: Mapping[str, Pair], match: MatchRecord
    ) -> tuple[Ratings, list[HistoryRow]]:
        """The ratings ``match`` changes (its bots' first ratings included) given the ratings
        ``known`` before it, and its history rows."""
        changed = {s.bot: self.first(s.bot, known) for s in match.seats if s.bot not in known}
        if all(seat.status != OK for seat in match.seats):
            return changed, []  # every seat forfeited: nothing learnt about who is stronger
        groups = _groups(match)
        before = [[changed.get(b) or known[b] for b in (match.seats[s].bot for s in g)]
                  for g in groups]  # fmt: skip
        players = [[self.model.new(mu=mu, sigma=sigma) for mu, sigma in g] for g in before]
        ranks = [min(match.seats[s].rank for s in g) for g in groups]
        history = []
        for group, rated in zip(groups, self.model.rate(players, ranks), strict=True):
            for seat, rating in zip(group, rated, strict=True):
                bot = match.seats[seat].bot
                changed[bot] = _ms(rating)
                history.append(HistoryRow(match.position, match.match_id, bot, *changed[bot]))
        return changed, history


Pair = tuple[float, float]  # (mu, sigma)
Ratings = dict[str, Pair]


def rate(
    matches: Sequence[MatchRecord], settings: RatingSettings, bots: Iterable[str]
) -> tuple[dict[str, Rating], list[HistoryRow]]:
    """Final ratings of ``bots`` and every bot's rating after each match, in schedule order."""
    rater = Rater(settings)
    known: Ratings = {}
    history: list[HistoryRow] = []
    for match in sorted(matches, key=lambda m: m.position):
        changed, rows = rater.step(known, match)
        known.update(changed)
        history += rows
    return {bot: Rating(*known.get(bot, rater.fresh)) for bot in bots}, history


def _ms(rating: Any) -> tuple[float, float]:
    return float(rating.mu), float(rating.sigma)


def _complete_sets(matches: Sequence[MatchRecord]) -> list[list[MatchRecord]]:
    """The duplicate sets with every rotation stored, in schedule order (first position), each
    set's matches in schedule order."""
    by_set: dict[str, list[MatchRecord]] = defaultdict(list)
    for match in sorted(matches, key=lambda m: m.position):
        by_set[match.set_id].append(match)
    return [g for g in by_set.values() if len(g) == len(g[0].seats)]


def _scores(match: MatchRecord) -> list[float]:
    """The scores that count: a forfeited seat has the table's lowest score (so when every
    seat forfeited, each is level)."""
    floor = min(s.score for s in match.seats)
    return [s.score if s.status == OK else floor for s in match.seats]


def _relative_mean(places: Iterable[tuple[MatchRecord, int]]) -> float:
    """Mean over the given (match, seat) of the seat's score minus its table's mean score, as
    one exactly rounded sum: ``sum (k score - table total) / (k * matches)``."""
    terms: list[float] = []
    count = k = 0
    for match, seat in places:
        scores = _scores(match)
        k = len(scores)
        terms += [scores[seat]] * k + [-x for x in scores]
        count += 1
    return math.fsum(terms) / (k * count)


def _won(seat: SeatRecord) -> bool:
    """First place without a fault: a forfeited seat never wins, even when all seats did."""
    return seat.rank == 0 and seat.status == OK


def set_relative_scores(matches: Sequence[MatchRecord]) -> dict[str, dict[str, float]]:
    """For each complete duplicate set: each bot's mean per-deal relative score."""
    out: dict[str, dict[str, float]] = {}
    for group in _complete_sets(matches):
        places: dict[str, list[tuple[MatchRecord, int]]] = defaultdict(list)
        for match in group:
            for index, seat in enumerate(match.seats):
                places[seat.bot].append((match, index))
        out[group[0].set_id] = {bot: _relative_mean(p) for bot, p in sorted(places.items())}
    return out


class ScoreOutOfRange(stats.OutOfRange):
    """A stored score outside the game's declared score range: every statistic rests on that
    range, so none is computed from such a ladder."""

    def __init__(self, match: MatchRecord, seat: int, score_range: tuple[float, float]) -> None:
        self.match_id, self.seat, self.bot = match.match_id, seat, match.seats[seat].bot
        self.score, self.score_range = match.seats[seat].score, score_range
        super().__init__(
            f"match {self.match_id}, seat {seat} (bot {self.bot!r}): score {self.score:g} is "
            f"outside [{score_range[0]:g}, {score_range[1]:g}], the score range the game "
            "declares for these seats and options"
        )


def check_scores(matches: Iterable[MatchRecord], score_range: tuple[float, float]) -> None:
    """Raise ScoreOutOfRange for the first stored score outside ``score_range`` (schedule
    order): the game broke its own contract, or the results are another game version's."""
    low, high = score_range
    for match in sorted(matches, key=lambda m: m.position):
        for index, seat in enumerate(match.seats):
            if not low <= seat.score <= high:
                raise ScoreOutOfRange(match, index, score_range)


def _seat_count(matches: Sequence[MatchRecord]) -> int:
    return max((len(m.seats) for m in matches), default=2)


def ladder_stats(
    matches: Sequence[MatchRecord],
    settings: RatingSettings,
    bots: Sequence[str],
    ratings: Mapping[str, Rating] | None = None,
) -> list[BotStats]:
    """The ladder table, best first (conservative rating, then name); ``ratings``: those the
    store keeps over ``matches`` (else rated here); ``settings.score_range`` bounds the
    relative scores (ScoreOutOfRange for a stored score outside it)."""
    check_scores(matches, settings.score_range)
    if ratings is None:
        ratings = rate(matches, settings, bots)[0]
    rows = {bot: BotStats(bot, ratings[bot]) for bot in bots}
    ranks: dict[str, list[int]] = defaultdict(list)
    scores: dict[str, list[float]] = defaultdict(list)
    wins: Counter[str] = Counter()
    faults: dict[str, Counter[str]] = defaultdict(Counter)
    for match in matches:
        for seat in match.seats:
            ranks[seat.bot].append(seat.rank)
            scores[seat.bot].append(seat.score)
            wins[seat.bot] += _won(seat)
            if seat.status != OK:
                faults[seat.bot][seat.status] += 1
    per_set = set_relative_scores(matches)
    per_bot: dict[str, list[float]] = defaultdict(list)
    for values in per_set.values():
        for bot, value in values.items():
            per_bot[bot].append(value)
    bounds = stats.relative_bounds(settings.score_range, _seat_count(matches))
    for bot, row in rows.items():
        if ranks[bot]:
            row.games = len(ranks[bot])
            row.wins = wins[bot]
            row.mean_rank = fmean(ranks[bot])
            row.mean_score = fmean(scores[bot])
        row.faults = dict(sorted(faults[bot].items()))
        row.relative = stats.estimate(per_bot[bot], bounds)
    table = sorted(rows.values(), key=lambda r: (-r.rating.conservative, r.bot))
    established = established_orders(per_set, bots)
    for place, (above, row) in enumerate(zip([None, *table], table, strict=False), 1):
        row.tied = above is not None and (above.bot, row.bot) not in established
        row.place = above.place if above is not None and row.tied else place
    return table


def established_orders(
    per_set: dict[str, dict[str, float]], bots: Sequence[str], alpha: float = stats.ALPHA
) -> set[tuple[str, str]]:
    """The ordered pairs (A, B) for which "A finishes ahead of B in more of the sets both
    played" is established: each ordered pair's anytime p-value against "A is not ahead more
    often" (:func:`arena.ladder.stats.p_above` on the signs of A's per-set lead, in schedule
    order), then Holm's procedure over all k(k - 1) ordered pairs, so the chance that any
    established order is wrong stays below ``alpha``, at every look."""
    names = sorted(set(bots))
    family = max(1, len(names) * (len(names) - 1))
    level = alpha / family
    p_values = {}
    for a, b in permutations(names, 2):
        lead = [v[a] - v[b] for v in per_set.values() if a in v and b in v]
        p_values[a, b] = stats.p_above(stats.signs(lead), stats.SIGNS, level)
    return stats.holm(p_values, alpha)


def head_to_head(matches: Iterable[MatchRecord]) -> dict[tuple[str, str], tuple[int, int]]:
    """For each ordered pair (row, column) that met: (matches row ranked ahead, matches met)."""
    ahead: Counter[tuple[str, str]] = Counter()
    met: Counter[tuple[str, str]] = Counter()
    for match in matches:
        for a in match.seats:
            for b in match.seats:
                if a.bot != b.bot:
                    met[a.bot, b.bot] += 1
                    ahead[a.bot, b.bot] += a.rank < b.rank
    return {pair: (ahead[pair], n) for pair, n in met.items()}


@dataclass(frozen=True)
class Comparison:
    """A against B: the per-set difference over the complete duplicate sets both played (in
    schedule order), who finished ahead in more of those sets, and who finished ahead over
    the matches both played."""

    a: str
    b: str
    values: tuple[float, ...]  # per set: A's relative score minus B's
    bounds: Bounds
    matches: int
    a_ahead: int
    b_ahead: int

    @property
    def difference(self) -> Estimate:
        return stats.estimate(self.values, self.bounds)

    @property
    def sets_won(self) -> Estimate:
        """The mean of +1 (A ahead in the set), -1 (B ahead), 0 (level)."""
        return stats.estimate(stats.signs(self.values), stats.SIGNS)

    @property
    def set_counts(self) -> tuple[int, int, int]:
        """Sets A finished ahead in, B ahead in, level."""
        ahead = sum(v > 0 for v in self.values)
        behind = sum(v < 0 for v in self.values)
        return ahead, behind, len(self.values) - ahead - behind

    @property
    def verdict(self) -> str:
        return stats.verdict(self.values, self.bounds, self.a, self.b)

    def as_dict(self) -> dict[str, Any]:
        difference, won = self.difference, self.sets_won
        a_sets, b_sets, level = self.set_counts
        return {
            "a": self.a,
            "b": self.b,
            "sets": difference.sets,
            "interval": "95% confidence sequence: valid at every look (anytime)",
            "difference_range": [self.bounds.low, self.bounds.high],
            "mean_relative_difference": difference.mean,
            "sd": difference.sd,
            "skewness": difference.skew,
            "ci": list(difference.ci) if difference.ci else None,
            "sets_a_ahead": a_sets,
            "sets_b_ahead": b_sets,
            "sets_level": level,
            "sets_won_difference": won.mean,
            "sets_won_ci": list(won.ci) if won.ci else None,
            "matches": self.matches,
            "a_ahead": self.a_ahead,
            "b_ahead": self.b_ahead,
            "ties": self.matches - self.a_ahead - self.b_ahead,
            "a_ahead_share": self.a_ahead / self.matches if self.matches else None,
            "b_ahead_share": self.b_ahead / self.matches if self.matches else None,
            "verdict": self.verdict,
        }


def set_differences(matches: Sequence[MatchRecord], a: str, b: str) -> list[float]:
    """A's per-set relative score minus B's, over the complete sets both played, in set order."""
    return [
        values[a] - values[b]
        for values in set_relative_scores(matches).values()
        if a in values and b in values
    ]


def compare(
    matches: Sequence[MatchRecord], a: str, b: str, score_range: tuple[float, float]
) -> Comparison:
    """Paired comparison: per-set relative score of A minus B, and who finished ahead
    (ScoreOutOfRange for a stored score outside ``score_range``)."""
    check_scores(matches, score_range)
    pairs = head_to_head(matches)
    a_ahead, met = pairs.get((a, b), (0, 0))
    b_ahead = pairs.get((b, a), (0, 0))[0]
    return Comparison(
        a=a,
        b=b,
        values=tuple(set_differences(matches, a, b)),
        bounds=stats.difference_bounds(score_range),
        matches=met,
        a_ahead=a_ahead,
        b_ahead=b_ahead,
    )


@dataclass(frozen=True)
class SeatEffect:
    """How one seat position fared, whoever sat in it."""

    seat: int
    matches: int
    wins: int
    mean_rank: float | None
    mean_score: float | None
    relative: Estimate  # per-deal relative score over complete sets

    def as_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "matches": self.matches,
            "wins": self.wins,
            "win_share": self.wins / self.matches if self.matches else None,
            "mean_rank": self.mean_rank,
            "mean_score": self.mean_score,
            "sets": self.relative.sets,
            "relative_score": self.relative.mean,
            "relative_ci": list(self.relative.ci) if self.relative.ci else None,
        }


def seat_effects(
    matches: Sequence[MatchRecord], score_range: tuple[float, float]
) -> list[SeatEffect]:
    """Per seat position: results of every match, and the relative score over complete sets.

    Only complete duplicate sets give the relative score and its interval: there each bot sat in
    each seat once on the same deal, so an interval clear of 0 means the seat itself matters.
    ScoreOutOfRange for a stored score outside ``score_range``.
    """
    check_scores(matches, score_range)
    seats = max((len(m.seats) for m in matches), default=0)
    ranks: list[list[int]] = [[] for _ in range(seats)]
    scores: list[list[float]] = [[] for _ in range(seats)]
    wins = [0] * seats
    for match in matches:
        for index, seat in enumerate(match.seats):
            ranks[index].append(seat.rank)
            scores[index].append(seat.score)
            wins[index] += _won(seat)
    per_set: list[list[float]] = [[] for _ in range(seats)]
    for group in _complete_sets(matches):
        for index in range(len(group[0].seats)):
            per_set[index].append(_relative_mean((match, index) for match in group))
    bounds = stats.relative_bounds(score_range, seats or 2)
    return [
        SeatEffect(
            seat=index,
            matches=len(ranks[index]),
            wins=wins[index],
            mean_rank=fmean(ranks[index]) if ranks[index] else None,
            mean_score=fmean(scores[index]) if scores[index] else None,
            relative=stats.estimate(per_set[index], bounds),
        )
        for index in range(seats)
    ]
