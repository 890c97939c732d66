"""Hostile attempts against the real referee: how many were contained.

Each case is one real match through the real referee and sandbox, a hostile bot from
``tests/bots/hostile/`` in seat 1 beside honest random bots, played in a child process of its
own so that a referee brought down (libzmq's abort, a crash, a hang) counts as an attempt that
was not contained instead of ending the run. A case is **contained** when its check finds
nothing: by default, the match stands (not void), the hostile seat got one of the verdicts
expected, and every honest seat finished ``ok`` with its bank whole.

    .venv/bin/python bench/hostile.py [--only NAME ...] [--out bench/results/hostile.json]

prints one line per case, then ``attempts N`` and ``contained M``, and saves the figures (the
verdict, the match's wall time and the referee's peak memory per case). A new case is one
entry in ``CASES``; one that needs its own set-up gives its own ``play`` and ``check``.
"""

from __future__ import annotations

import argparse
import atexit
import ctypes
import fcntl
import json
import multiprocessing
import os
import random
import resource
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena import sandbox  # noqa: E402
from arena.games import load_game  # noqa: E402
from arena.games.rng import KeyedRandom  # noqa: E402
from arena.ladder.schedule import build_schedule, engine_seed  # noqa: E402
from arena.match import pool as kept_pool  # noqa: E402
from arena.match.bots import parse_bot  # noqa: E402
from arena.match.referee import play_match  # noqa: E402
from arena.match.results import Limits, MatchResult, is_host_void  # noqa: E402
from arena.sandbox import seccomp, uids  # noqa: E402
from tests.bots.hostile._deals import fingerprint, predicted_outputs  # noqa: E402
from tests.broken_hosts import private_python  # noqa: E402

HOSTILE = 1  # the hostile bot's seat
LIMITS = Limits(init_ms=5000, move_ms=1000, bank_ms=1000)
READING = Limits(init_ms=60_000, move_ms=60_000, bank_ms=1000)  # brute force takes seconds
CASE_TIMEOUT_S = 180


@dataclass(frozen=True)
class Case:
    """One hostile attempt: the bot (a script in tests/bots/hostile plus arguments), the
    verdicts that contain it, and the match it plays in."""

    name: str
    command: str
    expect: tuple[str, ...]
    transport: str = "zmq"
    seats: int = 3
    seed: int = 7
    limits: Limits = LIMITS
    options: dict[str, Any] = field(default_factory=lambda: {"max_rounds": 1})
    play: Callable[[Case, Path], MatchResult] | None = None  # default: play_hostile
    check: Callable[[Case, MatchResult], str | None] | None = None  # default: standard_check


def play_hostile(case: Case, bots: Path) -> MatchResult:
    """Random bots in every seat but seat 1, which runs the case's hostile bot."""
    specs = [
        parse_bot(f"random{i}=python {bots}/random_bot.py --seed {i}") for i in range(case.seats)
    ]
    prefix = "stdio:" if case.transport == "stdio" else ""
    specs[HOSTILE] = parse_bot(f"hostile={prefix}python {bots}/{case.command}")
    game = load_game("happy_mochi")
    return play_match(game, specs, case.seed, case.options, case.limits)


def standard_check(case: Case, result: MatchResult) -> str | None:
    """Why the attempt was not contained, or None."""
    if result.void is not None:
        return f"match void: {result.void}"
    seat = result.seats[HOSTILE]
    if seat.status not in case.expect:
        return f"hostile seat {seat.status} ({seat.detail}), expected {'/'.join(case.expect)}"
    for other in result.seats:
        if other.seat == HOSTILE:
            continue
        if other.status != "ok" or other.decisions == 0:
            return f"honest seat {other.seat} {other.status} ({other.detail})"
        if other.bank_left_ms != case.limits.bank_ms:
            return f"honest seat {other.seat} lost bank: {other.bank_left_ms} ms left"
    return None


def host_check(case: Case, result: MatchResult) -> str | None:
    """A broken host is contained when the match is void with a ``host:`` reason and no seat
    was ruled at all: nothing blamed on a bot, nothing run unsandboxed."""
    if not is_host_void(result.void):
        return f"expected a host void, got {result.void!r}"
    ruled = [s for s in result.seats if s.status != "ok"]
    return f"seat {ruled[0].seat} ruled {ruled[0].status}" if ruled else None


def with_every_uid_taken(case: Case, bots: Path) -> MatchResult:
    """Every bot uid leased by someone else (in a private lock folder: no real bot touched)."""
    uids.LOCK_DIR = Path(tempfile.mkdtemp(prefix="bench-uid-locks-"))
    atexit.register(shutil.rmtree, uids.LOCK_DIR, True)
    held = []
    for uid in range(uids.FIRST_UID, uids.LAST_UID + 1):
        held.append(os.open(uids.LOCK_DIR / str(uid), os.O_RDWR | os.O_CREAT, 0o600))
        fcntl.flock(held[-1], fcntl.LOCK_EX | fcntl.LOCK_NB)
    return play_hostile(case, bots)


def with_cgroups_read_only(case: Case, bots: Path) -> MatchResult:
    """The cgroup tree works when the referee starts, then is remounted read-only."""
    sandbox.probe()
    if ctypes.CDLL(None, use_errno=True).unshare(0x00020000) != 0:  # CLONE_NEWNS: ours alone
        raise OSError(ctypes.get_errno(), "cannot make a private mount namespace")
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)
    for line in Path("/proc/self/mounts").read_text().splitlines():
        target, kind = line.split()[1:3]
        if kind in ("cgroup", "cgroup2"):
            subprocess.run(["mount", "-o", "remount,bind,ro", target], check=True)
    return play_hostile(case, bots)


def without_seccomp(case: Case, bots: Path) -> MatchResult:
    """libseccomp does not load: no confining level works, and rlimits was not asked for."""
    seccomp.check = lambda: "seccomp: libseccomp not loadable (bench)"
    sandbox.probe.cache_clear()
    return play_hostile(case, bots)


def with_python_out_of_reach(case: Case, bots: Path) -> MatchResult:
    """Arena's Python in a venv inside a 0700 directory, as one under root's home."""
    folder = Path(tempfile.mkdtemp(prefix="bench-private-python-"))
    atexit.register(shutil.rmtree, folder, True)
    sys.executable = str(private_python(folder))
    return play_hostile(case, bots)


def with_512_descriptors(case: Case, bots: Path) -> MatchResult:
    """The referee's hard limit on open files far below what the bot opens (up to 30 000):
    only the connection cap, ruled as soon as it is passed, keeps libzmq from aborting."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (512, 512))
    return play_hostile(case, bots)


LADDER_SEED = 4242  # the seed the bot brute-forced


def dealt_as_a_ladder(case: Case, bots: Path) -> MatchResult:
    """A match made as ``arena ladder run`` makes it: its id and deal identity from the public
    schedule of a 1-round ladder with seed 4242, its engine seed from a fresh secret deal key.
    The hostile bot sits in seat 1, a random bot in seat 0."""
    game = load_game("happy_mochi")
    options = game.resolve_options(case.options, 2)
    names = ["random0", "hostile"]
    fp = fingerprint(game.id, 2, options)
    schedule = build_schedule(names, 2, 1, LADDER_SEED, fp)
    spec = next(s for s in schedule if s.bots[HOSTILE] == "hostile")
    specs = [
        parse_bot(f"random0=python {bots}/random_bot.py --seed 0"),
        parse_bot(f"hostile=python {bots}/{case.command}"),
    ]
    seed = engine_seed(secrets.token_bytes(32), spec.seed)
    return play_match(game, specs, seed, options, case.limits, match_id=spec.match_id)


def deal_not_read(case: Case, result: MatchResult) -> str | None:
    """The standard check, the bot did run its attacks (and found the public schedule: the
    ladder seed behind its match id), and none dealt its own hand."""
    log = result.seats[HOSTILE].log_tail
    if f"ATTACK ladder seed {result.match_id}: ok {LADDER_SEED} " not in log:
        return "the hostile bot did not find the ladder seed: the attack proves nothing"
    if f"ATTACK deal {result.match_id}: matched=" not in log:
        return "the hostile bot did not report its attempt"
    if f"ATTACK deal {result.match_id}: matched=none" not in log:
        return "a derivation dealt the bot's own hand: " + log.split("matched=")[1].split(" ")[0]
    return standard_check(case, result)


def generator_not_cloned(case: Case, result: MatchResult) -> str | None:
    """The deal-reading check, and the match's own generator survives the Twister clone that
    predicts every output of Python's generator after 624 of them."""
    if predicted_outputs(random.Random(result.seed)) != 1000:
        return "the clone attack does not work on a Mersenne Twister: it proves nothing"
    predicted = predicted_outputs(KeyedRandom(result.seed))
    if predicted:
        return f"the clone predicted {predicted} of 1000 outputs of the engine's generator"
    return deal_not_read(case, result)


TOLD = f"deal_reader.py --bots hostile,random0 --ladder-seed {LADDER_SEED} --brute 0"
DEAL_ATTEMPTS = (
    ("deal: schedule digests, ladder seed told", TOLD, deal_not_read),
    (
        "deal: ladder seed and engine seeds 0..4999 brute-forced",
        "deal_reader.py --bots hostile,random0 --brute 5000",
        deal_not_read,
    ),
    ("deal: generator state from 624 outputs", TOLD, generator_not_cloned),
)


def lost_then_attacked(case: Case, result: MatchResult) -> str | None:
    """The standard check, and the bot did lose and attack (it floods only after a loss)."""
    if "ATTACK game: lost" not in result.seats[HOSTILE].log_tail:
        return "the hostile bot did not lose, so it never attacked"
    return standard_check(case, result)


def kept_series(case: Case, bots: Path, count: int, lane_between: int = 0) -> MatchResult:
    """A kept process (tests/bots/protocol/kept.py in seat 1, a reusable bot in seat 0) plays
    ``count`` matches through one worker's pool; the last one's result. With ``lane_between``,
    that many matches of two other kept bots are played in another lane before the last one;
    if any of theirs is not clean, that result is returned (the honest seats' check fails)."""
    folder = bots / "kept"
    shutil.copytree(ROOT / "tests/bots/protocol", folder, ignore=shutil.ignore_patterns("__py*"))
    for path in (folder, *folder.iterdir()):
        path.chmod(0o755)
    game, short = load_game("happy_mochi"), {"max_rounds": 1, "max_turns_per_round": 2}
    steady = parse_bot(f"steady=python {folder}/kept.py fine 0")
    specs = [steady, parse_bot(f"hostile=python {folder}/{case.command}")]
    others = [parse_bot(f"{n}=python {folder}/kept.py fine 0") for n in ("a", "b")]
    pool = kept_pool.BotPool()
    try:
        for seed in range(count - 1):
            play_match(game, specs, seed, short, case.limits, pool=pool, ask_forced=True)
        for seed in range(lane_between):
            result = play_match(game, others, seed, short, case.limits, pool=pool, lane=1)
            if result.void is not None or any(s.status != "ok" for s in result.seats):
                return result
        return play_match(game, specs, count, short, case.limits, pool=pool, ask_forced=True)
    finally:
        pool.close()


def kept_third(case: Case, bots: Path) -> MatchResult:
    return kept_series(case, bots, 3)


def kept_hog(case: Case, bots: Path) -> MatchResult:
    """A 100 MiB budget for idle processes; the bot holds 150 MiB after its first match."""
    kept_pool.IDLE_MEMORY_MB = 100
    return kept_series(case, bots, 2)


def kept_idle_flood(case: Case, bots: Path) -> MatchResult:
    return kept_series(case, bots, 2, lane_between=3)


def kept_check(field: str, expected: str) -> Callable[[Case, MatchResult], str | None]:
    """The standard check, and the last welcome of the kept bot says ``field expected``
    (``children 0``: nothing it forked lived on; ``match 1``: a fresh process played)."""

    def check(case: Case, result: MatchResult) -> str | None:
        lines = [line for line in result.seats[HOSTILE].log_tail.splitlines() if "process" in line]
        words = lines[-1].split() if lines else []
        said = words[words.index(field) + 1] if field in words else "nothing"
        if said != expected:
            return f"its last welcome says {field} {said}, expected {expected}"
        return standard_check(case, result)

    return check


KEPT_LIMITS = Limits(init_ms=5000, move_ms=5000, bank_ms=5000)

COLLUDE_CHANNELS = ("proc_locks", "flock", "fcntl", "ofd", "inotify")


def _collude_specs(bots: Path, roles: list[str]) -> list[Any]:
    """Seat 0 a random bot, then ``collude.py`` in each role (or a random bot for ``random``)."""
    specs = [parse_bot(f"random0=python {bots}/random_bot.py --seed 0")]
    for i, role in enumerate(roles, start=1):
        script = "random_bot.py" if role == "random" else f"collude.py --{role} --wait 10"
        specs.append(parse_bot(f"{role}{i}=python {bots}/{script}"))
    return specs


def _collude_match(bots: Path, roles: list[str]) -> MatchResult:
    game, limits = load_game("happy_mochi"), Limits(init_ms=60_000, move_ms=1000, bank_ms=1000)
    return play_match(game, _collude_specs(bots, roles), 7, {"max_rounds": 1}, limits)


def colluding_seats(case: Case, bots: Path) -> MatchResult:
    """A sender and a receiver in two seats of one match."""
    return _collude_match(bots, ["send", "receive"])


def colluding_matches(case: Case, bots: Path) -> MatchResult:
    """A sender and a receiver in two matches played at once (processes of their own); the
    receiver's seat is added to the sender's match result for the check."""
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        a = pool.apply_async(_collude_match, (bots, ["send", "random"]))
        b = pool.apply_async(_collude_match, (bots, ["receive", "random"]))
        sent, got = a.get(CASE_TIMEOUT_S), b.get(CASE_TIMEOUT_S)
    sent.seats.append(got.seats[HOSTILE])
    return sent


def collusion_check(case: Case, result: MatchResult) -> str | None:
    """Contained when no channel carried the secret: each failed, or decoded something else."""
    if result.void is not None:
        return f"match void: {result.void}"
    said: dict[str, str] = {}
    for seat in result.seats:
        for line in seat.log_tail.splitlines():
            if line.startswith("COLLUDE "):
                key, _, value = line[len("COLLUDE ") :].partition(": ")
                said[key] = value
    if "sent" not in said:
        return "the sender never sent"
    leaked = [c for c in COLLUDE_CHANNELS if said.get(c) == said["sent"]]
    if leaked:
        return f"the secret passed through {', '.join(leaked)}"
    return None


CASES: list[Case] = [
    Case(
        "connections during the match", "connection_flood.py --after 1", ("too_many_connections",)
    ),
    Case(
        "connections after a lost game",
        "connection_flood.py --after-loss",
        ("ok",),
        seats=2,
        seed=1,  # a game the hostile bot loses
        check=lost_then_attacked,
    ),
    Case(
        "connections to a referee with 512 descriptors",
        "connection_flood.py --after 1",
        ("too_many_connections",),
        play=with_512_descriptors,
    ),
    Case("connection churn", "churn.py --count 20", ("too_many_connections",)),
    Case("1 MiB messages on a second connection", "heavy_stream.py", ("flood",)),
    Case("heavy messages after every answer", "heavy_after.py --count 4", ("flood",)),
    Case("late answer while flooding", "late_flood.py --after 1 --late-ms 3500", ("timeout",)),
    Case(
        "late answer behind a 1 MiB message",
        "late_flood.py --after 1 --heavy --flood 1 --late-ms 3500",
        ("timeout",),
    ),
    Case(
        "stdio: late answer behind a 1 MiB line",
        "late_flood.py --after 1 --heavy --flood 1 --late-ms 3500",
        ("timeout",),
        "stdio",
    ),
    Case("40 stale messages in one turn", "late_flood.py --flood 40 --late-ms 200", ("flood",)),
    Case("stdio: flood, never reading stdin", "stdio_flood.py", ("flood",), "stdio", seats=2),
    Case("non-ASCII token (zmq)", "unicode_token.py", ("bad_token",), seats=2),
    Case("non-ASCII token (stdio)", "unicode_token.py", ("bad_token",), "stdio", seats=2),
    Case("answers from a second connection", "spoof.py second", ("flood",), seats=2, seed=8),
    Case("a second connection with the seat's routing id", "spoof.py routing_id", ("ok", "flood")),
    Case("crash before hello", "early_crash.py", ("crashed",), seats=2),
    # Two seats of one author try to pass a secret through the files both sandboxes show.
    Case(
        "collusion: locks, /proc/locks, inotify between two seats",
        "collude.py",
        ("ok",),
        play=colluding_seats,
        check=collusion_check,
    ),
    Case(
        "collusion: the same between two matches at once",
        "collude.py",
        ("ok",),
        play=colluding_matches,
        check=collusion_check,
    ),
    Case(
        "hello to a wrong endpoint",
        "wrong_endpoint.py",
        ("timeout",),
        seats=2,
        limits=Limits(init_ms=1500, move_ms=1000, bank_ms=1000),
    ),
    Case("SIGSEGV in a match", "segfault_in_match.py --after 2", ("crashed",)),
    Case(
        "stalling past the wall-clock cap",
        "timed.py --after 1 --answer-ms 30000",
        ("match_timeout",),
        seats=2,
        limits=Limits(init_ms=60_000, move_ms=60_000, bank_ms=0, match_ms=6000),
    ),
    # Kept (reused) processes: the same rules as fresh ones, nothing carried between matches.
    Case(
        "kept: 6 connections in its third match",
        "kept.py connections 3",
        ("too_many_connections",),
        play=kept_third,
        check=kept_check("match", "3"),
    ),
    Case(
        "kept: 40 stale messages in its third match",
        "kept.py messages 3",
        ("flood",),
        play=kept_third,
        check=kept_check("match", "3"),
    ),
    Case(
        "kept: a child and a daemon left for the next match",
        "kept.py fork 1",
        ("ok",),
        play=kept_third,
        check=kept_check("children", "0"),
    ),
    Case(
        "kept: 150 MiB held while idle, 100 MiB for all idle",
        "kept.py hog 1 150",
        ("ok",),
        limits=KEPT_LIMITS,
        play=kept_hog,
        check=kept_check("match", "1"),
    ),
    Case(
        "kept: connection flood on its idle socket",
        "kept.py flood 1",
        ("ok", "too_many_connections"),
        play=kept_idle_flood,
    ),
    # Reading the deal (issue 24): a ladder's match, dealt from a secret key; see docs/seeds.md.
    *(
        Case(name, command, ("ok",), seats=2, limits=READING, play=dealt_as_a_ladder, check=check)
        for name, command, check in DEAL_ATTEMPTS
    ),
    # The host broken under honest bots: the match is void with a host: reason, no seat ruled.
    *(
        Case(name, "random_bot.py --seed 9", ("ok",), seats=2, play=play, check=host_check)
        for name, play in (
            ("host: every bot uid taken", with_every_uid_taken),
            ("host: cgroup tree read-only after the probe", with_cgroups_read_only),
            ("host: seccomp missing, no confining level", without_seccomp),
            ("host: Python out of the bot uid's reach", with_python_out_of_reach),
        )
    ),
]


def bot_folder() -> Path:
    """A copy of the hostile bots and a random bot, readable by the sandbox's bot uids."""
    folder = Path(tempfile.mkdtemp(prefix="arena-hostile-bench-"))
    folder.chmod(0o755)
    for path in (ROOT / "tests/bots/hostile").glob("*.py"):
        shutil.copy(path, folder / path.name)
    shutil.copy(ROOT / "sample_bots/python/random_bot.py", folder / "random_bot.py")
    for path in folder.iterdir():
        path.chmod(0o755)
    return folder


def run_one(name: str) -> dict[str, Any]:
    """Play one case here (in the child process) and say how it went."""
    case = next(c for c in CASES if c.name == name)
    folder = bot_folder()
    started = time.monotonic()
    try:
        result = (case.play or play_hostile)(case, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    why = (case.check or standard_check)(case, result)
    seat = result.seats[HOSTILE]
    return {
        "contained": why is None,
        "why": why,
        "hostile": f"{seat.status}: {seat.detail}" if seat.detail else seat.status,
        "wall_s": round(time.monotonic() - started, 2),
        "referee_peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def run_isolated(case: Case) -> dict[str, Any]:
    """Run one case in a child process: a referee that dies is an attempt not contained."""
    argv = [sys.executable, __file__, "--case", case.name]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=CASE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"contained": False, "why": f"no result within {CASE_TIMEOUT_S} s"}
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or [""]
        why = f"the referee's process ended with {done.returncode}: {tail[0][:200]}"
        return {"contained": False, "why": why}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="run only the cases with these names")
    parser.add_argument("--case", help=argparse.SUPPRESS)  # internal: one case, in this process
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/hostile.json")
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_one(args.case)))
        return
    cases = [c for c in CASES if not args.only or c.name in args.only]
    results = []
    for case in cases:
        outcome = {"case": case.name, **run_isolated(case)}
        results.append(outcome)
        mark = "contained" if outcome["contained"] else "NOT CONTAINED"
        shown = outcome.get("hostile") if outcome["contained"] else outcome["why"]
        print(f"{mark:13}  {case.name}: {shown}", flush=True)
    contained = sum(r["contained"] for r in results)
    print(f"attempts {len(results)}")
    print(f"contained {contained}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    summary = {"attempts": len(results), "contained": contained, "cases": results}
    args.out.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
