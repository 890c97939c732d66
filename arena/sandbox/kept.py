"""Holding a bot process between two matches (a kept process, ``arena.match.pool``).

A kept process must carry nothing from one match into the next that a fresh one would not have,
and cost nothing while it waits. So between matches:

* every process of the bot but the bot itself is killed (children, daemons, whatever it forked:
  a fresh process starts without them). "The bot itself" is the process the launcher started
  and, under bubblewrap, the chain down to the program (bwrap's monitor, its pid-namespace
  init, the program): at each level the child that started first;
* the bot is stopped (``SIGSTOP``, which no process can catch) until its next match, so an idle
  process uses no CPU and can open no connection, fork nothing, send nothing;
* what it holds is measured (its cgroup's memory, else the resident memory of its processes),
  so a worker bounds its idle processes by memory, not only by count.

The bot's processes are those of its cgroup; without one, those of its leased uid; without
either (the unsandboxed level), those of its process group, as when it is killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

from .process import BotProcess

_HELPERS = 2  # bwrap's monitor and pid-namespace init stand between the launcher and the bot
_ROUNDS_S = 5.0  # how long the signalling rounds may go on while a bot races them with forks
_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state, ppid, pgrp, ...); read
    several times between every two matches of a kept bot, so without pathlib."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].decode().split()
    except (OSError, IndexError):
        return None


def members(proc: BotProcess) -> list[int]:
    """Every live process of the bot (zombies aside)."""
    if proc.cgroup is not None:
        found = proc.cgroup.pids()
    else:
        found = [int(name) for name in os.listdir("/proc") if name.isdigit() and _ours(proc, name)]
    return [pid for pid in found if (_stat(pid) or ["Z"])[0] != "Z"]


def _ours(proc: BotProcess, pid: str) -> bool:
    """Without a cgroup: a process of the bot's leased uid, else of its process group."""
    try:
        if proc.lease is not None:
            return os.stat(f"/proc/{pid}").st_uid == proc.lease.uid
    except OSError:
        return False
    return (_stat(int(pid)) or ["", "", ""])[2] == str(proc.pid)


def itself(proc: BotProcess, pids: list[int]) -> set[int]:
    """The bot itself among ``pids``: the launched process and, under bubblewrap, the chain
    of first-started children down to the program."""
    stats = {pid: stat for pid in pids if (stat := _stat(pid)) is not None}
    chain = [proc.pid]
    for _ in range(_HELPERS if proc.level == "bwrap" else 0):
        children = [pid for pid, stat in stats.items() if int(stat[1]) == chain[-1]]
        if not children:
            break
        chain.append(min(children, key=lambda pid: int(stats[pid][19])))  # its start time
    return set(chain)


def _stop_all(proc: BotProcess) -> list[int]:
    """SIGSTOP every process of the bot until no new one shows up: a process forked while a
    round ran is caught by the next, and stopped ones fork no more. Returns the last round's
    members (every process of the bot, all stopped, unless the rounds ran out of time)."""
    stopped: set[int] = set()
    deadline = time.monotonic() + _ROUNDS_S
    while True:
        found = members(proc)
        todo = [pid for pid in found if pid not in stopped]
        if not todo or time.monotonic() > deadline:
            return found
        _send(todo, signal.SIGSTOP)
        stopped.update(todo)


def _kill_all_but(proc: BotProcess, spare: set[int]) -> None:
    """SIGKILL every process of the bot but ``spare`` until they are gone (a process that got
    SIGKILL runs no more code, but shows until it has exited)."""
    deadline = time.monotonic() + _ROUNDS_S
    while others := [pid for pid in members(proc) if pid not in spare]:
        if time.monotonic() > deadline:
            return
        _send(others, signal.SIGKILL)
        time.sleep(0.001)


def _send(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def hold(proc: BotProcess) -> None:
    """Between matches: stop every process of the bot, then kill all but the bot itself."""
    _kill_all_but(proc, itself(proc, _stop_all(proc)))


def release(proc: BotProcess) -> None:
    """Its next match begins: let the bot run again."""
    _send(members(proc), signal.SIGCONT)


def memory_kb(proc: BotProcess) -> int:
    """What the bot holds now: its cgroup's memory, else the resident memory of its processes."""
    if proc.cgroup is not None:
        current = proc.cgroup.memory_kb()
        if current is not None:
            return current
    total = 0
    for pid in members(proc):
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE_KB
    return total
