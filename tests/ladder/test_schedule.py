"""The schedule: counts, determinism, seat balance, duplicate sets, stable identities."""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict

import pytest

from arena.ladder.schedule import build_schedule

NAMES = ["ada", "bob", "cy", "dee", "eve"]
SIX = [*NAMES, "fay"]


def schedule(names: list[str], seats: int = 3, rounds: int = 2, **kw: object) -> list:
    return build_schedule(names, seats, rounds, seed=11, fingerprint="f", **kw)


@pytest.mark.parametrize(("n", "seats", "rounds"), [(2, 2, 1), (4, 3, 2), (5, 3, 3), (6, 6, 2)])
def test_round_robin_counts(n: int, seats: int, rounds: int) -> None:
    specs = schedule(SIX[:n], seats, rounds)
    assert len(specs) == math.comb(n, seats) * seats * rounds
    assert len({s.match_id for s in specs}) == len(specs)
    assert [s.position for s in specs] == list(range(len(specs)))


def test_gauntlet_counts_and_candidate_everywhere() -> None:
    specs = schedule(NAMES, seats=3, rounds=2, candidate="cy")
    assert len(specs) == math.comb(4, 2) * 3 * 2
    assert all("cy" in s.bots for s in specs)


def test_same_input_same_schedule_whatever_the_bot_order() -> None:
    shuffled = NAMES[:]
    random.Random(3).shuffle(shuffled)
    assert schedule(NAMES) == schedule(shuffled)
    assert schedule(NAMES) != build_schedule(NAMES, 3, 2, seed=12, fingerprint="f")
    assert schedule(NAMES) != build_schedule(NAMES, 3, 2, seed=11, fingerprint="g")


def test_order_is_round_then_table_then_rotation() -> None:
    keys = [(s.round, s.table, s.rotation) for s in schedule(NAMES)]
    assert keys == sorted(keys)


@pytest.mark.parametrize("candidate", [None, "bob"])
def test_every_bot_sits_in_every_seat_equally_often(candidate: str | None) -> None:
    seats = Counter(
        (b, seat) for s in schedule(NAMES, candidate=candidate) for seat, b in enumerate(s.bots)
    )
    for name in NAMES:
        counts = {seats[name, seat] for seat in range(3)}
        assert len(counts) == 1 and counts != {0}


def test_duplicate_sets_share_a_seed_and_rotate_the_table() -> None:
    sets = defaultdict(list)
    for spec in schedule(NAMES):
        sets[spec.set_id].append(spec)
    seeds = set()
    for group in sets.values():
        assert len(group) == 3
        assert len({s.seed for s in group}) == 1
        assert len({s.round for s in group}) == 1
        assert sorted(s.rotation for s in group) == [0, 1, 2]
        first = group[0].bots
        for spec in group:
            assert sorted(spec.bots) == list(spec.table)
            r = spec.rotation
            assert spec.bots == tuple(first[(i + r) % 3] for i in range(3))
        seeds.add(group[0].seed)
    assert len(seeds) == len(sets)  # every set its own deal


def test_adding_a_bot_keeps_every_existing_match() -> None:
    before = schedule(NAMES[:4])
    after = schedule(NAMES)
    old = {(s.match_id, s.set_id, s.seed, s.bots) for s in before}
    new = {(s.match_id, s.set_id, s.seed, s.bots) for s in after}
    assert old <= new
    assert all("eve" in bots for *_, bots in new - old)


def test_subset_schedule_draws_new_tables_each_round() -> None:
    pool = [f"b{i}" for i in range(8)]
    specs = build_schedule(pool, 4, 3, seed=1, fingerprint="f", max_tables=6)
    assert len(specs) == 6 * 4 * 3
    rounds = [{s.table for s in specs if s.round == r} for r in range(3)]
    assert rounds[0] != rounds[1]
