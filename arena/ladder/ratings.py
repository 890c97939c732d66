"""Pure: ratings and per-set values from stored results, taken in schedule order.

Nothing here reads a clock or a database: the same results give the same ratings, so a run on
1 worker, on 2, on a cluster or resumed after a crash ends with identical ratings, and the
table's intervals and ``=`` marks take the complete sets in schedule order too (``tally.py``,
``running.py``).

* Rating: TrueSkill (default) or OpenSkill Plackett-Luce, updated match by match in schedule
  order; a free-for-all of single seats, ties as draws, or teams where the game reports them
  (a team's rank is its best seat's). Bots are ordered by the conservative ``mu - 3 sigma``;
  a bot whose place above the next is not established is shown tied with it (``2=``).
* Forfeits: a forfeited seat never wins. Its relative score counts it with the lowest score at
  its table (the points its random stand-in made are not its own), and a match in which every
  seat forfeited says nothing about who is stronger: it is left out of the ratings.
* Per-deal relative score: in each match, a seat's score minus the mean score of its table;
  averaged, for each bot, over the matches of a duplicate set. Only complete sets count (all
  rotations stored), since the point of the set is that deal and seat luck cancel. Each is
  computed from one exactly rounded sum, so bots level in a set are exactly level (0, never
  3.5e-18) and a set's value does not depend on the order of its matches.
* Confidence, order and seat effects over those values: ``tally.py``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.ladder import stats, two_sides
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


Pair = two_sides.Pair  # (mu, sigma)
Ratings = dict[str, Pair]


class _Model:
    """TrueSkill or OpenSkill behind one small interface: ``new()`` and ``rate()``."""

    def __init__(self, settings: RatingSettings) -> None:
        s = settings
        if s.model == "openskill":
            from openskill.models import PlackettLuce

            self.impl: Any = PlackettLuce(mu=s.mu, sigma=s.sigma, beta=s.beta, tau=s.tau)
            self.new: Callable[..., Any] = self.impl.rating
            self.two_sides: two_sides.TwoSides | None = None
        else:
            import trueskill

            self.impl = trueskill.TrueSkill(
                mu=s.mu, sigma=s.sigma, beta=s.beta, tau=s.tau, draw_probability=s.draw_probability
            )
            self.new = self.impl.create_rating
            self.two_sides = two_sides.TwoSides(self.impl)  # in closed form

    def rate(self, before: list[list[Pair]], ranks: list[int]) -> list[list[Pair]]:
        """The (mu, sigma) of each player of each group after a match the groups finished
        ``ranks``, from their (mu, sigma) ``before``."""
        if self.two_sides and len(before) == 2:
            return self.two_sides.rate(before, ranks)
        players = [[self.new(mu=mu, sigma=sigma) for mu, sigma in g] for g in before]
        return [[_ms(r) for r in g] for g in self.impl.rate(players, ranks=ranks)]


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
        ranks = [min(match.seats[s].rank for s in g) for g in groups]
        history = []
        for group, rated in zip(groups, self.model.rate(before, ranks), strict=True):
            for seat, rating in zip(group, rated, strict=True):
                bot = match.seats[seat].bot
                changed[bot] = rating
                history.append(HistoryRow(match.position, match.match_id, bot, *changed[bot]))
        return changed, history


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


def complete_sets(
    matches: Sequence[MatchRecord], order: Sequence[str] | None = None
) -> list[list[MatchRecord]]:
    """The duplicate sets with every rotation stored, each set's matches in schedule order;
    the sets in the order ``order`` names them (the order the store keeps them in:
    ``running.py``), by default in schedule order (first position). A set ``order`` does not
    name comes after those it names, in schedule order."""
    by_set: dict[str, list[MatchRecord]] = defaultdict(list)
    for match in sorted(matches, key=lambda m: m.position):
        by_set[match.set_id].append(match)
    whole = [g for g in by_set.values() if len(g) == len(g[0].seats)]
    if order is None:
        return whole
    rank = {set_id: i for i, set_id in enumerate(order)}
    return sorted(whole, key=lambda g: rank.get(g[0].set_id, len(rank)))


def _scores(match: MatchRecord) -> list[float]:
    """The scores that count: a forfeited seat has the table's lowest score (so when every
    seat forfeited, each is level)."""
    floor = min(s.score for s in match.seats)
    return [s.score if s.status == OK else floor for s in match.seats]


def relative_mean(places: Iterable[tuple[MatchRecord, int]]) -> float:
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


def won(seat: SeatRecord) -> bool:
    """First place without a fault: a forfeited seat never wins, even when all seats did."""
    return seat.rank == 0 and seat.status == OK


def set_values(group: Sequence[MatchRecord]) -> dict[str, float]:
    """One complete set's per-deal relative score of each bot (by name)."""
    places: dict[str, list[tuple[MatchRecord, int]]] = defaultdict(list)
    for match in group:
        for index, seat in enumerate(match.seats):
            places[seat.bot].append((match, index))
    return {bot: relative_mean(p) for bot, p in sorted(places.items())}


def set_relative_scores(
    matches: Sequence[MatchRecord], order: Sequence[str] | None = None
) -> dict[str, dict[str, float]]:
    """For each complete duplicate set (in ``order``, see :func:`complete_sets`): each bot's
    mean per-deal relative score."""
    return {group[0].set_id: set_values(group) for group in complete_sets(matches, order)}


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
