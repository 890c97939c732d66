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

When a round would hold more tables than ``max_tables``, a balanced subset is drawn instead
(see :func:`balanced_tables`): each round, from seeded shuffles of the bots, so every bot
plays as many tables as any other, give or take one.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

Table = tuple[str, ...]


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
    mac = hmac.new(key, f"arena deal\x1f{deal}".encode(), hashlib.sha256).digest()
    return int.from_bytes(mac[:16], "big")


def balanced_tables(pool: Sequence[str], size: int, limit: int, salt: str) -> list[Table]:
    """Every combination of ``size`` bots from ``pool``, or ``limit`` of them when more.

    The subset is built from passes: each pass orders the bots by a digest of (salt, pass,
    name) and cuts that order into tables; the few bots left at the end of a pass open the
    next pass's first table. Each bot thus plays once per pass, so table counts per bot differ
    by at most one (two in the rare case where a drawn table repeats one already drawn and is
    skipped). Pairs meet about equally often because every pass is a fresh shuffle.
    """
    names = sorted(pool)
    if math.comb(len(names), size) <= limit:
        return list(combinations(names, size))
    chosen: dict[Table, None] = {}
    carry: list[str] = []
    for number in range(limit * size + len(names)):
        rest = sorted(names, key=lambda n: digest(salt, number, n))
        fill = [n for n in rest if n not in carry][: size - len(carry)]
        groups = [carry + fill]
        rest = [n for n in rest if n not in fill]
        whole = len(rest) - len(rest) % size
        groups += [rest[i : i + size] for i in range(0, whole, size)]
        carry = rest[whole:]
        for group in groups:
            chosen.setdefault(tuple(sorted(group)))
            if len(chosen) == limit:
                return list(chosen)
    return list(chosen)


def round_tables(
    names: Sequence[str], seats: int, limit: int, salt: str, candidate: str | None
) -> list[Table]:
    """The tables of one round: all (or a balanced subset of) combinations, or a gauntlet's."""
    if candidate is None:
        return balanced_tables(names, seats, limit, salt)
    field = [n for n in names if n != candidate]
    return [
        tuple(sorted((candidate, *group)))
        for group in balanced_tables(field, seats - 1, limit, salt)
    ]


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
    specs: list[MatchSpec] = []
    for rnd in range(rounds):
        salt = digest("subset", seed, fingerprint, rnd)
        for table in sorted(round_tables(names, seats, max_tables, salt, candidate)):
            set_id = digest("set", seed, fingerprint, "\x1e".join(table), rnd)[:16]
            specs += duplicate_set(set_id, table, rnd, len(specs))
    return specs


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
