"""The table's intervals and ``=`` marks take the complete duplicate sets in schedule order,
whatever order they complete in: the same ladder played on 1 worker and on 2 (where sets
complete in another order) shows exactly the same table and comparisons. Real bots, the real
referee and ``arena ladder run`` / ``show`` / ``compare``."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

from arena.ladder import run as ladder
from arena.ladder.config import load_ladder

from .helpers import arena, show_json, write_ladder

BOTS = 4  # 3 seats, 3 rounds: 12 sets of 3 matches, each bot in 9
SLOW = """
class Slow(RandomBot):
    def on_welcome(self, welcome: Welcome) -> None:
        super().on_welcome(welcome)
        self.first = welcome.seat == 0

    def choose(self, turn: Turn) -> int:
        if self.first:
            time.sleep(0.05)  # far inside the move's second
        return super().choose(turn)


if __name__ == "__main__" and "--slow" in sys.argv:
    run(Slow(int(sys.argv[sys.argv.index("--seed") + 1])))
    sys.exit()
"""
ATTEMPTS = 3  # 2-worker runs, until one completes its sets out of schedule order


def _played(folder: Path, workers: int) -> Path:
    """The ladder played on ``workers``; its bot r1 a little slower at each decision in the
    first seat, so one match of each of its sets ends after the other: on 2 workers, the
    worker that played the other goes on to the next sets, which complete first."""
    path = write_ladder(folder, bots=BOTS, seats=3, rounds=3, own_bot_copy=True)
    script = folder / "bots" / "random_bot.py"
    text = script.read_text().replace("\nif __name__", SLOW + "\nif __name__", 1)
    text = text.replace("annotations\n", "annotations\n\nimport sys\nimport time\n", 1)
    script.write_text(text)
    path.write_text(path.read_text().replace("--seed 1", "--seed 1 --slow"))
    out = arena("ladder", "run", str(path), "--workers", str(workers), "--quiet", timeout=600)
    assert out.returncode == 0, out.stderr
    return path


def _completed(path: Path) -> dict[str, list[str]]:
    """Each bot's sets in the order they completed (their last match stored)."""
    with sqlite3.connect(path.with_suffix(".db")) as conn:
        rows = conn.execute("SELECT set_id, seats FROM matches ORDER BY rowid").fetchall()
    stored = Counter(set_id for set_id, _ in rows)
    seen: Counter[str] = Counter()
    order: dict[str, list[str]] = {}
    for set_id, seats in rows:
        seen[set_id] += 1
        if seen[set_id] == stored[set_id]:
            for bot in sorted(json.loads(seats)):
                order.setdefault(bot, []).append(set_id)
    return order


def _shown(path: Path) -> dict[str, Any]:
    """What ``show`` and ``compare`` print of every pair of bots."""
    compared = {}
    for a, b in combinations([f"r{i}" for i in range(1, BOTS + 1)], 2):
        out = arena("ladder", "compare", str(path), a, b, "--format", "json")
        assert out.returncode == 0, out.stderr
        compared[f"{a} {b}"] = json.loads(out.stdout)
    return {"show": show_json(path), "compare": compared}


def test_one_and_two_workers_show_the_same_intervals_and_marks(tmp_path: Path) -> None:
    one = _played(tmp_path / "one", 1)
    specs = ladder.schedule_of(load_ladder(one))
    scheduled = {bot: list(dict.fromkeys(s.set_id for s in specs if bot in s.bots))
                 for bot in sorted({b for s in specs for b in s.bots})}  # fmt: skip
    assert _completed(one) == scheduled
    for attempt in range(ATTEMPTS):
        two = _played(tmp_path / f"two-{attempt}", 2)
        assert {b: sorted(s) for b, s in _completed(two).items()} == {
            b: sorted(s) for b, s in scheduled.items()
        }
        if _completed(two) != scheduled:
            break  # a bot's sets completed in another order: its interval would differ
    else:
        raise AssertionError(f"{ATTEMPTS} runs on 2 workers completed each bot's sets in order")
    assert _shown(two) == _shown(one)
