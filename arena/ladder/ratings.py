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
  rotations stored), since the point of the set is that deal and seat luck cancel.
* Confidence: Student-t intervals over duplicate sets (the independent units), none below
  ``stats.MIN_SETS`` sets (:mod:`arena.ladder.stats`).
* Seat effects: the same relative score per seat position instead of per bot. In a complete
  set every bot sits in every seat once, so bot strength cancels and what is left is the seat.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from arena.ladder import stats
from arena.ladder.stats import Estimate

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

    def prob_above(self, other: Rating) -> float:
        """How likely this skill is above ``other``'s, by the two rating distributions."""
        return stats.prob_greater(self.mu - other.mu, (self.sigma**2 + other.sigma**2) ** 0.5)


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


def rate(
    matches: Sequence[MatchRecord], settings: RatingSettings, bots: Iterable[str]
) -> tuple[dict[str, Rating], list[HistoryRow]]:
    """Final ratings of ``bots`` and every bot's rating after each match, in schedule order."""
    model = _Model(settings)
    current = {bot: model.new() for bot in bots}
    inherit = {new: old for new, old in settings.inherit if new in current and old in current}
    history = []
    for match in sorted(matches, key=lambda m: m.position):
        for seat in match.seats:  # a new version's first match: it starts at its previous mu
            if seat.bot in inherit:
                current[seat.bot] = model.new(mu=current[inherit.pop(seat.bot)].mu)
        if all(seat.status != OK for seat in match.seats):
            continue  # every seat forfeited: no winner, nothing learnt about who is stronger
        groups = _groups(match)
        players = [[current[match.seats[s].bot] for s in g] for g in groups]
        ranks = [min(match.seats[s].rank for s in g) for g in groups]
        for group, rated in zip(groups, model.rate(players, ranks), strict=True):
            for index, rating in zip(group, rated, strict=True):
                bot = match.seats[index].bot
                current[bot] = rating
                history.append(HistoryRow(match.position, match.match_id, bot, *_ms(rating)))
    return {bot: Rating(*_ms(r)) for bot, r in current.items()}, history


def _ms(rating: Any) -> tuple[float, float]:
    return float(rating.mu), float(rating.sigma)


def _complete_sets(matches: Sequence[MatchRecord]) -> list[list[MatchRecord]]:
    """The duplicate sets with every rotation stored, in set id order."""
    by_set: dict[str, list[MatchRecord]] = defaultdict(list)
    for match in matches:
        by_set[match.set_id].append(match)
    return [g for _, g in sorted(by_set.items()) if len(g) == len(g[0].seats)]


def _relative(match: MatchRecord) -> list[float]:
    """Each seat's score minus the mean score of its table; a forfeited seat counts with the
    table's lowest score (so when every seat forfeited, each is at 0)."""
    floor = min(s.score for s in match.seats)
    scores = [s.score if s.status == OK else floor for s in match.seats]
    mean = fmean(scores)
    return [score - mean for score in scores]


def _won(seat: SeatRecord) -> bool:
    """First place without a fault: a forfeited seat never wins, even when all seats did."""
    return seat.rank == 0 and seat.status == OK


def set_relative_scores(matches: Sequence[MatchRecord]) -> dict[str, dict[str, float]]:
    """For each complete duplicate set: each bot's mean per-deal relative score."""
    out: dict[str, dict[str, float]] = {}
    for group in _complete_sets(matches):
        values: dict[str, list[float]] = defaultdict(list)
        for match in group:
            for seat, relative in zip(match.seats, _relative(match), strict=True):
                values[seat.bot].append(relative)
        out[group[0].set_id] = {bot: fmean(v) for bot, v in values.items()}
    return out


def ladder_stats(
    matches: Sequence[MatchRecord], settings: RatingSettings, bots: Sequence[str]
) -> list[BotStats]:
    """The ladder table, best first (conservative rating, then name)."""
    ratings, _ = rate(matches, settings, bots)
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
    per_bot: dict[str, list[float]] = defaultdict(list)
    for values in set_relative_scores(matches).values():
        for bot, value in values.items():
            per_bot[bot].append(value)
    for bot, row in rows.items():
        if ranks[bot]:
            row.games = len(ranks[bot])
            row.wins = wins[bot]
            row.mean_rank = fmean(ranks[bot])
            row.mean_score = fmean(scores[bot])
        row.faults = dict(sorted(faults[bot].items()))
        row.relative = stats.estimate(per_bot[bot])
    table = sorted(rows.values(), key=lambda r: (-r.rating.conservative, r.bot))
    for place, (above, row) in enumerate(zip([None, *table], table, strict=False), 1):
        row.tied = above is not None and not order_established(above, row)
        row.place = above.place if above is not None and row.tied else place
    return table


def order_established(above: BotStats, below: BotStats) -> bool:
    """Whether ``above`` is known to be stronger than ``below``: the rating says so with 95 %
    probability and their relative-score intervals are apart, in the same order."""
    return (
        above.rating.prob_above(below.rating) >= stats.CONFIDENCE
        and above.relative_ci is not None
        and below.relative_ci is not None
        and above.relative_ci[0] > below.relative_ci[1]
    )


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
    """A against B: the per-set difference over the complete duplicate sets both played, and
    who finished ahead over the matches both played."""

    a: str
    b: str
    difference: Estimate  # per set: A's relative score minus B's
    matches: int
    a_ahead: int
    b_ahead: int

    @property
    def prob_a_stronger(self) -> float | None:
        return stats.prob_positive(self.difference)

    @property
    def verdict(self) -> str:
        return stats.verdict(self.difference, self.a, self.b)

    def as_dict(self) -> dict[str, Any]:
        p = self.prob_a_stronger
        return {
            "a": self.a,
            "b": self.b,
            "sets": self.difference.sets,
            "mean_relative_difference": self.difference.mean,
            "sd": self.difference.sd,
            "ci": list(self.difference.ci) if self.difference.ci else None,
            "prob_a_stronger": p,
            "prob_b_stronger": None if p is None else 1 - p,
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


def compare(matches: Sequence[MatchRecord], a: str, b: str) -> Comparison:
    """Paired comparison: per-set relative score of A minus B, and who finished ahead."""
    pairs = head_to_head(matches)
    a_ahead, met = pairs.get((a, b), (0, 0))
    b_ahead = pairs.get((b, a), (0, 0))[0]
    return Comparison(
        a=a,
        b=b,
        difference=stats.estimate(set_differences(matches, a, b)),
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


def seat_effects(matches: Sequence[MatchRecord]) -> list[SeatEffect]:
    """Per seat position: results of every match, and the relative score over complete sets.

    Only complete duplicate sets give the relative score and its interval: there each bot sat in
    each seat once on the same deal, so an interval clear of 0 means the seat itself matters.
    """
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
        relatives = [_relative(match) for match in group]
        for index in range(len(group[0].seats)):
            per_set[index].append(fmean(r[index] for r in relatives))
    return [
        SeatEffect(
            seat=index,
            matches=len(ranks[index]),
            wins=wins[index],
            mean_rank=fmean(ranks[index]) if ranks[index] else None,
            mean_score=fmean(scores[index]) if scores[index] else None,
            relative=stats.estimate(per_set[index]),
        )
        for index in range(seats)
    ]
