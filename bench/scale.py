"""Scale: what each command-line read and the report cost as a ladder's history grows (issue 28).

One ladder (``BOTS`` bots, ``SEATS`` seats, made-up results as the tests' ``SyntheticExecutor``
makes them) is stored through the real store, ``Store.record_match`` one match at a time with
its ratings kept in the same transaction, on a SQLite file and on a throwaway PostgreSQL server
(``tests/postgres.py``) run without fsync (``durable=False``): what is timed here is reads,
which durability does not change, and a durable fill of 100k matches took about 30 min here.
At each size (by default 1k, 10k and 100k matches: the store grows from one to the next) every
read is run as a user runs it, ``arena ladder ...`` in its own process, and timed: wall seconds
and the CPU seconds of the process (the machine is shared: CPU is the steadier figure), with
the machine's load average (1 min) just after. The floor, measured in the same run, is
``arena --help``: a process that starts and reads nothing. The table shows each read beside
its 1k figure and the goals: every read at 100k within 2x of its time at 1k, the report under
a minute.

    .venv/bin/python bench/scale.py [--sizes 1000 10000 100000] [--backend sqlite postgresql]
                                    [--results bench/results/scale.json]

Prints a table and saves bench/results/scale.json. (The server's pages are measured by the
pages part, ``bench/scale_pages.py``.)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.jobs import MatchJob
from arena.ladder.loop import register
from arena.ladder.run import schedule_for, schedule_of
from arena.ladder.store import Store
from tests.ladder.helpers import ARENA, ROOT, SyntheticExecutor, write_ladder
from tests.postgres import PostgresServer

RESULTS = Path(__file__).parent / "results" / "scale.json"
BOTS, SEATS = 8, 2  # 28 tables x 2 rotations: 56 matches a round
SIZES = (1_000, 10_000, 100_000)
GROWTH_GOAL = 2.0  # a read at the largest size, against the same read at the smallest
REPORT_GOAL_S = 60.0
KEY = bytes(32)  # any deal key: the results are made up


def reads(path: Path, out: Path) -> dict[str, list[str]]:
    """Each command-line read, as a user types it."""
    file = str(path)
    return {
        "arena --help (floor)": ["--help"],
        "ladder show": ["ladder", "show", file],
        "ladder h2h": ["ladder", "h2h", file],
        "ladder seats": ["ladder", "seats", file],
        "ladder compare": ["ladder", "compare", file, "r1", "r2"],
        "ladder report": ["ladder", "report", file, "--out", str(out)],
    }


def ladder(folder: Path, database: str | None, matches: int) -> LadderConfig:
    rounds = math.ceil(matches / (math.comb(BOTS, SEATS) * SEATS))
    extra = f"database = {json.dumps(database)}" if database else ""
    path = write_ladder(folder, bots=BOTS, seats=SEATS, rounds=rounds, extra=extra)
    return load_ladder(path)


def fill(cfg: LadderConfig, start: int, stop: int) -> float:
    """Store the schedule's matches ``start`` to ``stop`` through ``Store.record_match`` (the
    ratings kept in each match's transaction); the seconds it took."""
    store = Store.create(cfg.database, cfg.game.id)
    began = time.perf_counter()
    try:
        register(cfg, store)
        schedule_for(cfg).attach(store)
        for spec in schedule_of(cfg)[start:stop]:
            store.record_match(spec, SyntheticExecutor._play(MatchJob.of(cfg, spec, KEY)), 1)
    finally:
        store.close()
    return time.perf_counter() - began


def timed(args: list[str]) -> tuple[float, float]:
    """Run ``arena ARGS``: wall seconds and the child's CPU seconds (user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run([ARENA, *args], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"arena {' '.join(args)}: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(cfg: LadderConfig, folder: Path, size: int, backend: str) -> list[dict[str, Any]]:
    rows = []
    for name, args in reads(cfg.path, folder / f"report-{size}").items():
        wall, cpu = timed(args)
        rows.append({"read": name, "backend": backend, "matches": size,
                     "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
                     "load": round(os.getloadavg()[0], 2)})  # fmt: skip
        print(f"  {backend} {size:>7} {name:<22} {wall:7.2f} s wall {cpu:7.2f} s CPU", flush=True)
    return rows


def backend_rows(
    backend: str,
    folder: Path,
    location: str | None,
    sizes: list[int],
    rows: list[dict],
    save: Callable[[], None],
) -> None:
    """Grow one store through ``sizes``, adding every read's figures at each to ``rows``
    (saved after each size, so a run stopped at a large size keeps what it measured)."""
    cfg = ladder(folder, location, max(sizes))
    stored = 0
    for size in sizes:
        seconds = fill(cfg, stored, size)
        print(f"{backend}: stored {size - stored} matches in {seconds:.1f} s", flush=True)
        stored = size
        rows += measure(cfg, folder, size, backend)
        save()


def growth(rows: list[dict[str, Any]], sizes: list[int]) -> list[list[Any]]:
    """The table: each read's CPU seconds per size, its growth against the smallest size and
    whether it meets its goal ("not measured" without a figure at the largest size)."""
    table = []
    for (read, backend), group in _grouped(rows).items():
        cpu = {r["matches"]: r["cpu_s"] for r in group}
        first, last = cpu.get(sizes[0]), cpu.get(sizes[-1])
        ratio = last / first if first and last is not None else None
        if read == "ladder report":
            goal, met = f"< {REPORT_GOAL_S:.0f} s", last is not None and last < REPORT_GOAL_S
        else:
            goal, met = f"<= {GROWTH_GOAL:g}x", ratio is not None and ratio <= GROWTH_GOAL
        table.append([read, backend, *(cpu.get(s, "-") for s in sizes),
                      f"{ratio:.1f}x" if ratio else "-", goal,
                      "not measured" if last is None else "yes" if met else "NO"])  # fmt: skip
    return table


def _grouped(rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault((r["read"], r["backend"]), []).append(r)
    return out


@contextlib.contextmanager
def postgres(wanted: bool) -> Iterator[Callable[[], str] | None]:
    if not wanted:
        yield None
        return
    try:
        server = PostgresServer(durable=False)  # reads only: see the docstring
    except FileNotFoundError as exc:
        print(f"postgresql: not measured ({exc})")
        yield None
        return
    try:
        yield server.start().database
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--backend", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--results", type=Path, default=RESULTS, help="JSON file to write.")
    parser.add_argument(
        "--merge", action="store_true",
        help="Keep the rows of other backends already in the results file (one backend a run).",
    )  # fmt: skip
    args = parser.parse_args()
    sizes = sorted(args.sizes)
    rows: list[dict[str, Any]] = []
    if args.merge and args.results.exists():
        rows = [r for r in json.loads(args.results.read_text())["rows"]
                if r["backend"] not in args.backend]  # fmt: skip

    def save(found: list[dict[str, Any]]) -> None:
        args.results.write_text(json.dumps({
            "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                        "load": round(os.getloadavg()[0], 2)},
            "postgresql": "a throwaway server without fsync (reads are timed, not writes)",
            "bots": BOTS, "seats": SEATS, "sizes": sorted({r["matches"] for r in found}),
            "rows": found,
        }, indent=2) + "\n")  # fmt: skip

    with tempfile.TemporaryDirectory() as tmp, postgres("postgresql" in args.backend) as pg:
        for backend in args.backend:
            location = pg() if backend == "postgresql" and pg is not None else None
            if backend == "sqlite" or location is not None:
                backend_rows(backend, Path(tmp) / backend, location, sizes, rows,
                             lambda: save(rows))  # fmt: skip
    sizes = sorted({r["matches"] for r in rows})  # with the rows merged from another run
    headers = ["read", "backend", *(f"{s:,} CPU s" for s in sizes), "growth", "goal", "met"]
    print(tabulate(growth(rows, sizes), headers=headers, tablefmt="simple"))
    save(rows)
    print(f"saved {args.results}")


if __name__ == "__main__":
    main()
