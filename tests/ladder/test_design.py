"""Balanced designs: bot and pair balance over many sizes, the same design in every process,
rounds as prefixes of one design, unique identities, and the refusal of a file whose full
round is too large to build when it names no ``max_tables``."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tomllib
from collections import Counter
from itertools import combinations, islice
from pathlib import Path

import pytest

from arena.ladder.config import LadderConfigError, load_ladder
from arena.ladder.design import design
from arena.ladder.schedule import FULL_ROUND_LIMIT, build_schedule

from .helpers import write_ladder

# (bots, seats, tables): small fields, a Fano-sized one, and fields up to 128 bots at 2 to 6
# seats with designs from under one meeting per pair to over ten
SIZES = [
    (5, 2, 7), (5, 3, 6), (5, 4, 3), (6, 4, 11), (7, 3, 7), (7, 3, 70), (9, 3, 20),
    (10, 4, 100), (12, 5, 60), (16, 6, 50), (20, 3, 300), (32, 4, 200), (50, 3, 1000),
    (64, 5, 400), (100, 2, 3000), (128, 3, 3000), (128, 4, 2000), (128, 6, 1000),
]  # fmt: skip
PAIR_SPREAD = 3  # the most two pairs' meetings differ by in any of SIZES (README: "The schedule")


def names(n: int) -> list[str]:
    return [f"bot{i:03}" for i in range(n)]


@pytest.mark.parametrize(("n", "seats", "length"), SIZES)
def test_bots_within_one_at_every_table_and_pairs_near_even(
    n: int, seats: int, length: int
) -> None:
    field = names(n)
    played = Counter({name: 0 for name in field})
    met: Counter[tuple[str, ...]] = Counter()
    for table in islice(design(field, seats, "salt"), length):
        assert len(set(table)) == seats and list(table) == sorted(table)
        played.update(table)
        met.update(combinations(table, 2))
        assert max(played.values()) - min(played.values()) <= 1  # after every table
    meetings = [met[pair] for pair in combinations(field, 2)]
    assert max(meetings) - min(meetings) <= PAIR_SPREAD
    mean = length * math.comb(seats, 2) / math.comb(n, 2)
    assert min(meetings) >= math.floor(mean) - PAIR_SPREAD and max(meetings) <= mean + PAIR_SPREAD


def test_no_pair_is_left_apart_once_each_could_have_met_twice() -> None:
    """40 bots at 4 seats: 130 tables can seat every pair once (780 pairs, 6 a table); over
    260, every pair has met, and none more than three times."""
    field = names(40)
    met = Counter(p for t in islice(design(field, 4, "s"), 2 * 130) for p in combinations(t, 2))
    assert min(met[p] for p in combinations(field, 2)) >= 1
    assert max(met.values()) <= 3


SCRIPT = """
import json, sys
from arena.ladder.schedule import build_schedule
names = [f"b{i}" for i in range(40)]
specs = build_schedule(names, 4, 2, seed=5, fingerprint="f", max_tables=150)
print(json.dumps([[s.match_id, s.seed, list(s.bots)] for s in specs]))
"""


def test_the_same_design_in_every_process_whatever_the_hash_seed() -> None:
    runs = []
    for hash_seed in ("1", "2"):
        env = {"PYTHONHASHSEED": hash_seed, "PATH": ""}
        out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                             env=env, check=True)  # fmt: skip
        runs.append(json.loads(out.stdout))
    here = build_schedule([f"b{i}" for i in range(40)], 4, 2, 5, "f", None, 150)
    assert runs[0] == runs[1] == [[s.match_id, s.seed, list(s.bots)] for s in here]


def test_a_design_schedule_more_rounds_only_adds_tables() -> None:
    field = names(30)
    two = build_schedule(field, 3, 2, seed=1, fingerprint="f", max_tables=40)
    three = build_schedule(list(reversed(field)), 3, 3, seed=1, fingerprint="f", max_tables=40)
    assert len(two) == 40 * 3 * 2 and len(three) == 40 * 3 * 3
    assert three[: len(two)] == two
    assert build_schedule(field, 3, 2, seed=2, fingerprint="f", max_tables=40) != two


def test_every_round_of_a_design_keeps_the_bots_within_one() -> None:
    field = names(11)
    specs = build_schedule(field, 4, 5, seed=3, fingerprint="f", max_tables=7)
    played: Counter[str] = Counter()
    for rnd in range(5):
        played.update(b for s in specs if s.round == rnd and s.rotation == 0 for b in s.table)
        assert set(played) == set(field) and max(played.values()) - min(played.values()) <= 1


def test_a_table_drawn_twice_in_a_round_is_two_sets() -> None:
    """5 bots at 4 seats have 5 tables; rounds of 4 of them run across the design's cycles, so
    a round may hold a table twice: each time a set (and a deal) of its own."""
    specs = build_schedule(names(5), 4, 4, seed=0, fingerprint="f", max_tables=4)
    per_round = Counter((s.round, s.table) for s in specs if s.rotation == 0)
    assert max(per_round.values()) == 2
    assert len({s.set_id for s in specs}) == len({s.seed for s in specs}) == 16
    assert len({s.match_id for s in specs}) == len(specs) == 16 * 4


def test_a_gauntlet_design_seats_the_candidate_everywhere() -> None:
    field = names(60)
    specs = build_schedule(field, 3, 2, seed=1, fingerprint="f", candidate="bot007",
                           max_tables=100)  # fmt: skip
    tables = [s.table for s in specs if s.rotation == 0]
    assert len(tables) == 200 and all("bot007" in t for t in tables)
    faced = Counter(b for t in tables for b in t if b != "bot007")
    assert len(faced) == 59 and max(faced.values()) - min(faced.values()) <= 1


def big_ladder(folder: Path, bots: int, seats: int, extra: str = "") -> Path:
    return write_ladder(folder, bots=bots, seats=seats, rounds=1, extra=extra)


def test_a_full_round_too_large_is_refused_naming_max_tables(tmp_path: Path) -> None:
    path = big_ladder(tmp_path, 40, 4)  # 91,390 tables a round
    with pytest.raises(LadderConfigError) as caught:
        load_ladder(path, check_bots=False)
    assert str(caught.value) == (
        f"{path}: max_tables: missing: 40 bots at 4 seats make 91,390 tables a round, too many "
        "to play every one; set max_tables to the tables a round plays from a balanced design "
        "(130 let every pair meet about once a round)"
    )
    assert math.comb(40, 4) > FULL_ROUND_LIMIT
    chosen = big_ladder(tmp_path / "chosen", 40, 4, "max_tables = 260")
    assert load_ladder(chosen, check_bots=False).max_tables == 260
    small = big_ladder(tmp_path / "small", 20, 4)  # 4,845: the default design of 200
    assert load_ladder(small, check_bots=False).max_tables == 200


def test_a_competition_whose_uploads_outgrow_a_full_round_plays_the_default_design(
    tmp_path: Path,
) -> None:
    """A competition's ladder (its tables handed over, bots added by uploads) is never refused
    for its size: an upload must not stop the server's ladder."""
    path = big_ladder(tmp_path, 40, 4)
    data = tomllib.loads(path.read_text())
    assert load_ladder(path, False, data).max_tables == 200
    follow = big_ladder(tmp_path / "follow", 40, 4, "[follow]")
    assert load_ladder(follow, check_bots=False).follow is not None
