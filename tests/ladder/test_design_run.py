"""A real ladder that plays a balanced design: `arena ladder run` plays exactly the design's
matches with real bots, a run stopped half-way and resumed ends with the same table, and a
file too large for a full round is refused by the command before anything is stored."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.ladder import run as ladder
from arena.ladder.config import load_ladder
from arena.ladder.executor import LocalExecutor

from .helpers import arena, show_json, stored_count, write_ladder

DESIGN = "max_tables = 4"  # 5 bots at 3 seats have 10 tables a round: a design of 4 a round
SCHEDULED = 4 * 3 * 2  # 4 tables x 3 rotations x 2 rounds


def stored_ids(path: Path) -> list[str]:
    with sqlite3.connect(path.with_suffix(".db")) as conn:
        return [r[0] for r in conn.execute("SELECT id FROM matches")]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = write_ladder(tmp_path_factory.mktemp("design"), bots=5, seats=3, rounds=2,
                        extra=DESIGN)  # fmt: skip
    out = arena("ladder", "run", str(path), "--workers", "2", "--quiet")
    assert out.returncode == 0, out.stderr
    return {"path": path, "table": show_json(path)}


def test_arena_ladder_run_plays_exactly_the_design(reference: dict) -> None:
    path = reference["path"]
    cfg = load_ladder(path)
    specs = ladder.schedule_of(cfg)
    assert len(specs) == SCHEDULED
    ids = stored_ids(path)
    assert sorted(ids) == sorted(s.match_id for s in specs)
    table = reference["table"]
    assert table["matches_stored"] == table["matches_scheduled"] == SCHEDULED
    with sqlite3.connect(path.with_suffix(".db")) as conn:
        seated = dict(conn.execute("SELECT bot, COUNT(*) FROM results GROUP BY bot").fetchall())
    # 8 tables of 3 among 5 bots: 24 seats, every bot 4 or 5 tables, 3 matches each
    assert set(seated) == {f"r{i}" for i in range(1, 6)}
    assert {n // 3 for n in seated.values()} <= {4, 5}


def test_a_design_stopped_half_way_resumes_to_the_same_table(
    reference: dict, tmp_path: Path
) -> None:
    path = write_ladder(tmp_path, bots=5, seats=3, rounds=2, extra=DESIGN)
    done: list[int] = []
    with LocalExecutor(2) as executor:
        summary = ladder.run_ladder(
            load_ladder(path),
            executor,
            progress=lambda d, _total, _faults, _pace: done.append(d),
            stop=lambda: bool(done) and done[-1] >= 6,
        )
    assert summary.scheduled == SCHEDULED
    assert 6 <= stored_count(path.with_suffix(".db")) < SCHEDULED, "stopped half-way"
    out = arena("ladder", "run", str(path), "--workers", "2", "--quiet")
    assert out.returncode == 0, out.stderr
    ids = stored_ids(path)
    assert len(ids) == len(set(ids)) == SCHEDULED
    assert sorted(ids) == sorted(stored_ids(reference["path"]))
    assert show_json(path) == reference["table"]


def test_the_command_refuses_a_full_round_too_large(tmp_path: Path) -> None:
    path = write_ladder(tmp_path, bots=128, seats=3, rounds=1)
    out = arena("ladder", "run", str(path), "--quiet")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.splitlines() == [
        f"arena: error: {path}: max_tables: missing: 128 bots at 3 seats make 341,376 tables a "
        "round, too many to play every one; set max_tables to the tables a round plays from a "
        "balanced design (2,710 let every pair meet about once a round)"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.db.key", "tiny.toml"]
