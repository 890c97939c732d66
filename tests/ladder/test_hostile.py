"""A ladder with a hostile bot in it completes: that bot is forfeited, every other result stands."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from .helpers import ROOT, arena, show_json, toml_value, write_ladder

BOMB = ROOT / "tests" / "bots" / "hostile" / "memory_bomb.py"


def test_memory_bomb_is_forfeited_in_every_match_and_the_rest_stands(tmp_path: Path) -> None:
    path = write_ladder(tmp_path, bots=2, rounds=1)
    bomb = f"python {BOMB} heap"
    path.write_text(
        path.read_text()
        + f'[[bots]]\nname = "bomb"\ncommand = {toml_value(bomb)}\n'
        + "limits = { memory_mb = 128 }\n"
    )
    out = arena("ladder", "run", str(path), "--workers", "2", "--quiet")
    assert out.returncode == 0, out.stderr
    with sqlite3.connect(path.with_suffix(".db")) as conn:
        rows = conn.execute(
            "SELECT bot, status, peak_memory_kb, sandbox, incidents FROM results"
        ).fetchall()
    assert len(rows) == 2 * 6  # 3 tables x 2 rotations, 2 seats each
    for bot, status, peak_kb, level, incidents in rows:
        if bot == "bomb":
            assert status == "oom"
            assert json.loads(incidents)[-1]["code"] == "oom"
            if level != "rlimits":  # measured by the memory cgroup
                assert 100 << 10 <= peak_kb <= 129 << 10
        else:
            assert status == "ok"
    table = {row["bot"]: row for row in show_json(path)["bots"]}
    assert table["bomb"]["faults"] == {"oom": 4}
    assert table["bomb"]["conservative"] < min(
        table["r1"]["conservative"], table["r2"]["conservative"]
    )
