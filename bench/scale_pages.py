"""Scale: what the server's pages cost as a competition's history grows, with its ladder
playing (issue 28). The pages part of the scale benchmark (``bench/scale.py`` times the CLI
reads and the report over the same kind of stores).

For each size (1k, 10k, 100k stored matches) and backend (a SQLite file; a throwaway
PostgreSQL server without fsync, ``durable=False``: the pages' reads are what is timed, and the
runner's matches/s there is an upper bound for a durable server): a competition of the house
bots whose store is filled through the real ladder loop and ``Store.record_match`` (one real
round of real bots, so there are replays to view, then made-up results, ``SyntheticExecutor``),
rated as the following ladder rates it (what its first run does before it plays: timed apart),
and served by a real ``arena serve`` process as a following ladder that goes on playing real
matches with real bots.
Once the server has its first standings (how long that took is shown), for ``WINDOW_S``
each: nobody asking (the runner's matches/s with no clients, its floor here), and each page in
turn under a bounded load (``CLIENTS`` clients on loopback, each asking again as soon as
answered, gzip accepted as browsers do): requests/s, p50, p99, bytes per answer, failures (no
answer within ``TIMEOUT_S``), and the runner's matches/s meanwhile; with the CPU seconds the
server (its process and the children it reaped) and PostgreSQL spent in the window, and the
machine's load average (1 min) at its end, since the machine is shared.
Goal: every page's p99 under 200 ms at 100k matches with the ladder playing.

    .venv/bin/python bench/scale_pages.py [--sizes 1000,10000] [--backends sqlite,postgresql]

Prints a table and saves bench/results/scale_pages.json, keeping the figures of the backends
and sizes not measured in this run.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import math
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests' competition files, executors and PostgreSQL server

from arena.ladder.executor import LocalExecutor  # noqa: E402
from arena.ladder.run import run_ladder, schedule_for  # noqa: E402
from arena.ladder.store import Store  # noqa: E402
from arena.web.competition import load_competition  # noqa: E402
from tests.ladder.helpers import SyntheticExecutor  # noqa: E402
from tests.postgres import PostgresServer  # noqa: E402
from tests.web.competitions import write_competition  # noqa: E402
from tests.web.servers import ARENA, free_port, until  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "scale_pages.json"
SIZES = (1_000, 10_000, 100_000)
CLIENTS = 8
WINDOW_S = float(os.environ.get("ARENA_BENCH_WINDOW_S", "15"))
TIMEOUT_S = 30.0
GOAL_P99_MS = 200.0
PAGES = ("/", "/bots/house-greedy", "/queue", "/matches/{match}", "/api/standings",
         "/api/changes")  # fmt: skip
GAME = "happy_mochi"


def pages_fill(folder: Path, matches: int, database: str | None) -> Path:
    """A competition whose store holds ``matches`` matches (one real round, then made-up
    results), written as a following ladder for the server to go on with; its file."""
    rounds = max(1, math.ceil(matches / 3))  # 3 house bots, 3 seats: 3 matches a round
    real = load_competition(write_competition(folder, house=3, rounds=1, database=database))
    cfg = real.ladder(check_bots=True)
    assert cfg is not None
    with LocalExecutor(2) as executor:
        run_ladder(cfg, executor)
    made_up = load_competition(write_competition(folder, house=3, rounds=rounds,
                                                 database=database))  # fmt: skip
    cfg = made_up.ladder(check_bots=True)
    assert cfg is not None
    run_ladder(cfg, SyntheticExecutor())
    return write_competition(folder, house=3, follow=True, database=database)


def pages_rerate(path: Path) -> float:
    """Rate the filled store as the following ladder does (its matches in storage order), as
    its first run would before playing: the pages are then measured as they are once the
    ladder plays, not during that one re-rating. Its seconds."""
    cfg = load_competition(path).ladder(check_bots=True)
    assert cfg is not None
    started = time.monotonic()
    store = Store.create(cfg.database, cfg.game.id)
    try:
        schedule_for(cfg).rerate(store)
    finally:
        store.close()
    return time.monotonic() - started


@contextlib.contextmanager
def pages_server(path: Path, log: Path) -> Iterator[tuple[str, int]]:
    """A real ``arena serve`` of ``path`` (its ladder playing); its URL and process id.
    Stopped by SIGTERM at the end (how long that takes is part of the figures)."""
    port = free_port()
    with log.open("w") as out:
        argv = [ARENA, "serve", str(path), "--port", str(port)]
        proc = subprocess.Popen(
            argv, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        until(lambda: _status(url, "/api/changes") == 200, timeout=600, what="the server")
        yield url, proc.pid
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def cpu_seconds(pid: int | None) -> float:
    """CPU seconds of process ``pid`` and its live descendants, with the children it reaped
    (0 without a process)."""
    if pid is None:
        return 0.0
    try:
        root = psutil.Process(pid)
        total = sum(root.cpu_times()[2:4])  # children_user, children_system
        for p in [root, *root.children(recursive=True)]:
            with contextlib.suppress(psutil.NoSuchProcess):
                total += sum(p.cpu_times()[:2])
        return total
    except psutil.NoSuchProcess:
        return 0.0


def _status(url: str, page: str) -> int:
    try:
        return _get(_connection(url), page)[0]
    except OSError:
        return 0


def _connection(url: str) -> http.client.HTTPConnection:
    host, port = url.removeprefix("http://").split(":")
    return http.client.HTTPConnection(host, int(port), timeout=TIMEOUT_S)


def _get(conn: http.client.HTTPConnection, page: str) -> tuple[int, int]:
    conn.request("GET", page, headers={"Accept-Encoding": "gzip"})
    response = conn.getresponse()
    return response.status, len(response.read())


def _stored(path: Path) -> int:
    """Matches stored so far (the change counter: one indexed read)."""
    competition = load_competition(path)
    store = Store.read(competition.database, GAME)
    try:
        return int(store.stored_mark()[0])
    finally:
        store.close()


def _replayed(path: Path) -> str | None:
    """A published match with a replay (of the real round), for the viewer's page."""
    competition = load_competition(path)
    store = Store.read(competition.database, GAME)
    try:
        rows = store.conn.execute("SELECT id FROM matches WHERE replay_path IS NOT NULL")
        return min((r[0] for r in rows), default=None)
    finally:
        store.close()


def pages_load(url: str, page: str, window_s: float = WINDOW_S) -> dict[str, Any]:
    """``CLIENTS`` closed-loop clients on ``page`` for ``window_s``: the figures."""
    latencies: list[float] = []
    sizes: list[int] = []
    failures = [0]
    lock = threading.Lock()
    end = time.monotonic() + window_s

    def client() -> None:
        conn = _connection(url)
        while time.monotonic() < end:
            started = time.perf_counter()
            try:
                status, size = _get(conn, page)
            except OSError:
                conn.close()
                conn = _connection(url)
                with lock:
                    failures[0] += 1
                continue
            with lock:
                if status in (200, 304):
                    latencies.append(time.perf_counter() - started)
                    sizes.append(size)
                else:
                    failures[0] += 1
        conn.close()

    started = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    cuts = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [math.nan] * 99
    return {
        "requests_per_s": len(latencies) / elapsed,
        "p50_ms": 1000 * (statistics.median(latencies) if latencies else math.nan),
        "p99_ms": 1000 * cuts[98],
        "bytes": int(statistics.median(sizes)) if sizes else 0,
        "failures": failures[0],
        "elapsed_s": elapsed,
    }


def pages_measure(
    folder: Path, size: int, backend: str, database: str | None, postgres: int | None = None
) -> dict[str, Any]:
    """Every figure of one store size on one backend (``postgres``: its server's process id,
    whose CPU seconds are counted with the server's)."""
    started = time.monotonic()
    path = pages_fill(folder, size, database)
    filled_s = time.monotonic() - started
    rerate_s = pages_rerate(path)
    match = _replayed(path)
    out: dict[str, Any] = {"size": size, "backend": backend, "fill_s": filled_s,
                           "rerate_s": rerate_s, "pages": {}}  # fmt: skip
    with pages_server(path, folder / "serve.log") as (url, pid):
        t0 = time.monotonic()  # the standings' first computation (the server starts it)
        # the standings page: answered from the standings computed before while they are
        # computed again (``/api/standings`` waits for them as the database holds them now)
        until(lambda: _status(url, "/") == 200, timeout=1800, what="standings")
        out["first_standings_s"] = time.monotonic() - t0
        before, t0 = _stored(path), time.monotonic()
        cpu = cpu_seconds(pid), cpu_seconds(postgres)
        time.sleep(WINDOW_S)
        out["idle_matches_per_s"] = (_stored(path) - before) / (time.monotonic() - t0)
        out["idle"] = _spent(pid, postgres, cpu)
        for page in PAGES:
            if "{match}" in page and match is None:
                continue
            shown = page.format(match=match)
            before, t0 = _stored(path), time.monotonic()
            cpu = cpu_seconds(pid), cpu_seconds(postgres)
            figures = pages_load(url, shown)
            figures["matches_per_s"] = (_stored(path) - before) / (time.monotonic() - t0)
            figures.update(_spent(pid, postgres, cpu))
            out["pages"][page] = figures
            print(f"  {backend} {size}: {page} {figures}", flush=True)
        stop = time.monotonic()
    out["sigterm_s"] = time.monotonic() - stop
    return out


def _spent(pid: int, postgres: int | None, before: tuple[float, float]) -> dict[str, float]:
    """The CPU seconds the server and PostgreSQL spent since ``before``, and the load now."""
    return {
        "server_cpu_s": round(cpu_seconds(pid) - before[0], 2),
        "postgres_cpu_s": round(cpu_seconds(postgres) - before[1], 2),
        "load": round(os.getloadavg()[0], 2),
    }


def pages_table(results: list[dict[str, Any]]) -> str:
    rows = []
    for r in results:
        first = (f"first standings {r['first_standings_s']:.0f} s, SIGTERM "
                 f"{r['sigterm_s']:.0f} s")  # fmt: skip
        rows.append([r["backend"], r["size"], "(no clients)", "", "", "", "", first,
                     f"{r['idle_matches_per_s']:.2f}", _cpu(r.get("idle", {}))])  # fmt: skip
        for page, f in r["pages"].items():
            goal = "ok" if f["p99_ms"] < GOAL_P99_MS and not f["failures"] else "MISSED"
            rows.append([r["backend"], r["size"], page, f"{f['requests_per_s']:.1f}",
                         f"{f['p50_ms']:.0f}", f"{f['p99_ms']:.0f}", f["bytes"],
                         f"{f['failures']} {goal}", f"{f['matches_per_s']:.2f}",
                         _cpu(f)])  # fmt: skip
    headers = ["backend", "matches", "page", "req/s", "p50 ms", "p99 ms", "bytes",
               f"failures, p99<{GOAL_P99_MS:.0f}ms", "runner matches/s",
               "CPU s server+pg, load"]  # fmt: skip
    return tabulate(rows, headers=headers)


def _cpu(figures: dict[str, Any]) -> str:
    """A window's CPU seconds and load ("" for figures saved before they were kept)."""
    if "load" not in figures:
        return ""
    return f"{figures['server_cpu_s']:.1f}+{figures['postgres_cpu_s']:.1f}, {figures['load']:.1f}"


def pages_saved() -> list[dict[str, Any]]:
    """The figures already in bench/results/scale_pages.json."""
    return json.loads(RESULTS.read_text())["measured"] if RESULTS.exists() else []


def pages_save(results: list[dict[str, Any]]) -> None:
    """bench/results/scale_pages.json."""
    saved = {
        "clients": CLIENTS,
        "window_s": WINDOW_S,
        "goal_p99_ms": GOAL_P99_MS,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "postgresql": "a throwaway server without fsync (the pages' reads are timed)",
        "measured": results,
    }
    RESULTS.write_text(json.dumps(saved, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    backends = args.backends.split(",")
    measured = {(b, s) for b in backends for s in sizes}
    results = [r for r in pages_saved() if (r["backend"], r["size"]) not in measured]
    postgres = PostgresServer(durable=False).start() if "postgresql" in backends else None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for backend in backends:
                for size in sizes:
                    database = (
                        postgres.database("scale") if postgres and backend != "sqlite" else None
                    )
                    folder = Path(tmp) / f"{backend}-{size}"
                    pid = postgres.proc.pid if postgres and postgres.proc else None
                    results.append(pages_measure(folder, size, backend, database, pid))
                    results.sort(key=lambda r: (r["backend"], r["size"]))
                    pages_save(results)
    finally:
        if postgres is not None:
            postgres.stop()
    print(pages_table(results))


if __name__ == "__main__":
    main()
