"""The table's intervals and ``=`` marks take the complete duplicate sets in schedule order,
whatever order they complete in: the same ladder played on 1 worker and on 2 (where sets
complete in another order) shows exactly the same table and comparisons. Real bots, the real
referee and ``arena ladder run`` / ``show`` / ``compare``. (With these close random bots the
table's intervals hardly move with the order of 9 sets; the pairs' comparisons, over 3 sets
each, do: a tally that took the sets in the order they completed fails here.)

How sets complete out of order on 2 workers (``arena.ladder.executor.Dispatcher``): with 2
seats, worker 0 plays the first rotation of every set (lane 0) and worker 1 the second (lane 1),
each its own lane in schedule order, so sets complete in schedule order until a worker with
nothing of its own left takes from the front of the other's queue. Here the second match of the
first set is slow (bot r1 sleeps at each decision of that match only, about 13 s in all), so
worker 0 plays its whole lane (short matches, milliseconds each once its bots are kept) while
worker 1 is still in it, then takes worker 1's next sets, whose first matches it stored
already: they complete before the first set. Measured with the machine loaded 4- and 8-fold on
2 cores, the first such set completed 1.3 s and 3.6 s after the start. A run in which worker 0
is slower still, several-fold, is played once more. On 1 worker r1 does not sleep: one worker
completes the sets in schedule order whatever their timing, and a sleep changes no result."""

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

BOTS = 4  # 2 seats, 3 rounds: 18 sets of 2 matches, each bot in 9
SLEEP_S = 1.5  # at each of r1's decisions (about 9) in the slow match on 2 workers
LIMITS = "[limits]\nmove_ms = 5000"  # a sleep overshot on a busy machine is still far inside
SLOW = """
class Slow(RandomBot):
    def __init__(self, seed: int, match: str) -> None:
        super().__init__(seed)
        self.match = match

    def on_welcome(self, welcome: Welcome) -> None:
        super().on_welcome(welcome)
        self.slow = welcome.match == self.match

    def choose(self, turn: Turn) -> int:
        if self.slow:
            time.sleep(%r)
        return super().choose(turn)


if __name__ == "__main__" and "--slow" in sys.argv:
    run(Slow(int(sys.argv[sys.argv.index("--seed") + 1]), sys.argv[-1]))
    sys.exit()
"""
ATTEMPTS = 2  # 2-worker runs, until one completes its sets out of schedule order


def _played(folder: Path, workers: int) -> Path:
    """The ladder played on ``workers``; on more than one, bot r1 slow in one match."""
    path = write_ladder(folder, bots=BOTS, seats=2, rounds=3, extra=LIMITS, own_bot_copy=True)
    if workers > 1:
        _slow_down(path)
    out = arena("ladder", "run", str(path), "--workers", str(workers), "--quiet", timeout=600)
    assert out.returncode == 0, out.stderr
    return path


def _slow_down(path: Path) -> None:
    """Make bot r1 of the ladder at ``path`` sleep at each decision of the second match of the
    first set (lane 1: worker 1's on 2 workers), and nowhere else."""
    specs = ladder.schedule_of(load_ladder(path))
    slow = specs[1]
    assert slow.set_id == specs[0].set_id and slow.rotation == 1 and "r1" in slow.bots
    script = path.parent / "bots" / "random_bot.py"
    text = script.read_text().replace("\nif __name__", SLOW % SLEEP_S + "\nif __name__", 1)
    text = text.replace("annotations\n", "annotations\n\nimport sys\nimport time\n", 1)
    script.write_text(text)
    path.write_text(path.read_text().replace("--seed 1", f"--seed 1 --slow {slow.match_id}"))


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
