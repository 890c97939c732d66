"""The decision loop: wall time per decision with the referee's work between decisions included,
beside fastchess's figure measured the same way and beside the raw pipe and ZeroMQ floors.

Every figure is a whole run divided by what it played, so nothing between two decisions is left
out (building and encoding the turn, reading and checking the answer, applying it, the decisions
applied without asking, welcome and game_over):

* Arena: full Happy Mochi matches between two C++ random bots (``sample_bots/cpp``) whose
  processes are kept between matches (the pool is warmed by one match first), in the sandbox
  this machine gives bots, on one core as a ladder's worker plays them (``arena.sandbox.cores``:
  the referee and its bots on a core of their own); wall time and the referee process's CPU
  time (all its threads, so libzmq's I/O thread too) over the bots' decisions. On the pipe and
  on ZeroMQ; also the Python SDK random bot on the pipe (its referee CPU per decision has the
  same target, 80 us); and on the pipe where the kernel places the processes (``--no-pin``);
* the floors: a raw round trip of the same turn bytes (a real Happy Mochi turn) to the same C++
  bot started the same way, over a pipe pair and over a ZeroMQ ROUTER, from a loop that does
  nothing else;
* fastchess (``--fastchess PATH``): games between two instances of its own mock engine
  ``random_mover``, which answers every ``go`` at once; wall time over the plies its PGN counts
  (and the CPU of fastchess and both engines over them). Like Arena's bots its engines are kept
  between games (fastchess's default ``restart=off``); unlike them they run without a sandbox.
  With ``-use-affinity`` (the game and its engines on one core), beside Arena on one core, and
  without, beside Arena where the kernel places it;
* a match's fixed cost: short matches (Happy Mochi cut to one turn, C++ bots kept, pipe; a
  match of kept processes makes no match folder), wall and referee CPU per match beside the
  same per decision in whole games: how many decisions a match's start and end cost;
* workers: ladders on 2 local workers against 1, of long matches (whole Motora games: 204
  and 408) and of short ones (Happy Mochi cut to one turn: 1200 and 2400), C++ bots kept, on
  the pipe, each worker on a core of its own in both (``--pin``: the ratio is the scaling
  alone): matches per second over the whole run (workers started with the run, as ``arena
  ladder run`` does; the goals, 1.7x long and 1.3x short, are on these) and over its second
  half (steady), the run's start-up and end (its wall time beyond its matches at the steady
  rate) and the first match stored; the CPU per match in steady state of the runner (its
  process: storing, rating, tallying, dispatch; bound 300 us on short matches), of the
  workers (their processes: the referees) and of the bots, and the CPU fixed per run (from
  the two lengths; see ``workers``); beside what this machine gives 2 processes now against
  1 (pure Python spinning in each: 2.0 on 2 idle cores, less when the machine is shared).

The kinds are measured in turns, block after block (A B A B ...), so that a load that drifts
hits all alike, and each row gives the mean 1-minute load average over the blocks it compares.
The referee's CPU per decision is also given for the other games (their engines' view and rules
cost more than Happy Mochi's), each beside its engine's own share: ``view``, ``events_since``,
``act``, ``pending`` and the turn's encoding for the same decisions, timed in this process.

fastchess is not part of Arena: bench/README.md gives the commands that fetch and build it (and
its ``random_mover`` engine) under /tmp. ``--fastchess-engine`` names another engine (default:
``app/tests/mock/engine/random_mover`` beside the binary).

    python bench/decision_loop.py [--fastchess PATH] [--quick]
    python bench/decision_loop.py --workers [--quick]    # the workers' ladders alone

Prints the table and saves bench/results/decision_loop.json (``--workers``: workers.json).
``make bench`` runs it (with ``FASTCHESS=PATH``, beside fastchess).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ladder as ladder_bench
import transport
import zmq
from throughput import load, report, row

from arena import sandbox
from arena.games import load_game
from arena.match.bots import BotSpec, parse_bot
from arena.match.pool import BotPool
from arena.match.referee import play_match
from arena.sandbox.cores import assign, usable
from protocol import codec, messages

ROOT = Path(__file__).resolve().parents[1]
CPP_BOT = ROOT / "sample_bots" / "cpp" / "build" / "random_bot"
PYTHON_BOT = ROOT / "sample_bots" / "python" / "random_bot.py"
GAME = "happy_mochi"
SEATS = {"happy_mochi": 2, "mai_star": 3, "motora": 2, "mottainai": 2}
ENGINE = Path("app/tests/mock/engine/random_mover")  # beside the fastchess binary
RESULTS = Path(__file__).parent / "results" / "decision_loop.json"
TARGET_CPU_US = 80.0  # issue 30: the referee's CPU per decision
# The workers' ladders, in rounds of 12 matches: long 204 and 408 Motora games, short 1200 and
# 2400 one-turn matches (a real ladder's length: a run of a few seconds is mostly start-up)
WORKER_ROUNDS = (17, 100)


@dataclass
class Sample:
    """What a run of one kind took: wall and CPU seconds, and the decisions (or plies) played."""

    wall_s: float = 0.0
    cpu_s: float = 0.0
    count: int = 0
    loads: list[float] = field(default_factory=list)  # the 1-minute load after each block

    def add(self, other: Sample) -> None:
        self.wall_s += other.wall_s
        self.cpu_s += other.cpu_s
        self.count += other.count
        self.loads.append(load())

    @property
    def load(self) -> float:
        return round(statistics.fmean(self.loads), 2) if self.loads else load()

    @property
    def wall_us(self) -> float:
        return self.wall_s / self.count * 1e6

    @property
    def cpu_us(self) -> float:
        return self.cpu_s / self.count * 1e6


def cpp_bots(transport_name: str) -> list[BotSpec]:
    return [
        parse_bot(f"c{i}={transport_name}:{CPP_BOT} --seed {i}", ROOT) for i in range(SEATS[GAME])
    ]


def python_bots(transport_name: str) -> list[BotSpec]:
    return [
        parse_bot(f"p{i}={transport_name}:python {PYTHON_BOT} --seed {i}", ROOT)
        for i in range(SEATS[GAME])
    ]


@contextmanager
def on_core(pinned: bool = True) -> Iterator[None]:
    """This process, and the bots it starts meanwhile, on the core a ladder's first worker
    takes (``pinned``), or wherever the kernel places them."""
    before = os.sched_getaffinity(0)
    core = assign(1, usable(), pin=True)[0]
    if pinned and core is not None:
        os.sched_setaffinity(0, {core})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def arena(
    bots: list[BotSpec],
    seeds: range,
    game_id: str = GAME,
    options: dict[str, Any] | None = None,
    pinned: bool = True,
) -> Sample:
    """Full matches of ``bots`` with kept processes (started by a first match, not timed)."""
    game, pool = load_game(game_id), BotPool()

    def play(seed: int) -> int:
        result = play_match(game, bots, seed, options, pool=pool)
        assert result.void is None and all(s.status == "ok" for s in result.seats), result
        return sum(s.decisions for s in result.seats)

    try:
        with on_core(pinned):
            play(-1 - seeds.start)  # starts the processes kept for the timed matches
            wall, cpu = time.perf_counter(), time.process_time()
            decisions = sum(map(play, seeds))
            return Sample(time.perf_counter() - wall, time.process_time() - cpu, decisions)
    finally:
        pool.close()


SHORT = {"max_rounds": 1, "max_turns_per_round": 1}  # Happy Mochi cut to one turn


def short_matches(seeds: range) -> Sample:
    """Short matches of kept C++ bots on the pipe: wall and CPU per match (``count``: matches,
    not decisions)."""
    played = arena(cpp_bots("pipe"), seeds, GAME, SHORT)
    return Sample(played.wall_s, played.cpu_s, len(seeds))


def sample_turn() -> bytes:
    return codec.encode(transport.sample_turn())


@contextmanager
def raw_bot(transport_name: str) -> Iterator[tuple[Callable[[bytes], None], Callable[[], Any]]]:
    """The C++ bot started as the referee starts it, welcomed, with a raw send and receive."""
    level = sandbox.choose(None)
    with sandbox.match_directory() as folder:
        env = {"ARENA_TRANSPORT": transport_name, "ARENA_TOKEN": "bench", "ARENA_SEAT": "0"}
        path = folder / "raw.sock"
        ctx = zmq.Context()
        router = ctx.socket(zmq.ROUTER)
        if transport_name == "zmq":
            router.bind(f"ipc://{path}")
            env["ARENA_ENDPOINT"] = f"ipc://{path}"
        proc = sandbox.launch(
            [str(CPP_BOT)],
            cwd=CPP_BOT.parent,
            env=sandbox.bot_environment(env),
            log_path=folder / "raw.log",
            socket_path=path if transport_name == "zmq" else None,
            stdio=transport_name == "pipe",
            level=level,
        )
        try:
            if transport_name == "pipe":
                assert proc.stdin is not None and proc.stdout is not None
                stdin, stdout = proc.stdin, proc.stdout
                os.set_blocking(stdin, True)
                os.set_blocking(stdout, True)

                def send(body: bytes) -> None:
                    os.write(stdin, codec.HEADER.pack(len(body)) + body)

                def receive() -> bytes:
                    size = codec.HEADER.unpack(os.read(stdout, 4))[0]
                    return os.read(stdout, size)  # an action: far below a pipe's atomic size

            else:
                identity = router.recv_multipart()[0]

                def send(body: bytes) -> None:
                    router.send_multipart([identity, body])

                def receive() -> bytes:
                    return router.recv_multipart()[1]

            if transport_name == "pipe":
                receive()  # hello
            send(codec.encode(messages.welcome("bench", 0, 2, {}, {})))
            yield send, receive
        finally:
            proc.kill()
            router.close(linger=0)
            ctx.term()


def raw(transport_name: str, count: int) -> Sample:
    """``count`` round trips of a real turn to the C++ bot, as fast as the bot answers."""
    turn = sample_turn()
    with on_core(), raw_bot(transport_name) as (send, receive):
        for _ in range(count // 10):  # warm-up
            send(turn)
            receive()
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(count):
            send(turn)
            receive()
        return Sample(time.perf_counter() - wall, time.process_time() - cpu, count)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def fastchess(binary: Path, engine: Path, rounds: int, pinned: bool) -> Sample:
    """``rounds`` pairs of games between two random_mover engines, one game at a time;
    ``pinned``: the game and its engines on one core (fastchess's ``-use-affinity``)."""
    with tempfile.TemporaryDirectory(prefix="arena-fastchess-") as folder:
        pgn = Path(folder) / "games.pgn"
        seed = random.randrange(1 << 30)  # the movers' own seeds: different games each block
        command = [
            str(binary),
            *("-engine", f"cmd={engine}", "name=a", f"args={seed}"),
            *("-engine", f"cmd={engine}", "name=b", f"args={seed + 1}"),
            *("-each", "tc=60+1", "-rounds", str(rounds), "-games", "2", "-concurrency", "1"),
            *("-pgnout", f"file={pgn}", "notation=uci"),
            *(["-use-affinity"] if pinned else []),
        ]
        wall, cpu = time.perf_counter(), children_cpu()
        subprocess.run(command, cwd=folder, check=True, capture_output=True)
        elapsed, used = time.perf_counter() - wall, children_cpu() - cpu
        plies = sum(map(int, re.findall(r'\[PlyCount "(\d+)"\]', pgn.read_text())))
    assert plies > 0, "fastchess played no move"
    return Sample(elapsed, used, plies)


def engine_share(game_id: str, seeds: range) -> Sample:
    """The engine's own work in a match of random answers (what the referee cannot do without):
    for every decision asked, its view, events and turn message encoded; every answer applied
    and every ``pending`` asked; CPU seconds over the decisions asked."""
    game, players = load_game(game_id), SEATS[game_id]
    asked, cpu = 0, time.process_time()
    for seed in seeds:
        state, rng, cursors = game.new(players, seed), random.Random(seed), [0] * players
        while pending := state.pending():
            for d in pending:
                if len(d.options) > 1:
                    events, cursors[d.seat] = state.events_since(d.seat, cursors[d.seat])
                    view, clock = state.view(d.seat), {"move_ms": 1000, "bank_ms": 10000}
                    turn = messages.turn(1, d.kind, d.prompt, list(d.options), view, events, clock)
                    codec.encode(turn)
                    asked += 1
            for d in sorted(pending, key=lambda d: d.seat):
                state.act(d.seat, rng.randrange(len(d.options)))
    return Sample(0.0, time.process_time() - cpu, asked)


def measure(
    blocks: int, matches: int, round_trips: int, rounds: int, engines: tuple[Path, Path] | None
) -> dict[str, Sample]:
    """Every kind ``blocks`` times, in turns; the totals per kind."""
    shorts = 25 * matches
    kinds: dict[str, Callable[[int], Sample]] = {
        "pipe": lambda b: arena(cpp_bots("pipe"), range(b * matches, (b + 1) * matches)),
        "pipe_free": lambda b: arena(
            cpp_bots("pipe"), range(b * matches, (b + 1) * matches), pinned=False
        ),
        "zmq": lambda b: arena(cpp_bots("zmq"), range(b * matches, (b + 1) * matches)),
        "sdk_pipe": lambda b: arena(python_bots("pipe"), range(b * matches, (b + 1) * matches)),
        "raw_pipe": lambda b: raw("pipe", round_trips),
        "raw_zmq": lambda b: raw("zmq", round_trips),
        "short": lambda b: short_matches(range(b * shorts, (b + 1) * shorts)),
    }
    if engines is not None:
        kinds["fastchess"] = lambda b: fastchess(*engines, rounds, pinned=True)
        kinds["fastchess_free"] = lambda b: fastchess(*engines, rounds, pinned=False)
    totals = {kind: Sample() for kind in kinds}
    for block in range(blocks):
        for kind, run in kinds.items():
            totals[kind].add(run(block))
    return totals


def other_games(matches: int) -> dict[str, tuple[Sample, Sample]]:
    """Per game: the referee with C++ bots on the pipe, and its engine's share."""
    out = {}
    for game_id, seats in SEATS.items():
        bots = [parse_bot(f"c{i}=pipe:{CPP_BOT} --seed {i}", ROOT) for i in range(seats)]
        seeds = range(100, 100 + matches)
        referee, engine = arena(bots, seeds, game_id), engine_share(game_id, seeds)
        referee.loads.append(load())
        out[game_id] = (referee, engine)
    return out


def find_engine(binary: Path, engine: Path | None) -> tuple[Path, Path]:
    engine = engine or binary.resolve().parent / ENGINE
    for path in (binary, engine):
        if not os.access(path, os.X_OK):
            sys.exit(f"decision_loop.py: error: {path} is not an executable file")
    return binary.resolve(), engine.resolve()


def spin(seconds: float) -> int:
    """Pure Python work for ``seconds`` of wall time; how many steps it made."""
    steps, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        steps += 1
    return steps


def cores(seconds: float = 2.0) -> float:
    """What this machine gives 2 processes now against 1: the steps 2 spinning processes make
    in the same time as 1 (2.0 on 2 idle cores)."""
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(spin, [0.01, 0.01])  # both started
        two = sum(pool.map(spin, [seconds, seconds]))
    return two / spin(seconds)


RUNNER_US = 300.0  # the runner's CPU per stored short match (1.2 ms before the group commit)
PARTS = {"runner's": "runner_cpu_s", "workers'": "workers_cpu_s", "bots'": "bots_cpu_s"}


def workers(long_rounds: int, short_rounds: int, blocks: int) -> list[dict[str, Any]]:
    """Ladders on 2 local workers against 1: long matches (whole Motora games, 12 a round) and
    short ones (Happy Mochi cut to one turn), C++ random bots kept, on the pipe; beside what
    the machine gives 2 processes now against 1. Each kind runs at two lengths, ``rounds``
    and twice that (the ladder the whole-run rates are given for), so that the CPU of the
    runner, its workers and their bots splits into a steady cost per match (the difference of
    the two runs over the matches between them) and a fixed one (start-up and the run's end),
    figures that a shared machine's load moves far less than wall time; the steady cost is
    also given apart for the runner (its process), the workers (theirs, bots not counted) and
    the bots. The steady ratio is also given beside the most the machine allows at that
    moment: the cores 2 spinning processes get over the cores the ladder of 1 worker already
    keeps busy (its runner stores on one core while its worker plays on the other). Each
    ``blocks`` times in turns (1 worker, 2 workers, the spinning processes), so that a
    drifting load hits all alike; figures are the blocks' means."""
    pipe, bot = ['transport = "pipe"'], str(CPP_BOT)
    kinds: dict[str, dict[str, Any]] = {
        "long": dict(game="motora", short=False),
        "short": dict(game="happy_mochi", short=True),
    }
    rounds = {"long": long_rounds, "short": short_rounds}
    runs: dict[tuple[str, int, int], list[dict[str, Any]]] = {
        (k, n, f): [] for k in kinds for n in (1, 2) for f in (1, 2)
    }
    floors, loads = [], []
    for _ in range(blocks):
        for what, kind in kinds.items():
            for n in (1, 2):
                for f in (1, 2):
                    got = ladder_bench.measure(n, f * rounds[what], pipe, bot=bot, pin=True, **kind)
                    runs[what, n, f].append(got)
                    loads.append(load())
        floors.append(cores())
        loads.append(load())

    def mean(what: str, n: int, key: str, f: int = 2) -> float:
        return statistics.fmean(r[key] for r in runs[what, n, f])

    def steady_us(what: str, n: int, key: str) -> float:
        """CPU per match of the longer run beyond the shorter one, in microseconds."""
        played = {f: runs[what, 1, f][0]["matches"] for f in (1, 2)}
        cpu = {f: mean(what, n, key, f) for f in (1, 2)}
        return 1e6 * (cpu[2] - cpu[1]) / (played[2] - played[1])

    floor = statistics.fmean(floors)
    rows = []
    for what, kind in kinds.items():
        played = runs[what, 1, 1][0]["matches"]
        steady_ms = {n: steady_us(what, n, "cpu_s") / 1000 for n in (1, 2)}
        fixed_s = {n: mean(what, n, "cpu_s", 1) - played * steady_ms[n] / 1000 for n in (1, 2)}
        longer = runs[what, 1, 2][0]["matches"]
        name = (
            f"ladder of {longer} {what} matches ({kind['game']}), C++ bots kept, pipe, "
            "each worker on a core of its own (--pin)"
        )
        goal = {"long": ">= 1.7", "short": ">= 1.3"}[what]
        steady = {n: mean(what, n, "steady_matches_per_s") for n in (1, 2)}
        busy = steady_ms[1] * steady[1] / 1000  # the cores 1 worker's ladder keeps busy
        rows += [
            row(f"{name}, 2 workers: whole run", mean(what, 2, "matches_per_s"),
                "1 local worker", mean(what, 1, "matches_per_s"), "matches/s", goal),
            row("the same, second half (steady), 2 workers", steady[2], "1 worker", steady[1],
                "matches/s", ""),
            row("the same: 2 workers / 1, steady", steady[2] / steady[1], "the most this "
                "machine allows now: the cores 2 spinning processes get / the cores 1 worker's "
                f"ladder keeps busy in steady state ({busy:.2f})", floor / busy, "x", ""),
            row("the same, start-up and end (wall beyond its matches at the steady rate), "
                "2 workers", mean(what, 2, "startup_s"), "1 worker", mean(what, 1, "startup_s"),
                "s", ""),
            row("the same, first match stored after, 2 workers", mean(what, 2,
                "first_stored_s"), "1 worker", mean(what, 1, "first_stored_s"), "s", ""),
            row(f"{what} matches: CPU per match in steady state (runner, workers, bots), "
                "2 workers", steady_ms[2], "1 worker", steady_ms[1], "ms", ""),
            *(row(f"{what} matches: the {part} CPU per match in steady state, 2 workers",
                  steady_us(what, 2, key), "1 worker", steady_us(what, 1, key), "us", "")
              for part, key in PARTS.items()),
            row(f"{what} matches: fixed CPU of a run (start-up and end), 2 workers",
                fixed_s[2], "1 worker", fixed_s[1], "s", ""),
            row(f"{name}, 2 workers: the fewest jobs in flight (the dispatcher slows down "
                f"while referees wait for a CPU; {mean(what, 2, 'throttled_share'):.0%} of the "
                "matches finished below its slots)",
                min(r["fewest_in_flight"] for r in runs[what, 2, 2]), "its slots", 4, "jobs", ""),
        ]  # fmt: skip
    rows.append(row("short matches: the runner's CPU per stored match in steady state, "
                    "1 worker", steady_us("short", 1, "runner_cpu_s"), "the bound asked of it",
                    RUNNER_US, "us", "<= 1"))  # fmt: skip
    rows.append(row("2 processes spinning in pure Python", floor, "1 process", 1.0, "x", ""))
    for line in rows:
        line["load_1min"] = round(statistics.fmean(loads), 2)
    return rows


def at(line: dict[str, Any], *samples: Sample) -> dict[str, Any]:
    """``line`` with the mean 1-minute load over the blocks of the samples it compares."""
    loads = [x for sample in samples for x in sample.loads]
    line["load_1min"] = round(statistics.fmean(loads), 2) if loads else load()
    return line


def rows_of(
    totals: dict[str, Sample], games: dict[str, tuple[Sample, Sample]]
) -> list[dict[str, Any]]:
    """The table: Arena's decision loop beside fastchess (when measured) and the raw floors."""
    pipe, zmq_, sdk, free = totals["pipe"], totals["zmq"], totals["sdk_pipe"], totals["pipe_free"]
    raw_pipe, raw_zmq = totals["raw_pipe"], totals["raw_zmq"]
    short = totals["short"]
    cpp = f"Arena, {GAME}, C++ bots kept"
    unpinned = f"{cpp}, pipe, where the kernel places them (--no-pin)"
    rows = []
    if "fastchess" in totals:
        chess, chess_free = totals["fastchess"], totals["fastchess_free"]
        rows += [
            at(row(f"{cpp}, pipe: wall per decision, referee's work included", pipe.wall_us,
                   "fastchess -use-affinity: wall per ply, random_mover engines",
                   chess.wall_us, "us", "<= 3"), pipe, chess),
            at(row(f"{unpinned}: the same", free.wall_us, "fastchess without -use-affinity",
                   chess_free.wall_us, "us", ""), free, chess_free),
            at(row(f"{cpp}, zmq: the same", zmq_.wall_us, "fastchess -use-affinity",
                   chess.wall_us, "us", ""), zmq_, chess),
            at(row(f"{cpp}, pipe: referee CPU per decision (bots not counted)", pipe.cpu_us,
                   "fastchess -use-affinity: CPU per ply, both engines counted", chess.cpu_us,
                   "us", ""), pipe, chess),
        ]  # fmt: skip
    return [
        *rows,
        at(row(f"{cpp}, pipe: wall per decision", pipe.wall_us,
               "raw pipe round trip of a real turn to the same C++ bot", raw_pipe.wall_us,
               "us", ""), pipe, raw_pipe),
        at(row(f"{cpp}, zmq: wall per decision", zmq_.wall_us,
               "raw ZeroMQ ROUTER round trip, the same", raw_zmq.wall_us, "us", ""),
           zmq_, raw_zmq),
        at(row("raw ZeroMQ round trip", raw_zmq.wall_us, "raw pipe round trip",
               raw_pipe.wall_us, "us", ""), raw_zmq, raw_pipe),
        at(row(f"{cpp}, pipe: referee CPU per decision", pipe.cpu_us, "issue 30's target",
               TARGET_CPU_US, "us", "<= 1"), pipe),
        at(row(f"Arena, {GAME}, Python SDK random bots kept, pipe: referee CPU per decision",
               sdk.cpu_us, "issue 30's target", TARGET_CPU_US, "us", "<= 1"), sdk),
        at(row(f"{unpinned}: referee CPU per decision", free.cpu_us, "on one core",
               pipe.cpu_us, "us", ""), free, pipe),
        at(row(f"{unpinned}: wall per decision", free.wall_us, "on one core", pipe.wall_us,
               "us", ""), free, pipe),
        at(row(f"{cpp}, zmq: referee CPU per decision (libzmq's I/O thread included)",
               zmq_.cpu_us, "the same on the pipe", pipe.cpu_us, "us", ""), zmq_, pipe),
        at(row(f"Arena, {GAME}, Python SDK random bots kept, pipe: wall per decision",
               sdk.wall_us, "the same with C++ bots", pipe.wall_us, "us", ""), sdk, pipe),
        at(row(f"short matches ({GAME} cut to one turn), C++ bots kept, pipe: wall per match",
               short.wall_us / 1000, "wall per decision in whole games, the same bots",
               pipe.wall_us / 1000, "ms", ""), short, pipe),
        at(row("the same: referee CPU per match", short.cpu_us / 1000,
               "referee CPU per decision in whole games", pipe.cpu_us / 1000, "ms", ""),
           short, pipe),
        *(
            at(row(f"Arena, {game_id}, C++ bots kept, pipe: referee CPU per decision",
                   referee.cpu_us, "its engine's share: view, events, turn encoded, act, "
                   "pending", engine.cpu_us, "us", ""), referee, engine)
            for game_id, (referee, engine) in games.items()
        ),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fastchess", type=Path, help="a fastchess binary, to measure beside")
    parser.add_argument("--fastchess-engine", type=Path, help="its engine [default: random_mover]")
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke test)")
    parser.add_argument("--workers", action="store_true", help="only the workers' ladders")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.workers:  # saved apart: the whole table stays as its last full run left it
        rows = workers(*WORKER_ROUNDS, 2 if args.quick else 4)
        report(rows, RESULTS.with_name("workers.json"), quick=args.quick)
        return
    engines = find_engine(args.fastchess, args.fastchess_engine) if args.fastchess else None
    scale = 1 if args.quick else 4
    totals = measure(2 * scale, 2, 1000, 5, engines)
    counts = {kind: sample.count for kind, sample in totals.items()}
    rows = [*rows_of(totals, other_games(scale)), *workers(*WORKER_ROUNDS, max(2, scale))]
    report(rows, RESULTS, quick=args.quick, counts=counts)


if __name__ == "__main__":
    main()
