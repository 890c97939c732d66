"""Holding a bot process between two matches (a kept process, ``arena.match.pool``).

A kept process must carry nothing from one match into the next that a fresh one would not have,
and cost nothing while it waits. So between matches:

* every process of the bot but the bot itself is killed (children, daemons, whatever it forked:
  a fresh process starts without them). "The bot itself" is the process the launcher started
  and, under bubblewrap, the chain down to the program (bwrap's monitor, its pid-namespace
  init, the program): at each level the child that started first;
* the bot is stopped (``SIGSTOP``, which no process can catch) until its next match, so an idle
  process uses no CPU and can open no connection, fork nothing, send nothing. Under bubblewrap
  only the program is: bwrap's monitor and pid-namespace init above it are bubblewrap's own
  code, asleep in ``wait``, which the bot cannot make fork or run anything. Stopping them too
  cost each kept bot four more signals a match and the wakes that carry them out (on short
  2-seat matches, about 130 us of the host's kernel time a match);
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

from .cgroups import read_whole
from .process import BotProcess

_HELPERS = 2  # bwrap's monitor and pid-namespace init stand between the launcher and the bot
_ROUNDS_S = 5.0  # how long the signalling rounds may go on while a bot races them with forks
_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state, ppid, pgrp, ...); read
    several times between every two matches of a kept bot, so without file objects."""
    try:
        return read_whole(f"/proc/{pid}/stat").rsplit(b")", 1)[1].decode().split()
    except (OSError, IndexError):
        return None


def _pids(proc: BotProcess) -> list[int]:
    """Every process of the bot, zombies included (one read of its cgroup when it has one)."""
    if proc.cgroup is not None:
        return proc.cgroup.pids()
    return [int(name) for name in os.listdir("/proc") if name.isdigit() and _ours(proc, name)]


def _live(pids: list[int]) -> dict[int, list[str]]:
    """The stat fields of each of ``pids`` still alive (zombies aside)."""
    return {pid: stat for pid in pids if (stat := _stat(pid)) is not None and stat[0] != "Z"}


def members(proc: BotProcess) -> list[int]:
    """Every live process of the bot (zombies aside)."""
    return list(_live(_pids(proc)))


def _ours(proc: BotProcess, pid: str) -> bool:
    """Without a cgroup: a process of the bot's leased uid, else of its process group."""
    try:
        if proc.lease is not None:
            return os.stat(f"/proc/{pid}").st_uid == proc.lease.uid
    except OSError:
        return False
    return (_stat(int(pid)) or ["", "", ""])[2] == str(proc.pid)


def itself(proc: BotProcess, stats: dict[int, list[str]]) -> list[int]:
    """The bot itself among the processes of ``stats`` (pid: stat fields): the launched
    process and, under bubblewrap, the chain of first-started children down to the program
    (last)."""
    chain = [proc.pid]
    for _ in range(_HELPERS if proc.level == "bwrap" else 0):
        children = [pid for pid, stat in stats.items() if int(stat[1]) == chain[-1]]
        if not children:
            break
        chain.append(min(children, key=lambda pid: int(stats[pid][19])))  # its start time
    return chain


def _stop_all(proc: BotProcess) -> list[int]:
    """SIGSTOP every process of the bot until no new one shows up: a process forked while a
    round ran is caught by the next, and stopped ones fork no more. Returns the bot's
    processes as the last round found them, all stopped unless the rounds ran out of time
    (zombies among them: a stop is nothing to them). Between two matches of a bot that
    forked nothing: its cgroup read twice and a signal to each of its processes."""
    seen: set[int] = set()  # signalled
    deadline = time.monotonic() + _ROUNDS_S
    while True:
        found = _pids(proc)
        todo = [pid for pid in found if pid not in seen]
        if not todo or time.monotonic() > deadline:
            return found
        _send(todo, signal.SIGSTOP)
        seen.update(todo)


def _kill_all_but(proc: BotProcess, spare: set[int], found: list[int]) -> None:
    """SIGKILL every process of the bot but ``spare`` until they are gone (a process that got
    SIGKILL runs no more code, but shows until it has exited). ``found``: its processes as
    ``_stop_all`` left them, all stopped, so none has forked since."""
    deadline = time.monotonic() + _ROUNDS_S
    while others := [pid for pid in found if pid not in spare]:
        if time.monotonic() > deadline:
            return
        _send(others, signal.SIGKILL)
        time.sleep(0.001)
        found = members(proc)


def _send(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def hold(proc: BotProcess) -> None:
    """Between matches: stop the bot's program and kill every process of the bot but the bot
    itself.

    Once the bot itself is known (from the last time it was held), its program is stopped
    through its pidfd and bwrap's helpers are checked through theirs, then the cgroup is read
    once: when those very processes, all still there, are all it holds, the program forked
    nothing before its stop and can fork nothing since (the helpers never fork), so there is
    nothing to kill and nothing more to read (a pidfd is never mistaken for a newer process
    with the same pid). Otherwise, every process is stopped in rounds, the bot itself found
    anew and the others killed; then the helpers run again."""
    known = proc.itself and _signal_itself(proc, signal.SIGSTOP)
    if known and set(_pids(proc)) == proc.itself.keys():
        return
    stats = _live(_stop_all(proc))
    chain = itself(proc, stats)
    _remember(proc, chain)
    _kill_all_but(proc, set(chain), list(stats))
    for fd in list(proc.itself.values())[:-1]:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            signal.pidfd_send_signal(fd, signal.SIGCONT)


def _remember(proc: BotProcess, chain: list[int]) -> None:
    """Keep a pidfd of each process of the bot itself, in ``chain``'s order (the program last),
    opened anew (they are stopped: none can exit and leave its pid to another meanwhile), and
    none of those kept before (one may be of a process gone whose pid another of the bot now
    has)."""
    for fd in proc.itself.values():
        os.close(fd)
    proc.itself.clear()
    for pid in chain:
        with contextlib.suppress(ProcessLookupError):
            proc.itself[pid] = os.pidfd_open(pid)


def _signal_itself(proc: BotProcess, sig: int) -> bool:
    """Send ``sig`` to the bot's program and check that each helper above it is still there
    (signal 0 delivers nothing); False if one of them is gone (or could not be signalled, as
    ``_send`` allows, or none is known)."""
    if not proc.itself:
        return False
    *helpers, program = proc.itself.values()
    sent = True
    for fd, what in [*((fd, 0) for fd in helpers), (program, sig)]:
        try:
            signal.pidfd_send_signal(fd, what)
        except (ProcessLookupError, PermissionError):
            sent = False
    return sent


def release(proc: BotProcess) -> None:
    """Its next match begins: let the bot's program run again (whatever else the cgroup may
    hold, if the rounds of ``hold`` ran out of time, stays stopped until it is killed)."""
    _signal_itself(proc, signal.SIGCONT)


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
