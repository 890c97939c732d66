"""Tiny real ladders for the tests: short Happy Mochi matches between seeded random bots."""

from __future__ import annotations

import concurrent.futures as cf
import json
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.ladder.deal_key import key_path
from arena.ladder.executor import Executor
from arena.ladder.jobs import MatchJob, Returned
from arena.ladder.store import Store
from arena.match.faults import FaultPolicy
from arena.match.results import Limits
from arena.sandbox import SandboxLimits

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")
RANDOM = ROOT / "sample_bots" / "python" / "random_bot.py"
SHORT = {"max_rounds": 1, "max_turns_per_round": 10}
# The tests' deal key (tiny.db.key beside every tiny ladder's database, see share_key), so copies
# of one ladder in different folders deal alike, as copies sharing a key file would: their
# tables can then be compared, and made-up results (SyntheticExecutor) are the same every run.
TEST_KEY = "5e" * 32


def toml_value(value: object) -> str:
    return json.dumps(value) if not isinstance(value, bool) else str(value).lower()


def write_ladder(
    folder: Path,
    bots: int = 3,
    seats: int = 2,
    rounds: int = 3,
    extra: str = "",
    own_bot_copy: bool = False,
    key: bool = True,
) -> Path:
    """``folder/tiny.toml``: ``bots`` random bots, short matches; returns its path.

    With ``own_bot_copy`` the bots run a copy of random_bot.py inside ``folder``, so a test can
    find every bot process of this ladder by its command line. With ``key`` its database (by
    default ``tiny.db``) deals from ``TEST_KEY``; without, it makes its own on its first run.
    """
    folder.mkdir(parents=True, exist_ok=True)
    if key:
        share_key(folder / "tiny.db")
    script = RANDOM
    if own_bot_copy:
        script = folder / "bots" / "random_bot.py"
        script.parent.mkdir(exist_ok=True)
        shutil.copy(RANDOM, script)
    lines = [
        'name = "tiny"',
        'game = "happy_mochi"',
        f"seats = {seats}",
        f"rounds = {rounds}",
        "seed = 7",
        extra,
        "[options]",
        *(f"{k} = {v}" for k, v in SHORT.items()),
    ]
    for i in range(1, bots + 1):
        command = f"python {script} --seed {i}"
        lines += ["[[bots]]", f'name = "r{i}"', f"command = {toml_value(command)}"]
    path = folder / "tiny.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def share_key(location: Path | str) -> None:
    """Give the database at ``location`` the tests' deal key (``TEST_KEY``) before its first
    run: a SQLite file's key file beside it, a PostgreSQL database's ``meta`` row."""
    if isinstance(location, Path):
        key_path(location).write_text(TEST_KEY + "\n")
        key_path(location).chmod(0o600)
        return
    store = Store.create(location, "happy_mochi")
    try:
        store.conn.execute("INSERT INTO meta VALUES ('deal_key', ?)", (TEST_KEY,))
    finally:
        store.close()


def arena(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARENA, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def show_json(path: Path) -> dict:
    out = arena("ladder", "show", str(path), "--format", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def stored_count(db: Path) -> int:
    """Matches stored so far (0 while the database does not exist yet)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            return conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    except sqlite3.OperationalError:  # schema not created yet
        return 0


def bare_job(match_id: str) -> MatchJob:
    """A job that only its id tells apart, for executors that play nothing."""
    return MatchJob(match_id, "happy_mochi", 1, {}, Limits(), SandboxLimits(), "rlimits",
                    FaultPolicy(), (), None, 0)  # fmt: skip


class SyntheticExecutor(Executor):
    """Plays no bot, in this process: a match's scores come from its deal (each seat's luck,
    seeded by the deal), the seated bots (greedy 30 points ahead) and noise seeded by the match
    id, so any run gives the same results. Chosen matches come back void; ``interrupt_after``
    results, it raises KeyboardInterrupt as Ctrl-C would."""

    slots = 4

    def __init__(
        self,
        void_once: set[str] | None = None,
        void_always: set[str] | None = None,
        interrupt_after: int | None = None,
    ) -> None:
        self.void_once = void_once or set()
        self.void_always = void_always or set()
        self.interrupt_after = interrupt_after
        self.results = 0

    def submit(self, jobs: list[MatchJob]) -> Any:
        future: cf.Future = cf.Future()
        future.set_result([self._result(job) for job in jobs])
        return future

    def _result(self, job: MatchJob) -> Returned:
        if job.match_id in self.void_always or job.match_id in self.void_once:
            self.void_once.discard(job.match_id)
            return Returned(None, "internal: injected referee failure")
        return Returned(self._play(job))

    @staticmethod
    def _play(job: MatchJob) -> dict[str, Any]:
        noise = random.Random(job.match_id)
        names = [b.name for b in job.bots]
        scores = [  # minus points, inside Happy Mochi's score range
            min(
                0.0,
                random.Random(f"{job.seed}/{seat}").gauss(-120, 40)
                + 30 * (name == "greedy")
                + noise.gauss(0, 8),
            )
            for seat, name in enumerate(names)
        ]
        ranks = [sum(other > score for other in scores) for score in scores]
        seats = [
            {
                "seat": seat,
                "name": name,
                "score": scores[seat],
                "rank": ranks[seat],
                "status": "ok",
                "detail": "",
                "decisions": 1,
                "time_ms": 1.0,
                "max_ms": 1.0,
                "warnings": {},
                "transport": "zmq",
                "sandbox": "test",
                "exit_code": 0,
                "signal": None,
                "bank_left_ms": 0.0,
                "cpu_ms": 1.0,
                "peak_memory_kb": None,
                "strikes": 0,
                "incidents": [],
                "log_tail": "",
            }
            for seat, name in enumerate(names)
        ]
        return {
            "game": job.game,
            "game_version": "test",
            "options": job.options,
            "outcome": {"scores": scores, "ranks": ranks},
            "decisions": 1,
            "duration_ms": 1.0,
            "worker": "test",
            "sandbox": "test",
            "replay_path": None,
            "seats": seats,
        }

    def wait(self, futures: list[Any]) -> list[Any]:
        return futures[:1]

    def outcome(self, future: Any) -> list[Returned]:
        self.results += len(future.result())
        if self.interrupt_after is not None and self.results > self.interrupt_after:
            raise KeyboardInterrupt
        return future.result()

    def close(self, abort: bool = False) -> None:
        pass
