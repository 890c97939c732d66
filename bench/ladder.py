"""Ladder throughput: matches per second with trivial bots, 1 and 2 local workers.

Trivial bots: seeded random Python bots playing Happy Mochi cut to one round of at most one
turn, so a match is mostly bot start-up, handshake and shutdown. For each worker count a fresh
ladder database is filled by :func:`arena.ladder.run.run_ladder`, and we report:

* matches per second (wall time of the whole run, rating at the end included), and over the
  second half of the run alone (``steady``: workers and their kept bots all started);
* the run's start-up: the time to the first match stored, and the wall time the run took
  beyond its matches at the steady rate (``startup_s``: starting the workers, their first
  bots and kept processes, and the end of the run, when fewer workers have work);
* the dispatcher's concurrency: the fewest jobs it kept in flight, and the share of matches
  that finished while it held fewer than its slots (``arena.ladder.executor.Concurrency``:
  it slows down while referees wait for a CPU);
* the runner's own work: building the schedule, writing results to SQLite, rating (timed in
  this process around those calls), as a share of the wall time;
* the share of wall time outside the referee: 1 - (sum of the referees' match durations /
  workers) / wall. Besides the runner's own work it holds process dispatch and idle workers;
* the CPU time per match of the runner, its workers and their bots together (``getrusage`` of
  this process and its descendants, once the workers have stopped): on a shared machine this
  moves far less with the others' load than wall time; and apart, the runner's own (this
  process, every thread), the workers' own (their processes, read from /proc just before they
  stop) and the rest, their bots' (sandbox and bot processes).

    python bench/ladder.py [--matches N]

Prints a table and saves bench/results/ladder.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import sqlite3
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tabulate import tabulate

from arena.ladder import loop, store
from arena.ladder import run as ladder
from arena.ladder.config import load_ladder
from arena.ladder.executor import Concurrency, Executor, LocalExecutor

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "ladder.json"
BOTS = 4
RANDOM_BOT = "python sample_bots/python/random_bot.py"


def ladder_file(
    folder: Path,
    rounds: int,
    settings: Sequence[str] = (),
    game: str = "happy_mochi",
    short: bool = True,
    bot: str = RANDOM_BOT,
) -> Path:
    """4 random bots, 2 seats: 6 tables x 2 rotations per round; ``settings`` are extra
    top-level lines of the ladder file; ``short``: Happy Mochi cut to one turn; ``bot`` the
    bots' command (``--seed N`` is added)."""
    lines = [
        f"game = {json.dumps(game)}",
        "seats = 2",
        f"rounds = {rounds}",
        f"root = {json.dumps(str(ROOT))}",
        *settings,
    ]
    if short:
        lines += ["[options]", "max_rounds = 1", "max_turns_per_round = 1"]
    for i in range(BOTS):
        command = f"{bot} --seed {i}"
        lines += ["[[bots]]", f'name = "r{i}"', f"command = {json.dumps(command)}"]
    path = folder / "bench.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


class Timer:
    """Accumulates the time spent in wrapped functions of the runner (outermost calls only,
    since rating rebuilds the schedule)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.depth = 0

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            self.depth += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth -= 1
                if not self.depth:
                    self.seconds += time.perf_counter() - started

        return timed


def measure(
    workers: int,
    rounds: int,
    settings: Sequence[str] = (),
    executor: Callable[[], Executor] | None = None,
    pin: bool | None = None,
    **kind: Any,
) -> dict[str, Any]:
    """Run the ladder (``kind``: :func:`ladder_file`'s keywords) on ``executor()`` (default:
    ``workers`` local worker processes, pinned as ``LocalExecutor`` does by ``pin``)."""
    timer = Timer()
    rerate, observe = loop.LadderSchedule.rerate, Concurrency.observe
    originals = (ladder.schedule_of, rerate, store.Store.record_matches)
    ladder.schedule_of = timer.wrap(ladder.schedule_of)
    loop.LadderSchedule.rerate = timer.wrap(rerate)  # type: ignore[method-assign]
    store.Store.record_matches = timer.wrap(store.Store.record_matches)
    limits: list[tuple[int, int]] = []  # (jobs in flight allowed, slots) after each match

    def observed(self: Concurrency, returned: Any) -> None:
        observe(self, returned)
        limits.append((self.limit, self.slots))

    Concurrency.observe = observed  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
            cfg = load_ladder(ladder_file(Path(tmp), rounds, settings, **kind))
            started, cpu, own = time.perf_counter(), cpu_seconds(), runner_seconds()
            stored: list[float] = []  # when each match was stored
            with executor() if executor else LocalExecutor(workers, pin) as running:
                summary = ladder.run_ladder(
                    cfg, running, progress=lambda *_: stored.append(time.perf_counter())
                )
                workers_s = workers_seconds(running)
            wall = time.perf_counter() - started
            cpu, own = cpu_seconds() - cpu, runner_seconds() - own
            with sqlite3.connect(cfg.database) as conn:
                referee_ms = conn.execute("SELECT SUM(duration_ms) FROM matches").fetchone()[0]
    finally:
        ladder.schedule_of, loop.LadderSchedule.rerate, store.Store.record_matches = originals
        Concurrency.observe = observe  # type: ignore[method-assign]
    steady = steady_rate(stored[1:])
    return {
        "workers": workers,
        "matches": summary.played,
        "wall_s": round(wall, 3),
        "matches_per_s": round(summary.played / wall, 2),
        "steady_matches_per_s": round(steady, 2),
        "first_stored_s": round(stored[1] - started, 3),
        "startup_s": round(wall - summary.played / steady, 3),
        "fewest_in_flight": min((limit for limit, _ in limits), default=None),
        "throttled_share": round(sum(a < b for a, b in limits) / max(1, len(limits)), 3),
        "referee_ms_per_match": round(referee_ms / summary.played, 1),
        "runner_work_s": round(timer.seconds, 4),
        "runner_work_share": round(timer.seconds / wall, 4),
        "outside_referee_share": round(1 - referee_ms / 1000 / workers / wall, 4),
        "cpu_ms_per_match": round(cpu * 1000 / summary.played, 2),
        "cpu_s": round(cpu, 3),
        "runner_cpu_s": round(own, 3),
        "workers_cpu_s": round(workers_s, 3),
        "bots_cpu_s": round(cpu - own - workers_s, 3),
    }


def steady_rate(stored: list[float]) -> float:
    """Matches per second over the second half of the run: by then every worker has started
    and so have its kept bots, so this is the rate a long ladder runs at."""
    half = stored[len(stored) // 2 :]
    return (len(half) - 1) / (half[-1] - half[0])


def runner_seconds() -> float:
    """CPU time of this process alone (every thread): the runner."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def workers_seconds(executor: Executor) -> float:
    """CPU time of the local workers' own processes so far, their bots not counted (read from
    /proc before they stop); 0 for another executor."""
    if not isinstance(executor, LocalExecutor):
        return 0.0
    ticks = 0
    for pid in executor.worker_pids():
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def cpu_seconds() -> float:
    """CPU time of this process and of every finished descendant: with local workers, once
    they are stopped, the runner, its workers and their bots."""
    own, children = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--matches", type=int, default=300, help="rounded to whole rounds of 12 (a small ladder)"
    )
    args = parser.parse_args()
    os.chdir(ROOT)
    rounds = max(1, args.matches // 12)
    runs = [measure(workers, rounds) for workers in (1, 2)]
    headers = list(runs[0])
    print(tabulate([list(r.values()) for r in runs], headers=headers))
    meta = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "bots": "random_bot.py, happy_mochi max_rounds=1 max_turns_per_round=1, 2 seats",
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"meta": meta, "results": runs}, indent=2) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
