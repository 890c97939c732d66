"""Holding a bot process between matches (``arena.sandbox.kept``), at the strongest level here."""

from __future__ import annotations

import os
import select
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from arena import sandbox
from arena.sandbox import kept

from .conftest import python_for


def stopped(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] == "T"


def eventually(check: Callable[[], bool]) -> bool:
    """``check`` holds within a bound (a signal takes effect when its process is next
    scheduled): a bound, not a pace."""
    deadline = time.monotonic() + 30
    while not check() and time.monotonic() < deadline:
        time.sleep(0.01)
    return check()


def test_a_process_of_the_bot_itself_gone_under_its_pid_is_held_and_released_anew(
    bots: Path, match_dir: Path
) -> None:
    """The bot itself is held through pidfds kept from the last hold: its program is stopped,
    bubblewrap's helpers above it are left running. If one of them is of a process gone
    (another process of the bot may have taken its pid), the next hold finds the bot itself
    anew: the program is stopped again, then runs again at release."""
    level = sandbox.probe().level
    argv = [python_for(level), str(bots / "random_bot.py")]  # waits for its hello's answer
    env = sandbox.bot_environment({"ARENA_TRANSPORT": "pipe", "ARENA_TOKEN": "t"})
    log = match_dir / "bot.log"
    proc = sandbox.launch(argv, cwd=bots, env=env, log_path=log, stdio=True, level=level)
    try:
        started = select.poll()
        started.register(proc.stdout, select.POLLIN)
        assert started.poll(30_000), "no hello from the bot"
        kept.hold(proc)
        chain = list(proc.itself)
        program, helpers = chain[-1], chain[:-1]
        assert chain[0] == proc.pid
        assert len(helpers) == (2 if level == "bwrap" else 0)
        assert eventually(lambda: stopped(program))
        assert eventually(lambda: not any(map(stopped, helpers)))
        kept.release(proc)
        gone = subprocess.Popen(["true"])
        stale = os.pidfd_open(gone.pid)
        gone.wait()  # its pidfd is of a process gone
        last = max(chain)  # stands for any of them
        os.close(proc.itself[last])
        proc.itself[last] = stale
        kept.hold(proc)
        assert list(proc.itself) == chain
        assert eventually(lambda: stopped(program))
        assert eventually(lambda: not any(map(stopped, helpers)))
        kept.release(proc)
        assert eventually(lambda: not any(map(stopped, chain)))
    finally:
        proc.kill()
    assert proc.itself == {}
