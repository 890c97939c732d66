"""Throughput near the physical limit: every figure of issue 17 beside its floor, in one table.

Each figure is measured in the same run as its floor, one right after the other, so that the
ratio holds on a loaded machine where absolute times do not; the 1-minute load average is
printed beside each row. The figures:

* decision: the referee's round trip (``turn`` sent to ``action`` read, as its replay records
  it) in full Happy Mochi matches of random Python bots, against a raw ROUTER/DEALER round trip
  of the same turn bytes to a peer that unpacks them with plain msgpack and answers an action;
* match: the wall time of a short match (2 seats, one turn) with fresh bot processes, against
  the bare cost of starting the same bots at the same sandbox level: launch, their hello read
  on a raw socket, a fatal ``error`` so that they leave, their exit;
* reuse: matches per second of a ladder of short matches between random bots with reusable
  processes, against the same ladder with reuse turned off (a fresh process per seat and match);
* workers: 2 local workers against 1, and a Dask cluster of 2 local workers against 2 local
  workers, on that ladder (short matches go out in batches: ``arena.ladder.executor``); over
  the whole run (each worker starts, and so do its kept bots) and over its second half alone
  (``steady``), with the start-up beside it. Their floor: plain processes playing the same
  matches back to back with their bots started (``run_batch``: no runner, no hand-off), 2
  against 1, which is what this machine, shared with whatever else runs on it, gives 2
  workers now; and the same with each match's folder on tmpfs (making and removing it on a
  disk's journal is work that 2 processes contend on).

    python bench/throughput.py [--quick]

Prints the table and saves bench/results/throughput.json. ``make bench`` runs it.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import sys
import tempfile
import time
import unittest.mock as mock
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ladder as ladder_bench
import transport
import zmq
from tabulate import tabulate

from arena import sandbox
from arena.games import load_game
from arena.ladder.config import load_ladder
from arena.ladder.executor import DaskExecutor, kept_bots, run_batch
from arena.ladder.jobs import MatchJob
from arena.ladder.run import schedule_of
from arena.match.bots import BotSpec, parse_bot
from arena.match.referee import play_match
from protocol import codec, messages

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "throughput.json"
SHORT = {"max_rounds": 1, "max_turns_per_round": 1}  # a match of two decisions
REUSE_OFF = ["reuse = false"]
SHM = "/dev/shm"  # a tmpfs on Linux: mkdir and rmdir never touch a disk journal
WARM_UP = 24  # matches a bare worker plays before it is timed: every kept bot is started


def load() -> float:
    return round(os.getloadavg()[0], 2)


def row(
    what: str, figure: float, floor_what: str, floor: float, unit: str, goal: str
) -> dict[str, Any]:
    """One line of the table: ``ratio`` is figure / floor, ``goal`` the bound it must meet
    (none: a figure shown to explain another)."""
    ratio = figure / floor
    bound = float(goal[2:] or "nan")
    met = ratio <= bound if goal.startswith("<=") else ratio >= bound if goal else None
    return {
        "figure": what,
        "value": round(figure, 1),
        "floor": floor_what,
        "floor_value": round(floor, 1),
        "unit": unit,
        "ratio": round(ratio, 2),
        "goal": goal,
        "met": met,
        "load_1min": load(),
    }


def report(rows: list[dict[str, Any]], path: Path, **meta: Any) -> None:
    """Print ``rows`` as a table and save them in ``path`` with what they were measured on."""
    shown = [
        [r["figure"], f"{r['value']} {r['unit']}", r["floor"], r["floor_value"], r["ratio"],
         r["goal"], {True: "yes", False: "NO", None: ""}[r["met"]], r["load_1min"]]
        for r in rows
    ]  # fmt: skip
    headers = ["figure", "value", "floor", "floor value", "ratio", "goal", "met", "load"]
    print(tabulate(shown, headers=headers))
    meta = {
        "python": platform.python_version(),
        "zmq": zmq.zmq_version(),
        "cpus": os.cpu_count(),
        "sandbox": sandbox.choose(None),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        **meta,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    print(f"saved {path}")


RANDOM_BOT = ROOT / "sample_bots" / "python" / "random_bot.py"


def sandboxed_round_trips(
    payload: bytes, count: int, level: str, sdk: bool, peers: int = 1
) -> list[float]:
    """Raw round trips to peers started like bots, in the sandbox at ``level``, each on its own
    socket and asked in turn: the raw msgpack peer, or (``sdk``) the random bot on the Python
    SDK, welcomed once."""
    with sandbox.match_directory() as tmp:
        ctx = zmq.Context()
        links, procs = [], []
        for i in range(peers):
            router = ctx.socket(zmq.ROUTER)
            router.setsockopt(zmq.LINGER, 0)
            path = Path(tmp) / f"raw{i}.sock"
            endpoint = f"ipc://{path}"
            router.bind(endpoint)
            argv = [str(RANDOM_BOT)] if sdk else [str(transport.PEER), endpoint, "msgpack"]
            env = {"ARENA_ENDPOINT": endpoint, "ARENA_TOKEN": "bench", "ARENA_TRANSPORT": "zmq"}
            procs.append(
                sandbox.launch(
                    [sys.executable, *argv],
                    cwd=ROOT,
                    env=sandbox.bot_environment(env),
                    log_path=Path(tmp) / f"raw{i}.log",
                    socket_path=path,
                    level=level,
                )
            )
            identity, _ = router.recv_multipart()
            if sdk:
                welcome = messages.welcome("bench", i, peers, {}, {})
                router.send_multipart([identity, codec.encode(welcome)])
            links.append((router, identity))
        turns = iter(range(1 << 62))

        def round_trip() -> None:
            router, identity = links[next(turns) % peers]
            router.send_multipart([identity, payload])
            router.recv_multipart()

        times = transport.timed(count, round_trip)
        for proc in procs:
            proc.kill()
        for router, _ in links:
            router.close()
        ctx.term()
    return times


def decisions(round_trips: int, matches: int) -> list[dict[str, Any]]:
    """The referee against the raw floor with its peer in the bots' sandbox (what the referee
    could reach with sandboxed bots); what the sandbox and the SDK cost per round trip."""
    payload, level = codec.encode(transport.sample_turn()), sandbox.choose(None)
    bare = transport.raw_zmq_round_trips("msgpack", payload, round_trips)
    boxed = sandboxed_round_trips(payload, round_trips, level, sdk=False)
    sdk = sandboxed_round_trips(payload, round_trips, level, sdk=True)
    rotated = sandboxed_round_trips(payload, round_trips, level, sdk=True, peers=3)
    trips, _ = transport.referee_decisions("zmq", matches)
    return [
        row(
            f"referee round trip per decision (zmq, {level})",
            statistics.median(trips),
            f"raw ROUTER/DEALER, peer ({level}) unpacks with plain msgpack",
            statistics.median(boxed),
            "us",
            "<= 1.5",
        ),
        row(
            f"raw round trip, peer in the sandbox ({level})",
            statistics.median(boxed),
            "the same, peer not sandboxed",
            statistics.median(bare),
            "us",
            "",
        ),
        row(
            f"raw round trip, peer: the random bot on the SDK ({level})",
            statistics.median(sdk),
            f"raw, peer ({level}) unpacks with plain msgpack",
            statistics.median(boxed),
            "us",
            "",
        ),
        row(
            f"raw round trip, 3 SDK random bots ({level}) asked in turn, as in the match",
            statistics.median(rotated),
            "the same, 1 bot",
            statistics.median(sdk),
            "us",
            "",
        ),
    ]


def short_bots() -> list[BotSpec]:
    return [
        parse_bot(f"r{i}=python sample_bots/python/random_bot.py --seed {i}", ROOT)
        for i in range(2)
    ]


def bare_start(bots: list[BotSpec], level: str) -> float:
    """Seconds to start ``bots`` in the sandbox, read their hello and see them leave."""
    started = time.perf_counter()
    with sandbox.match_directory() as tmp:
        ctx = zmq.Context()
        routers, procs = [], []
        for i, bot in enumerate(bots):
            router = ctx.socket(zmq.ROUTER)
            router.setsockopt(zmq.LINGER, 0)
            path = Path(tmp) / f"seat{i}.sock"
            router.bind(f"ipc://{path}")
            env = {
                "ARENA_ENDPOINT": f"ipc://{path}",
                "ARENA_TRANSPORT": "zmq",
                "ARENA_TOKEN": "bench",
                "ARENA_BOT_NAME": bot.name,
                "ARENA_SEAT": str(i),
            }
            procs.append(
                sandbox.launch(
                    bot.argv(),
                    cwd=bot.cwd,
                    env=sandbox.bot_environment(env),
                    log_path=Path(tmp) / f"seat{i}.log",
                    socket_path=path,
                    level=level,
                )
            )
            routers.append(router)
        leave = codec.encode(messages.error("internal", "bench: leave", fatal=True))
        for router in routers:
            identity, _hello = router.recv_multipart()
            router.send_multipart([identity, leave])
        for proc in procs:
            proc.popen.wait()
            proc.kill()
        for router in routers:
            router.close()
        ctx.term()
    return time.perf_counter() - started


def match_start(matches: int) -> dict[str, Any]:
    """Alternate bare starts and matches, so that load drifts hit both alike."""
    game, bots, level = load_game("happy_mochi"), short_bots(), sandbox.choose(None)
    bare, played = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(matches):
            bare.append(bare_start(bots, level))
            started = time.perf_counter()
            result = play_match(game, bots, seed, SHORT, replay_path=Path(tmp) / f"{seed}.json")
            played.append(time.perf_counter() - started)
            assert result.void is None and all(s.status == "ok" for s in result.seats), result
    return row(
        f"match with fresh processes, 2 seats, 2 decisions ({level})",
        statistics.median(played) * 1000,
        f"bare start of the same 2 bots ({level}): launch, hello, leave",
        statistics.median(bare) * 1000,
        "ms",
        "<= 1.2",
    )


def ladder_run(
    workers: int, rounds: int, settings: list[str], executor: Any = None
) -> dict[str, Any]:
    return ladder_bench.measure(workers, rounds, settings, executor)


def _bare_worker(jobs: list[dict[str, Any]], ready: Any, ends: Any) -> None:
    """In a plain process: start the bots, wait for the others, play the rest back to back."""
    run_batch(jobs[:WARM_UP])
    ready.wait()
    started = time.perf_counter()
    run_batch(jobs[WARM_UP:])
    ends.put((started, time.perf_counter(), len(jobs) - WARM_UP))
    kept_bots().close()


def bare_workers(count: int, rounds: int, tmpdir: str | None = None) -> float:
    """Matches per second of ``count`` plain processes, each playing the reuse ladder's matches
    back to back with its bots started, at the same time: no runner, no hand-off, no store.
    ``tmpdir``: where they make each match's folder (``TMPDIR``), instead of the default."""
    spawn = multiprocessing.get_context("spawn")
    where = {"TMPDIR": tmpdir} if tmpdir else {}
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp,
        mock.patch.dict(os.environ, where),
    ):
        cfg = load_ladder(ladder_bench.ladder_file(Path(tmp), rounds))
        key = bytes(32)  # any deal key: only the time is measured
        jobs = [MatchJob.of(cfg, spec, key).as_dict() for spec in schedule_of(cfg)]
        ready, ends = spawn.Barrier(count), spawn.Queue()
        workers = [
            spawn.Process(target=_bare_worker, args=(jobs, ready, ends)) for _ in range(count)
        ]
        for worker in workers:
            worker.start()
        spans = [ends.get() for _ in workers]
        for worker in workers:
            worker.join()
    played = sum(n for _, _, n in spans)
    return played / (max(end for _, end, _ in spans) - min(start for start, _, _ in spans))


def start_up_ms(run: dict[str, Any]) -> float:
    """What a ladder run took beyond its matches at the steady rate: starting the workers and
    their kept bots, and rating at the end."""
    return 1000 * (
        run["matches"] / run["matches_per_s"] - run["matches"] / run["steady_matches_per_s"]
    )


def dask_cluster(workers: int) -> Callable[[], DaskExecutor]:
    """An executor factory over a fresh local Dask cluster (closed by the returned object)."""
    from dask.distributed import LocalCluster

    cluster = LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
    )

    def make() -> DaskExecutor:
        return DaskExecutor(cluster.scheduler_address)

    make.cluster = cluster  # type: ignore[attr-defined]
    return make


def ladders(fresh_rounds: int, reuse_rounds: int) -> list[dict[str, Any]]:
    """Reuse against fresh processes, then the reuse ladder on 2 local workers and on Dask.

    Without reuse every match costs the same, so a short ladder gives the rate; with reuse the
    first match of each process pays its start (4 bots x 2 rotations per worker), so its ladder
    is long enough for that to be amortised, as in real use.
    """
    fresh = ladder_run(1, fresh_rounds, REUSE_OFF)["matches_per_s"]
    fresh_two = ladder_run(2, fresh_rounds, REUSE_OFF)["matches_per_s"]
    shm_two, shm_one = (bare_workers(n, reuse_rounds, SHM) for n in (2, 1))
    bare_two = bare_workers(2, reuse_rounds)
    bare_one = bare_workers(1, reuse_rounds)
    first = ladder_run(1, reuse_rounds, [])
    one, steady_one = first["matches_per_s"], first["steady_matches_per_s"]
    second = ladder_run(2, reuse_rounds, [])
    two, steady_two = second["matches_per_s"], second["steady_matches_per_s"]
    make = dask_cluster(2)
    try:
        on_dask = ladder_run(2, reuse_rounds, [], make)
    finally:
        make.cluster.close()  # type: ignore[attr-defined]
    per_s = "matches/s"
    # What 2 cores allow: all the CPU one match takes (runner, worker, bots) on each core.
    cores = 2000 / first["cpu_ms_per_match"]
    return [
        row("ladder of short matches, reusable processes, 1 worker", one,
            "the same ladder with reuse off (a fresh process per seat and match)", fresh,
            per_s, ">= 10"),
        row("the same ladder with reuse, 2 local workers", two, "1 local worker", one, per_s,
            ">= 1.7"),
        row("the same ladder, second half (steady: workers and bots started), 2 local workers",
            steady_two, "the same, 1 local worker", steady_one, per_s, ""),
        row("the same ladder, start-up (whole run - its matches at the steady rate), 2 local "
            "workers", start_up_ms(second), "the same, 1 local worker", start_up_ms(first), "ms",
            ""),
        row("2 bare processes playing the ladder's matches back to back, bots started",
            bare_two, "1 bare process", bare_one, per_s, ""),
        row(f"2 bare processes as above, each match's folder on tmpfs (TMPDIR={SHM})", shm_two,
            "1 bare process, the same", shm_one, per_s, ""),
        row("1 local worker, steady (runner, store, batched hand-off)", steady_one,
            "1 bare process", bare_one, per_s, ""),
        row(f"what 2 whole cores allow: 2 / CPU per match ({first['cpu_ms_per_match']} ms)",
            cores, "1 local worker", one, per_s, ""),
        row("the ladder with reuse off, 2 local workers", fresh_two, "1 local worker", fresh,
            per_s, ""),
        row("the same ladder with reuse, Dask cluster of 2 local workers",
            on_dask["matches_per_s"], "2 local workers", two, per_s, ">= 0.9"),
        row("the same ladder, second half (steady), Dask cluster of 2 local workers",
            on_dask["steady_matches_per_s"], "the same, 2 local workers", steady_two, per_s, ""),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke test)")
    args = parser.parse_args()
    os.chdir(ROOT)
    scale = 1 if args.quick else 4
    rows = [
        *decisions(round_trips=500 * scale, matches=scale),
        match_start(matches=5 * scale),
        *ladders(fresh_rounds=scale // 2 + 1, reuse_rounds=12 * scale),
    ]
    report(rows, RESULTS, quick=args.quick)


if __name__ == "__main__":
    main()
