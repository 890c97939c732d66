"""Pure: which matches a ladder plays, with their ids, deal seeds and seat orders.

Every match belongs to a **duplicate set**: one table (a combination of bots) and one deal
seed, played once per cyclic rotation of the seats, so each bot of the table sits in each seat
once with the same cards dealt. Identities never depend on the order or number of bots in the
file: a table is known by its sorted bot names, and set ids, match ids and deal identities are
sha256 digests of the ladder seed, the configuration fingerprint (game, seats, options), the
table and the round. Adding a bot therefore leaves every existing match as it was, and a
re-run plays only the tables involving the newcomer.

All of that is public: a bot that knows the ladder file can compute it. The cards are not: the
engine deals from :func:`engine_seed`, an HMAC of the deal identity under the ladder's secret
key (``arena.ladder.deal_key``), so every rotation of a set still shares its deal.

When a round would hold more tables than ``max_tables``, every round plays the next
``max_tables`` tables of one balanced incomplete design instead (``design.py``): bots' table
counts within one of each other, pairs as near even as the greedy gets them, over the whole
schedule and after every round. Drawing it costs time proportional to the tables drawn, never
to the number of combinations (``bench/designs.py``).
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from arena.ladder.design import Table, first_tables


@dataclass(frozen=True)
class MatchSpec:
    """One scheduled match. ``bots`` are in seat order; ``table`` is sorted."""

    position: int
    match_id: str
    set_id: str
    round: int
    table: Table
    rotation: int
    seed: int
    bots: tuple[str, ...]


def digest(*parts: object) -> str:
    """A sha256 hex digest of ``parts``: every identity and seed of a schedule is one."""
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()


def engine_seed(key: bytes, deal: int) -> int:
    """The seed the engine deals ``deal`` (a set's public deal identity) from: 128 bits of
    HMAC-SHA256 under the ladder's secret ``key``. Whoever lacks the key cannot tell it from
    random, however much of the schedule they know."""
    mac = hmac.digest(key, f"arena deal\x1f{deal}".encode(), "sha256")  # one call, in C
    return int.from_bytes(mac[:16], "big")


DESIGN = "greedy-1"  # the design's algorithm: kept ratings of another draw are stale
FULL_ROUND_LIMIT = 10_000  # a file must choose max_tables when a full round is larger


def combinations_per_round(bots: int, seats: int, gauntlet: bool) -> int:
    """The tables of a full round: every combination of ``seats`` bots (a gauntlet's: of the
    ``seats - 1`` beside the candidate)."""
    return math.comb(bots - 1, seats - 1) if gauntlet else math.comb(bots, seats)


def tables_to_meet(bots: int, seats: int, gauntlet: bool) -> int:
    """The fewest tables of a round in which every pair (a gauntlet's: of the field, and the
    candidate with each) can meet once."""
    field, size = (bots - 1, seats - 1) if gauntlet else (bots, seats)
    if size < 2:
        return field
    return -(-math.comb(field, 2) // math.comb(size, 2))


def drawn(bots: int, seats: int, gauntlet: bool, max_tables: int) -> bool:
    """Whether the rounds play a balanced design rather than every combination."""
    return combinations_per_round(bots, seats, gauntlet) > max_tables


def rounds_of_tables(
    names: Sequence[str], seats: int, rounds: int, limit: int, salt: str, candidate: str | None
) -> list[list[Table]]:
    """Each round's tables: every combination, or the round's ``limit`` tables of the design
    (round r plays its tables r*limit .. (r+1)*limit-1, so more rounds only add tables)."""
    field = sorted(n for n in names if n != candidate)
    size = seats if candidate is None else seats - 1
    if not drawn(len(names), seats, candidate is not None, limit):
        groups = [list(combinations(field, size))] * rounds
    else:
        tables = first_tables(tuple(field), size, rounds * limit, salt)
        groups = [list(tables[r * limit : (r + 1) * limit]) for r in range(rounds)]
    if candidate is None:
        return groups
    return [[tuple(sorted((candidate, *g))) for g in tables] for tables in groups]


def build_schedule(
    names: Sequence[str],
    seats: int,
    rounds: int,
    seed: int,
    fingerprint: str,
    candidate: str | None = None,
    max_tables: int = 200,
) -> list[MatchSpec]:
    """The whole schedule in its canonical order: round, then table, then rotation."""
    sets = schedule_sets(names, seats, rounds, seed, fingerprint, candidate, max_tables)
    return [spec for group in sets for spec in group]


def schedule_sets(
    names: Sequence[str],
    seats: int,
    rounds: int,
    seed: int,
    fingerprint: str,
    candidate: str | None = None,
    max_tables: int = 200,
) -> Iterator[list[MatchSpec]]:
    """The schedule's duplicate sets in its canonical order, each drawn when asked for (the
    tables are listed first): what the next sets are costs those sets' digests only."""
    salt = digest("design", seed, fingerprint)
    tables = rounds_of_tables(names, seats, rounds, max_tables, salt, candidate)
    position = 0
    for rnd, group in enumerate(tables):
        again: Counter[Table] = Counter()
        for table in sorted(group):
            # a design may hold a table twice in a round: the second is a set of its own
            parts: tuple[object, ...] = ("set", seed, fingerprint, "\x1e".join(table), rnd)
            parts += (again[table],) if again[table] else ()
            again[table] += 1
            specs = duplicate_set(digest(*parts)[:16], table, rnd, position)
            position += len(specs)
            yield specs


def duplicate_set(set_id: str, table: Table, rnd: int, position: int) -> list[MatchSpec]:
    """One duplicate set: the deal of ``set_id`` once per cyclic rotation of the seats, from a
    seat order shuffled by digest; the first match at ``position`` in the schedule."""
    deal = int(digest("deal", set_id)[:15], 16)
    base = sorted(table, key=lambda n: digest("seat", set_id, n))
    seats = len(table)
    return [
        MatchSpec(
            position + rotation,
            digest("match", set_id, rotation)[:16],
            set_id,
            rnd,
            table,
            rotation,
            deal,
            tuple(base[(i + rotation) % seats] for i in range(seats)),
        )
        for rotation in range(seats)
    ]
