"""Hostile bots in real matches through the referee, at the level in force here: the attack
fails, the other seat plays a normal match (``ok``), and no process of either bot is left."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena import sandbox
from arena.games import load_game
from arena.match.bots import parse_bot
from arena.match.referee import play_match
from arena.match.results import Limits, SeatResult
from arena.sandbox import SandboxLimits
from tests.procs import leftovers

from .conftest import ROOT, python_for

GAME = load_game("happy_mochi")
LIMITS = Limits(init_ms=5000, move_ms=2000)


def play(bots: Path, command: str, limits: SandboxLimits | None = None) -> tuple[SeatResult, str]:
    """Seat 0 the hostile ``command`` (a script in ``bots`` plus arguments), seat 1 a random bot;
    return the hostile seat's result and what its attacks reported."""
    level = sandbox.probe().level
    python = python_for(level)
    hostile = parse_bot(f"hostile={python} {bots}/{command}")
    honest = parse_bot(f"honest={python} {bots}/random_bot.py")
    if limits is not None:
        hostile = dataclasses.replace(hostile, limits=limits)
    result = play_match(GAME, [hostile, honest], seed=1, options={"max_rounds": 1}, limits=LIMITS)
    assert result.void is None, result.void
    assert result.seats[1].status == "ok", result.seats[1]
    assert leftovers(str(bots)) == []
    return result.seats[0], result.seats[0].log_tail


def _python_bots_run_here(level: str) -> bool:
    return level != "uid" or python_for(level) == sys.executable


@pytest.fixture(autouse=True)
def python_bots_can_play() -> None:
    level = sandbox.probe().level
    if not _python_bots_run_here(level):
        pytest.skip(f"at level {level}, Python bots need an interpreter bot uids can reach")


def test_fork_bomb_is_capped_and_the_match_goes_on(bots: Path) -> None:
    if not sandbox.probe().has("cgroup"):
        pytest.skip(sandbox.probe().layers["cgroup"].reason)
    seat, log = play(bots, "fork_bomb.py", SandboxLimits(processes=40))
    assert "ATTACK fork: EAGAIN after" in log
    assert seat.status in ("ok", "crashed")  # at its cap, libzmq may fail to start a thread


def test_memory_bomb_is_recorded_as_oom(bots: Path) -> None:
    if not sandbox.probe().has("cgroup"):
        pytest.skip(sandbox.probe().layers["cgroup"].reason)
    seat, _ = play(bots, "memory_bomb.py heap", SandboxLimits(memory_mb=96))
    assert seat.status == "oom", seat


def test_referee_is_neither_killed_nor_traced(bots: Path) -> None:
    seat, log = play(bots, "killer.py")
    assert "ATTACK ptrace_parent: EPERM" in log
    assert "ATTACK kill_parent: EPERM" in log
    assert seat.status == "ok"


def test_secrets_and_the_other_seat_are_out_of_reach(
    bots: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_TEST_SECRET", "hunter2")
    seat, log = play(bots, f"snoop.py {ROOT}/sample_bots/python/random_bot.py other-seat")
    assert "ATTACK referee_environ: EACCES" in log
    assert "ATTACK secret_env: ok []" in log
    assert "hunter2" not in log
    assert "ATTACK other_socket: E" in log  # ENOENT (not in its sandbox) or EACCES (uid)
    assert "ATTACK other_bot_file: ok" not in log or sandbox.probe().level == "rlimits"
    assert seat.status == "ok"


def test_network_and_escapes_fail_inside_a_match(bots: Path) -> None:
    seat, log = play(bots, "network.py 9")
    assert "ATTACK tcp_loopback: EACCES" in log and "ATTACK raw_socket: EACCES" in log
    seat2, log2 = play(bots, "escape.py")
    assert "ATTACK unshare_user: EPERM" in log2 and "ATTACK no_new_privs: ok '1'" in log2
    assert seat.status == seat2.status == "ok"


def test_daemons_and_stubborn_bots_leave_nothing_behind(bots: Path) -> None:
    _, log = play(bots, "daemon.py")
    assert "ATTACK daemon: ok pid" in log
    seat, _ = play(bots, "stubborn.py")
    assert seat.status == "ok"


def test_fd_exhaustion_and_cpu_burning_stay_in_the_bot(bots: Path) -> None:
    seat, log = play(bots, "fd_hog.py", SandboxLimits(open_files=64))
    assert "ATTACK open_files: Too many open files" in log and seat.status == "ok"
    seat, log = play(bots, "cpu_burner.py")
    assert seat.status == "ok"


def test_every_bot_dies_with_a_killed_referee(bots: Path) -> None:
    """SIGKILL a referee mid-match (both bots alive): nothing is left. (The kernel takes them
    down at once; the bounds below are for a busy machine, where the teardown of a sandbox can
    take seconds.)"""
    python = python_for(sandbox.probe().level)
    code = (
        "from arena.match.bots import parse_bot\n"
        "from arena.games import load_game\n"
        "from arena.match.referee import Limits, play_match\n"
        f"bots = [parse_bot('{python} {bots}/sleeper.py'), "
        f"parse_bot('{python} {bots}/random_bot.py')]\n"
        "play_match(load_game('happy_mochi'), bots, seed=1, limits=Limits(init_ms=30000))\n"
    )
    referee = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while len(leftovers(f"{bots}/")) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # both said hello: the referee now waits on the sleeper
        assert len(leftovers(f"{bots}/")) >= 2
    finally:
        os.kill(referee.pid, signal.SIGKILL)
        referee.wait()
    deadline = time.monotonic() + 30
    while leftovers(str(bots)) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert leftovers(str(bots)) == []
