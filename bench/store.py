"""What storing a match costs: the ladder store on SQLite and on PostgreSQL, each beside a floor.

Measured in one run, on a SQLite file and on a throwaway PostgreSQL server started here with its
normal durability (fsync on, synchronous commit: the tests' fsync=off would flatter it):

* write: ``Store.record_match`` (one transaction: the match row and its seats) for every match of
  a ladder's schedule (6 bots, 3 seats, about 2000 matches; results made up as the tests'
  ``SyntheticExecutor`` makes them), against its floor: the same rows inserted with the bare
  driver (sqlite3, psycopg), the same SQL, one transaction per match, the same durability (WAL
  and synchronous=NORMAL as the store sets them; the same server). The floor is given the rows
  ready made (read back from a scratch store), so the ratio is the store's own overhead: turning
  a result into rows, and its connection layer. Store and floor alternate every ``CHUNK``
  matches, so load drifts hit both alike; the median transaction is reported;
* read: ``Store.match_rows()`` and the standings (``records``: the stored matches in schedule
  order; then ``rate`` and ``ladder_stats``) of those matches, the best of ``REPEAT``; on
  PostgreSQL as a ratio to the SQLite figure;
* a whole ``arena ladder run`` of the tests' tiny ladder (18 short matches of random bots), once
  per backend: wall time, PostgreSQL against SQLite.

SQLite in WAL mode with synchronous=NORMAL does not sync the disk at each commit (a power cut may
lose the last matches, a crash of the runner none); PostgreSQL flushes its WAL at every commit.
Beside them the table shows what one sync costs on this disk (an 8 kB write and its fdatasync)
and one round trip to the server (``SELECT 1``): a match stored on PostgreSQL is four round
trips (BEGIN, the match row, its seats in one pipeline, COMMIT) and a WAL flush.

    .venv/bin/python bench/store.py [--matches N]

Without PostgreSQL's binaries (Debian's postgresql, ``scripts/install-system-deps``) it says so
and measures SQLite only. Prints a table and saves bench/results/store.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests' PostgreSQL server and ladder helpers

from arena.ladder.config import LadderConfig, load_ladder  # noqa: E402
from arena.ladder.database import Location  # noqa: E402
from arena.ladder.jobs import MatchJob  # noqa: E402
from arena.ladder.loop import register  # noqa: E402
from arena.ladder.ratings import rate  # noqa: E402
from arena.ladder.run import records, schedule_of  # noqa: E402
from arena.ladder.schedule import MatchSpec  # noqa: E402
from arena.ladder.store import Store  # noqa: E402
from arena.ladder.tally import ladder_stats  # noqa: E402
from arena.sandbox.workdirs import filesystem  # noqa: E402
from tests.ladder.helpers import SyntheticExecutor, arena, write_ladder  # noqa: E402
from tests.postgres import PostgresServer  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "store.json"
BOTS, SEATS = 6, 3  # 20 tables x 3 rotations: 60 matches a round
CHUNK = 50  # matches stored by one side before the other takes its turn
REPEAT = 3  # reads timed, best kept
GAME = "happy_mochi"
COMPARED = ("record_match, median", "match_rows", "records", "standings")  # PG / SQLite
SERVER_SETTINGS = ("fsync", "synchronous_commit", "full_page_writes", "wal_sync_method")

Played = list[tuple[MatchSpec, dict[str, Any]]]
Rows = list[tuple[tuple[Any, ...], list[tuple[Any, ...]]]]  # (match row, its seat rows)


def load() -> float:
    return round(os.getloadavg()[0], 2)


def ladder(folder: Path, rounds: int, database: str | None) -> LadderConfig:
    extra = f"database = {json.dumps(database)}" if database else ""
    return load_ladder(write_ladder(folder, bots=BOTS, seats=SEATS, rounds=rounds, extra=extra))


def played(cfg: LadderConfig) -> Played:
    """Every match of the schedule with a made-up result, as a worker would return it."""
    key = bytes(32)  # any deal key: the results are made up
    return [
        (spec, SyntheticExecutor._play(MatchJob.of(cfg, spec, key))) for spec in schedule_of(cfg)
    ]


def stored_rows(cfg: LadderConfig, matches: Played, path: Path) -> Rows:
    """The rows the store writes for ``matches``, read back from a scratch SQLite store, in
    the order they were stored: what the floor inserts."""
    store = Store.create(path, GAME)
    register(cfg, store)
    for spec, result in matches:
        store.record_match(spec, result, 1)
    seats: dict[str, list[tuple[Any, ...]]] = {}
    for r in store.conn.execute("SELECT * FROM results ORDER BY match_id, seat"):
        seats.setdefault(r["match_id"], []).append(tuple(r))
    rows = [(tuple(m), seats[m["id"]]) for m in store.conn.execute("SELECT * FROM matches")]
    store.close()
    return rows


class BareSqlite:
    """The floor on SQLite: sqlite3 with the store's settings and SQL, nothing else."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON"):
            self.conn.execute(f"PRAGMA {pragma}")

    def insert(self, match: tuple[Any, ...], seats: list[tuple[Any, ...]]) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute(insert_sql("matches", len(match), "?"), match)
        self.conn.executemany(insert_sql("results", len(seats[0]), "?"), seats)
        self.conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()


class BarePostgres:
    """The floor on PostgreSQL: psycopg in autocommit mode with explicit transactions, as the
    store's connection, and the same SQL."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)

    def insert(self, match: tuple[Any, ...], seats: list[tuple[Any, ...]]) -> None:
        self.conn.execute("BEGIN")
        self.conn.execute(insert_sql("matches", len(match), "%s"), match)
        with self.conn.cursor() as cursor:
            cursor.executemany(insert_sql("results", len(seats[0]), "%s"), seats)
        self.conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()


def insert_sql(table: str, columns: int, mark: str) -> str:
    """The store's statement (``INSERT INTO t VALUES (...)``) with the driver's placeholder."""
    return f"INSERT INTO {table} VALUES ({', '.join([mark] * columns)})"


def timed(fn: Callable[..., Any], *args: Any) -> float:
    started = time.perf_counter()
    fn(*args)
    return time.perf_counter() - started


def writes(
    cfg: LadderConfig, matches: Played, rows: Rows, floor_at: Location, folder: Path
) -> dict[str, list[float]]:
    """Seconds per match of each side: ``Store.record_match`` into the ladder's database
    (``store``), the bare driver into ``floor_at``, an empty ladder database with the same bots
    (``floor``), a disk sync in ``folder`` (``sync``) and on PostgreSQL a round trip (``trip``)."""
    empty = Store.create(floor_at, GAME)
    register(cfg, empty)
    empty.close()
    with contextlib.ExitStack() as stack:
        store = Store.create(cfg.database, GAME)
        stack.callback(store.close)
        register(cfg, store)
        floor = BareSqlite(floor_at) if isinstance(floor_at, Path) else BarePostgres(floor_at)
        stack.callback(floor.close)
        sync = stack.enter_context(disk_sync(folder))
        sides: dict[str, Callable[[int], Any]] = {
            "store": lambda i: store.record_match(*matches[i], 1),
            "floor": lambda i: floor.insert(*rows[i]),
            "sync": lambda i: sync(),
        }
        if isinstance(floor, BarePostgres):
            sides["trip"] = lambda i: floor.conn.execute("SELECT 1")
        return alternate(sides, len(matches))


def alternate(sides: Mapping[str, Callable[[int], Any]], count: int) -> dict[str, list[float]]:
    """Seconds of each call ``side(i)``, i from 0 to ``count`` - 1, the sides taking turns
    every CHUNK calls so that load drifts hit them alike."""
    spent: dict[str, list[float]] = {name: [] for name in sides}
    for start in range(0, count, CHUNK):
        for name, side in sides.items():
            for i in range(start, min(start + CHUNK, count)):
                spent[name].append(timed(side, i))
    return spent


@contextlib.contextmanager
def disk_sync(folder: Path) -> Iterator[Callable[[], None]]:
    """An 8 kB write and its fdatasync in ``folder``: the least a durable commit costs on this
    disk (PostgreSQL flushes its WAL so at every commit)."""
    block = bytes(8192)
    fd = os.open(folder / "sync-probe", os.O_WRONLY | os.O_CREAT, 0o600)

    def sync() -> None:
        os.pwrite(fd, block, 0)
        os.fdatasync(fd)

    try:
        yield sync
    finally:
        os.close(fd)


def reads(cfgs: Sequence[LadderConfig]) -> list[dict[str, float]]:
    """Seconds, per ladder, to read every stored match and to compute the standings: best of
    REPEAT, the ladders taking turns so that load drifts hit them alike."""
    stores = [Store.read(cfg.database, GAME) for cfg in cfgs]
    try:
        work = [reading(cfg, store) for cfg, store in zip(cfgs, stores, strict=True)]
        best = [dict.fromkeys(w, math.inf) for w in work]
        for _ in range(REPEAT):
            for fastest, fns in zip(best, work, strict=True):
                for what, fn in fns.items():
                    fastest[what] = min(fastest[what], timed(fn))
        return best
    finally:
        for store in stores:
            store.close()


def reading(cfg: LadderConfig, store: Store) -> dict[str, Callable[[], Any]]:
    """What is timed on a ladder's stored matches: listing them, and the standings (the
    matches in schedule order, then the ratings and the table, which read nothing more)."""
    _, stored = records(cfg, store)
    return {
        "match_rows": store.match_rows,
        "records": lambda: records(cfg, store),
        "standings": lambda: (
            rate(stored, cfg.rating, cfg.bot_names),
            ladder_stats(stored, cfg.rating, cfg.bot_names),
        ),
    }


def ladder_run(folder: Path, database: str | None) -> float:
    """Wall seconds of ``arena ladder run`` of the tests' tiny ladder (real bots)."""
    path = write_ladder(folder, extra=f"database = {json.dumps(database)}" if database else "")
    started = time.perf_counter()
    out = arena("ladder", "run", str(path), "-q")
    wall = time.perf_counter() - started
    if out.returncode != 0:
        raise SystemExit(f"arena ladder run {path} failed:\n{out.stderr}")
    return wall


def row(
    figure: str, backend: str, value: float, unit: str, floor: str = "", floor_value: float = 0.0
) -> dict[str, Any]:
    """One line of the table; ``ratio`` is value / floor_value when there is a floor."""
    return {
        "figure": figure,
        "backend": backend,
        "value": round(value, 3),
        "unit": unit,
        "floor": floor,
        "floor_value": round(floor_value, 3) if floor else None,
        "ratio": round(value / floor_value, 2) if floor else None,
        "load_1min": load(),
    }


def backend_rows(
    name: str, spent: dict[str, list[float]], read: dict[str, float], matches: int
) -> list[dict[str, Any]]:
    driver = "sqlite3" if name == "sqlite" else "psycopg"
    ms = {side: [t * 1e3 for t in times] for side, times in spent.items()}
    rows = [
        row("record_match, median per match", name, statistics.median(ms["store"]), "ms",
            f"bare {driver}, same SQL, one transaction", statistics.median(ms["floor"])),
        row("record_match, mean per match", name, statistics.fmean(ms["store"]), "ms",
            f"bare {driver}, mean", statistics.fmean(ms["floor"])),
        row("8 kB write + fdatasync, median, in turn", name, statistics.median(ms["sync"]), "ms"),
    ]  # fmt: skip
    if "trip" in ms:
        rows.append(row("round trip (SELECT 1), median", name, statistics.median(ms["trip"]), "ms"))
    return rows + [
        row(f"{what} of {matches} stored matches", name, read[what] * 1e3, "ms")
        for what in ("match_rows", "records", "standings")
    ]


def against_sqlite(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """PostgreSQL's median write and reads again, as ratios to SQLite's."""
    lite = {r["figure"]: r["value"] for r in rows if r["backend"] == "sqlite"}
    return [
        row(r["figure"], "postgresql", r["value"], r["unit"], "the same on SQLite",
            lite[r["figure"]])
        for r in rows
        if r["backend"] == "postgresql" and r["figure"].startswith(COMPARED)
    ]  # fmt: skip


def start_postgres() -> PostgresServer | None:
    """A started throwaway server with normal durability, or None (said why) when there is
    no PostgreSQL here."""
    try:
        server = PostgresServer(durable=True)
    except FileNotFoundError as exc:
        print(f"{exc}: scripts/install-system-deps installs it; measuring SQLite only")
        return None
    try:
        return server.start()
    except BaseException:
        server.stop()
        raise


def server_settings(url: str) -> dict[str, str]:
    """What the server's durability is, as it says itself."""
    import psycopg

    with psycopg.connect(url) as conn:
        settings = {s: conn.execute(f"SHOW {s}").fetchone()[0] for s in SERVER_SETTINGS}
        return settings | {"version": conn.execute("SHOW server_version").fetchone()[0]}


def measure(
    folder: Path, rounds: int, server: PostgresServer | None
) -> tuple[list[dict[str, Any]], int]:
    """Every row of the table (PostgreSQL's when ``server``), and the matches stored."""
    lite = ladder(folder / "sqlite", rounds, None)
    matches = played(lite)
    rows = stored_rows(lite, matches, folder / "scratch.db")
    backends: list[tuple[str, LadderConfig, Location]] = [("sqlite", lite, folder / "floor.db")]
    if server is not None:
        cfg = ladder(folder / "postgresql", rounds, server.database("store"))
        backends.append(("postgresql", cfg, server.database("floor")))
    timings = []
    for name, cfg, floor_at in backends:
        timings.append(writes(cfg, matches, rows, floor_at, folder))
        print(f"{name}: {len(matches)} matches stored by each side", flush=True)
    table = []
    for (name, _, _), spent, read in zip(
        backends, timings, reads([cfg for _, cfg, _ in backends]), strict=True
    ):
        table += backend_rows(name, spent, read, len(matches))
    table += against_sqlite(table)
    run = "arena ladder run, tiny ladder (18 matches)"
    lite_wall = ladder_run(folder / "run-sqlite", None)
    table.append(row(run, "sqlite", lite_wall, "s"))
    if server is not None:
        wall = ladder_run(folder / "run-postgresql", server.database("run"))
        table.append(row(run, "postgresql", wall, "s", "the same on SQLite", lite_wall))
    return table, len(matches)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000, help="matches stored (whole rounds)")
    args = parser.parse_args()
    rounds = max(1, math.ceil(args.matches / (math.comb(BOTS, SEATS) * SEATS)))
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-store-"))
    server = start_postgres()
    try:
        settings = server_settings(f"{server.url}/postgres") if server else {}
        if settings:
            print("PostgreSQL " + ", ".join(f"{k}={v}" for k, v in settings.items()), flush=True)
        table, matches = measure(folder, rounds, server)
    finally:
        if server is not None:
            server.stop()
        fs = filesystem(folder)
        shutil.rmtree(folder, ignore_errors=True)
    shown = [
        [r["figure"], r["backend"], f"{r['value']} {r['unit']}", r["floor"],
         "" if r["floor_value"] is None else r["floor_value"],
         "" if r["ratio"] is None else r["ratio"], r["load_1min"]]
        for r in table
    ]  # fmt: skip
    headers = ["figure", "backend", "value", "floor", "floor value", "ratio", "load"]
    print(tabulate(shown, headers=headers))
    durability = ", ".join(f"{k}={v}" for k, v in settings.items())
    server_said = (
        f"{durability} (its normal durability, not the tests' fsync=off)"
        if settings
        else "not measured (no server here)"
    )
    print(f"SQLite: WAL, synchronous=NORMAL (no sync at commit). PostgreSQL: {server_said}.")
    print(f"Files on {fs}.")
    meta = {
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "postgresql": settings,
        "filesystem": fs,
        "cpus": os.cpu_count(),
        "matches": matches,
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "load_1min": load(),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"meta": meta, "rows": table}, indent=2) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
