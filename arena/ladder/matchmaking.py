"""Pure: which table a following ladder plays next, to learn the most from it.

Two rules, in order:

1. **Placement first.** A version with fewer than ``placement`` duplicate sets plays before
   anyone else (the least played first, then by name), at the most informative table that
   holds it: a new version's rating says nothing yet.
2. **Then the most expected information among the tables played least.** Every table's k-th
   set comes before any table's (k+1)-th, and among the tables played least, the one whose
   result is expected to remove the most rating variance goes first: the sum, over its pairs
   of bots, of the expected reduction of ``sigma_i^2 + sigma_j^2`` by one TrueSkill
   two-player update, averaged over the two outcomes weighted by their probabilities under
   the current ratings. Two close, uncertain neighbours score most; a pair already ordered
   scores little. Ties go to the first table by name.

Why the coverage rule: a rule that plays wherever the ratings are most in doubt concentrates
games on a few close pairs, TrueSkill's sigmas shrink fastest there, and the pairs it believes
settled are starved. ``bench/matchmaking.py`` measured it on duplicate sets with deal luck and
seat effects by bot (8 bots, 3 seats, 400 runs per rule, 95 % intervals): the rule playing the
table whose pairs are most likely in the wrong order had the true order after 448 sets in 80 %
of runs and established 7 % of the pair orders, against 96 % and 47 % for a round robin; this
module's rule, 98 % and 47 % (differences from the round robin within -7 to +10 points at
every checkpoint). What it buys a following ladder is placement, a new version rated first,
not fewer sets to the final order (``bench/results/matchmaking.json``). Halite, Battlecode
and AI Arena use rating heuristics; none computes the expected information of a table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

Table = tuple[str, ...]
MAX_CANDIDATES = 2000
STARTS = ("inherit", "fresh")


@dataclass(frozen=True)
class FollowSettings:
    """A following ladder's ``[follow]`` table (``ladders/README.md``)."""

    placement: int = 3  # duplicate sets a new version plays before anyone else
    start: str = "inherit"  # a new version's rating: its previous version's mu, or fresh
    poll_s: float = 2.0  # how often an idle ladder looks for new versions


def _pdf(x: float) -> float:
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _cdf(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def pair_information(a: tuple[float, float], b: tuple[float, float], beta: float) -> float:
    """Expected reduction of ``sigma_a^2 + sigma_b^2`` from one result between a and b."""
    (mu_a, sigma_a), (mu_b, sigma_b) = a, b
    c2 = 2 * beta * beta + sigma_a**2 + sigma_b**2
    c = math.sqrt(c2)
    t = (mu_a - mu_b) / c
    expected = 0.0
    for sign in (1, -1):  # a wins, then b wins
        p = _cdf(sign * t)
        if p <= 1e-12:
            continue
        v = _pdf(sign * t) / p
        expected += p * v * (v + sign * t)
    return (sigma_a**4 + sigma_b**4) / c2 * expected


def table_information(
    table: Table, ratings: Mapping[str, tuple[float, float]], beta: float
) -> float:
    return sum(pair_information(ratings[a], ratings[b], beta) for a, b in combinations(table, 2))


def candidates(pool: Sequence[str], seats: int) -> list[Table]:
    """Every table of ``seats`` bots from ``pool`` (sorted), or an even sample of them."""
    names = sorted(pool)
    count = math.comb(len(names), seats)
    step = max(1, count // MAX_CANDIDATES)
    return [t for i, t in enumerate(combinations(names, seats)) if i % step == 0]


def next_table(
    pool: Sequence[str],
    seats: int,
    ratings: Mapping[str, tuple[float, float]],
    sets_played: Mapping[str, int],
    beta: float,
    placement: int,
    table_sets: Mapping[Table, int] | None = None,
) -> Table:
    """The table to play next (sorted names); see the module docstring. ``table_sets``: the
    sets already played per table."""
    tables = candidates(pool, seats)
    new = sorted((sets_played.get(b, 0), b) for b in pool if sets_played.get(b, 0) < placement)
    if new:
        pivot = new[0][1]
        tables = [t for t in tables if pivot in t] or [
            tuple(sorted([pivot, *[b for b in sorted(pool) if b != pivot][: seats - 1]]))
        ]
    else:  # the tables played least so far: every table's k-th set before any (k+1)-th
        counts = table_sets or {}
        fewest = min(counts.get(t, 0) for t in tables)
        tables = [t for t in tables if counts.get(t, 0) == fewest]
    # max keeps the first of equal tables, and ``tables`` is in sorted order: deterministic
    return max(tables, key=lambda t: table_information(t, ratings, beta))
