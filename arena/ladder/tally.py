"""Pure: the ladder table, head-to-head, seat effects and comparisons as one fold over the
stored matches, set by set, so the store can keep it up to date (``running.py``).

A :class:`Tally` is what the table is computed from: per bot and per seat position the counts
and sums of every match counted (games, wins, ranks, scores, faults), per ordered pair of bots
how often one finished ahead of the other, and, per complete duplicate set, in the order the
sets are added: each bot's and each seat's relative score as a running confidence sequence
(:class:`arena.ladder.stats.Running`) and per ordered pair the one-sided capital behind the
table's ``=`` marks. Counts and exact sums do not depend on the order matches are counted in;
the sequences depend on the order of the sets, which is the schedule's (the order of their
last match: the store keeps it, ``running.py``; in schedule order by default), so the same
results give the same intervals on any number of workers. The batch functions below fold the
same steps over a list of matches, so a tally kept in a database equals them exactly.

* Order: a bot's place above the next is established when it finishes ahead of it in more of
  the sets they both played, by an anytime test of each ordered pair, Holm's procedure holding
  the family-wise error rate over every pair of the table at 5 %; otherwise ``2=``. Each
  pair's stakes are tuned for :data:`PAIR_LEVEL` whatever the number of bots (the p-values
  are valid for any stakes fixed before each set), so a pair's capital does not change when a
  bot joins a following ladder; Holm's thresholds count the real family.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import permutations
from typing import Any, TypeVar

from arena.ladder import betting, stats
from arena.ladder.ratings import (
    OK,
    BotStats,
    MatchRecord,
    Rating,
    RatingSettings,
    check_scores,
    complete_sets,
    rate,
    relative_mean,
    set_values,
    won,
)
from arena.ladder.stats import Bounds, Estimate

K = TypeVar("K", str, int)

PAIR_LEVEL = stats.ALPHA / 2
"""The level the pairwise tests' stakes are tuned for (as a two-sided sequence's)."""


@dataclass
class Totals:
    """What the table shows of one bot (or seat position) over the matches counted."""

    games: int = 0
    wins: int = 0
    ranks: int = 0
    scores: int | Fraction = 0  # exact: the mean is the correctly rounded sum over games
    faults: Counter[str] = field(default_factory=Counter)

    def add(self, rank: int, score: float, status: str, first: bool) -> None:
        self.games += 1
        self.wins += first
        self.ranks += rank
        self.scores += exact(score)
        if status != OK:
            self.faults[status] += 1

    @property
    def mean_rank(self) -> float | None:
        return self.ranks / self.games if self.games else None

    @property
    def mean_score(self) -> float | None:
        return float(self.scores) / self.games if self.games else None


def _totals(table: dict[K, Totals], key: K) -> Totals:
    """``table[key]``, made empty if missing (``setdefault`` would build one every time)."""
    totals = table.get(key)
    if totals is None:
        totals = table[key] = Totals()
    return totals


def exact(number: float | str) -> int | Fraction:
    """``number`` (a score, or its saved text) exactly: an int while it is a whole number,
    which sums far faster than a Fraction and prints the same."""
    if isinstance(number, str):
        return Fraction(number) if "/" in number else int(number)
    return int(number) if float(number).is_integer() else Fraction(number)


class Tally:
    """The fold (see the module docstring); ``seats``: the ladder's seats, which bound the
    relative scores with the game's ``score_range``."""

    def __init__(self, score_range: tuple[float, float], seats: int) -> None:
        self.bounds = stats.relative_bounds(score_range, seats)
        self.bots: dict[str, Totals] = {}
        self.seats: dict[int, Totals] = {}
        self.h2h: dict[tuple[str, str], list[int]] = {}  # (ahead, met)
        self.relative: dict[str, stats.Running] = {}
        self.seat_relative: dict[int, stats.Running] = {}
        self.pairs: dict[tuple[str, str], betting.OneSided] = {}

    def count(self, match: MatchRecord) -> None:
        """Count one match's results (any match, its set complete or not)."""
        for index, seat in enumerate(match.seats):
            first = won(seat)
            for totals in (_totals(self.bots, seat.bot), _totals(self.seats, index)):
                totals.add(seat.rank, seat.score, seat.status, first)
            for other in match.seats:
                if other.bot != seat.bot:
                    met = self.h2h.setdefault((seat.bot, other.bot), [0, 0])
                    met[0] += seat.rank < other.rank
                    met[1] += 1

    def add_set(self, group: Sequence[MatchRecord]) -> dict[str, float]:
        """Add one complete set (its matches in schedule order) to the sequences; its per-set
        relative scores, by bot (OutOfRange for a value outside the bounds)."""
        values = set_values(group)
        for bot, value in values.items():
            _running(self.relative, bot, self.bounds).add(value)
        for index in range(len(group[0].seats)):
            value = relative_mean((match, index) for match in group)
            _running(self.seat_relative, index, self.bounds).add(value)
        _bet_on_leads(self.pairs, values)
        return values

    def established(self, bots: Sequence[str], alpha: float = stats.ALPHA) -> set[tuple[str, str]]:
        """The ordered pairs (A, B) for which "A finishes ahead of B in more of the sets both
        played" is established: each ordered pair's anytime p-value, then Holm's procedure
        over all k(k - 1) ordered pairs of ``bots``, so the chance that any established order
        is wrong stays below ``alpha``, at every look."""
        names = sorted(set(bots))
        p_values = {}
        for pair in permutations(names, 2):
            bettor = self.pairs.get(pair)
            p_values[pair] = stats.p_value(bettor.best) if bettor is not None else 1.0
        return stats.holm(p_values, alpha)

    def table(self, ratings: Mapping[str, Rating], bots: Sequence[str]) -> list[BotStats]:
        """The ladder table, best first (conservative rating, then name)."""
        rows = []
        for bot in bots:
            totals = self.bots.get(bot, Totals())
            running = self.relative.get(bot)
            rows.append(BotStats(
                bot, ratings[bot], totals.games, totals.wins, totals.mean_rank,
                totals.mean_score, dict(sorted(totals.faults.items())),
                running.estimate() if running is not None else stats.NO_SETS,
            ))  # fmt: skip
        table = sorted(rows, key=lambda r: (-r.rating.conservative, r.bot))
        established = self.established(bots)
        for place, (above, row) in enumerate(zip([None, *table], table, strict=False), 1):
            row.tied = above is not None and (above.bot, row.bot) not in established
            row.place = above.place if above is not None and row.tied else place
        return table

    def head_to_head(self) -> dict[tuple[str, str], tuple[int, int]]:
        """For each ordered pair (row, column) that met: (matches row ranked ahead, met)."""
        return {pair: (ahead, met) for pair, (ahead, met) in sorted(self.h2h.items())}

    def seat_effects(self) -> list[SeatEffect]:
        """Per seat position: results of every match counted, and the relative score over
        complete sets (there each bot sat in each seat once on the same deal, so an interval
        clear of 0 means the seat itself matters)."""
        out = []
        for index in range(max(self.seats, default=-1) + 1):
            totals = self.seats.get(index, Totals())
            running = self.seat_relative.get(index)
            out.append(SeatEffect(
                index, totals.games, totals.wins, totals.mean_rank, totals.mean_score,
                running.estimate() if running is not None else stats.NO_SETS,
            ))  # fmt: skip
        return out


def fold(
    matches: Sequence[MatchRecord],
    score_range: tuple[float, float],
    order: Sequence[str] | None = None,
    seats: int | None = None,
) -> Tally:
    """The batch: every match counted, every complete set added in ``order`` (see
    :func:`arena.ladder.ratings.complete_sets`); ScoreOutOfRange for a stored score outside
    ``score_range``. ``seats``: by default the most any match has (2 with none)."""
    check_scores(matches, score_range)
    tally = Tally(score_range, seats or max((len(m.seats) for m in matches), default=2))
    for match in matches:
        tally.count(match)
    for group in complete_sets(matches, order):
        tally.add_set(group)
    return tally


def ladder_stats(
    matches: Sequence[MatchRecord],
    settings: RatingSettings,
    bots: Sequence[str],
    ratings: Mapping[str, Rating] | None = None,
    order: Sequence[str] | None = None,
) -> list[BotStats]:
    """The ladder table, best first; ``ratings``: those the store keeps over ``matches`` (else
    rated here); ``order``: the sets' (see :func:`fold`)."""
    tally = fold(matches, settings.score_range, order)
    if ratings is None:
        ratings = rate(matches, settings, bots)[0]
    return tally.table(ratings, bots)


def established_orders(
    per_set: dict[str, dict[str, float]], bots: Sequence[str], alpha: float = stats.ALPHA
) -> set[tuple[str, str]]:
    """:meth:`Tally.established` over the per-set relative scores ``per_set`` (in order)."""
    tally = Tally((0.0, 1.0), 2)
    for values in per_set.values():
        _bet_on_leads(tally.pairs, values)
    return tally.established(bots, alpha)


def _running(sequences: dict[K, stats.Running], key: K, bounds: Bounds) -> stats.Running:
    """``key``'s sequence, made on its first set (not for every set: it builds its grid)."""
    running = sequences.get(key)
    if running is None:
        running = sequences[key] = stats.Running(bounds)
    return running


def _bet_on_leads(
    pairs: dict[tuple[str, str], betting.OneSided], values: Mapping[str, float]
) -> None:
    """Each ordered pair's bettor takes the sign of its lead in one set (``values``: by bot)."""
    for a, b in permutations(values, 2):
        lead = stats.signs([values[a] - values[b]])[0]
        bettor = pairs.get((a, b))
        if bettor is None:
            bettor = pairs[a, b] = stats.pair_capital(PAIR_LEVEL)
        bettor.add(stats.SIGNS.to_scale(lead))


def head_to_head(matches: Iterable[MatchRecord]) -> dict[tuple[str, str], tuple[int, int]]:
    """For each ordered pair (row, column) that met: (matches row ranked ahead, matches met)."""
    tally = Tally((0.0, 1.0), 2)
    for match in matches:
        tally.count(match)
    return tally.head_to_head()


@dataclass(frozen=True)
class Comparison:
    """A against B: the per-set difference over the complete duplicate sets both played (in
    set order), who finished ahead in more of those sets, and who finished ahead over the
    matches both played."""

    a: str
    b: str
    values: tuple[float, ...]  # per set: A's relative score minus B's
    bounds: Bounds
    matches: int
    a_ahead: int
    b_ahead: int

    @functools.cached_property
    def difference(self) -> Estimate:
        return stats.estimate(self.values, self.bounds)

    @functools.cached_property
    def sets_won(self) -> Estimate:
        """The mean of +1 (A ahead in the set), -1 (B ahead), 0 (level)."""
        return stats.estimate(stats.signs(self.values), stats.SIGNS)

    @property
    def set_counts(self) -> tuple[int, int, int]:
        """Sets A finished ahead in, B ahead in, level."""
        ahead = sum(v > 0 for v in self.values)
        behind = sum(v < 0 for v in self.values)
        return ahead, behind, len(self.values) - ahead - behind

    @functools.cached_property
    def verdict(self) -> str:
        estimates = (self.difference, self.sets_won)
        return stats.verdict(self.values, self.bounds, self.a, self.b, estimates)

    def as_dict(self) -> dict[str, Any]:
        difference, sets_won = self.difference, self.sets_won
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
            "sets_won_difference": sets_won.mean,
            "sets_won_ci": list(sets_won.ci) if sets_won.ci else None,
            "matches": self.matches,
            "a_ahead": self.a_ahead,
            "b_ahead": self.b_ahead,
            "ties": self.matches - self.a_ahead - self.b_ahead,
            "a_ahead_share": self.a_ahead / self.matches if self.matches else None,
            "b_ahead_share": self.b_ahead / self.matches if self.matches else None,
            "verdict": self.verdict,
        }


def comparison(
    a: str,
    b: str,
    per_set: Iterable[tuple[float, float]],
    pairs: Mapping[tuple[str, str], tuple[int, int]],
    score_range: tuple[float, float],
) -> Comparison:
    """A against B from the sets both played (A's and B's relative score in each, in set
    order) and the head-to-head counts ``pairs``."""
    a_ahead, met = pairs.get((a, b), (0, 0))
    return Comparison(
        a=a,
        b=b,
        values=tuple(x - y for x, y in per_set),
        bounds=stats.difference_bounds(score_range),
        matches=met,
        a_ahead=a_ahead,
        b_ahead=pairs.get((b, a), (0, 0))[0],
    )


def compare(
    matches: Sequence[MatchRecord],
    a: str,
    b: str,
    score_range: tuple[float, float],
    order: Sequence[str] | None = None,
) -> Comparison:
    """Paired comparison: per-set relative score of A minus B, and who finished ahead
    (ScoreOutOfRange for a stored score outside ``score_range``)."""
    check_scores(matches, score_range)
    both = [set_values(g) for g in complete_sets(matches, order)]
    per_set = [(v[a], v[b]) for v in both if a in v and b in v]
    return comparison(a, b, per_set, head_to_head(matches), score_range)


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
    matches: Sequence[MatchRecord],
    score_range: tuple[float, float],
    order: Sequence[str] | None = None,
) -> list[SeatEffect]:
    """Per seat position: results of every match, and the relative score over complete sets
    (ScoreOutOfRange for a stored score outside ``score_range``)."""
    return fold(matches, score_range, order).seat_effects()
