"""One cgroup per bot: memory and process caps, CPU accounting, and a way to kill every process.

Supports cgroup v2 (one unified tree) and v1 (one tree per controller; Debian hosts in hybrid
mode). Memory is capped here, not with RLIMIT_AS, so runtimes that reserve large address ranges
(Node, the JVM, Go) still start. CPU is capped at a number of cores (a CFS quota), so a bot that
spins up processes or threads cannot starve the other bots' clocks. Our cgroups live under an
``arena`` directory in each tree.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_V1_CONTROLLERS = ("memory", "pids", "cpuacct", "cpu")  # v1 trees; cpu may share cpuacct's
_CPU_PERIOD_US = 100_000
_KILL_TIMEOUT_S = 5.0
_counter = itertools.count()


@dataclass(frozen=True)
class Figures:
    """What the cgroup measured (None where the kernel does not report it)."""

    cpu_ms: float | None
    peak_memory_kb: int | None
    oom_killed: bool


def version() -> int:
    """2 on a unified hierarchy, else 1 (v1 or hybrid)."""
    return 2 if (ROOT / "cgroup.controllers").exists() else 1


def _parents() -> dict[str, Path]:
    """Our parent cgroup for each controller (on v1 co-mounted controllers share one)."""
    if version() == 2:
        return dict.fromkeys(_V1_CONTROLLERS, ROOT / "arena")
    return {c: (ROOT / c).resolve() / "arena" for c in _V1_CONTROLLERS}


def check() -> str:
    """Empty if bot cgroups can be made here, else why not."""
    if version() == 2:
        available = (ROOT / "cgroup.controllers").read_text().split()
        missing = [c for c in ("memory", "pids") if c not in available]
        if missing:
            return f"cgroup: v2 controllers {', '.join(missing)} not available"
    else:
        for c in _V1_CONTROLLERS:
            if not (ROOT / c / "cgroup.procs").exists():
                return f"cgroup: {ROOT / c} not mounted"
    try:
        _prepare_parents()
        Cgroup(64, 8, 1).remove()  # write to the tree for real, as every launch will
    except OSError as exc:
        where = exc.filename or ROOT
        return (
            f"cgroup: {where} not writable ({exc.strerror}): bots get no cgroup caps; make the "
            "tree writable by this user (root, or a delegated subtree)"
        )
    return ""


@functools.cache
def _prepare_parents() -> None:
    """Make our parent cgroups (once per process) and sweep those left by dead referees.

    A referee killed at the wrong moment can leave a bot behind: bubblewrap clears the
    parent-death signal when it drops privileges and sets its own only later, so a referee that
    dies in between is not noticed. Its cgroup still holds every process of that bot: they are
    killed here before the cgroup is removed.
    """
    for parent in dict.fromkeys(_parents().values()):
        parent.mkdir(exist_ok=True)
        for child in parent.glob("bot-*"):
            owner = child.name.split("-")[1]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                with contextlib.suppress(OSError):
                    _kill_all(child)
                    child.rmdir()
    if version() == 2:  # controllers must be enabled top-down for a child to get them
        for path in (ROOT, ROOT / "arena"):
            enabled = (path / "cgroup.subtree_control").read_text().split()
            wanted = [c for c in ("memory", "pids", "cpu") if c not in enabled]
            if wanted:
                (path / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in wanted))


def _kill_all(folder: Path) -> None:
    """SIGKILL every process in the cgroup ``folder`` until it is empty (bounded)."""
    deadline = time.monotonic() + _KILL_TIMEOUT_S
    while (pids := (_read(folder / "cgroup.procs") or "").split()) and time.monotonic() < deadline:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
        time.sleep(0.001)


def _write(path: Path, value: str | int) -> None:
    with open(path, "w") as f:
        f.write(str(value))


def read_whole(path: str, chunk: int = 1 << 16) -> bytes:
    """A whole file of ``/proc`` or ``/sys`` in few system calls (open, reads, close)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        parts = [os.read(fd, chunk)]
        while len(parts[-1]) == chunk:  # a full read: there may be more
            parts.append(os.read(fd, chunk))
        return b"".join(parts)
    finally:
        os.close(fd)


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _keyed(text: str | None, key: str) -> int | None:
    """The value of ``key`` in a flat-keyed cgroup file such as ``memory.events``."""
    for line in (text or "").splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    return None


@dataclass(frozen=True)
class Reading:
    """What a bot has had of the machine so far (milliseconds, None where not measured).

    ``cpu_ms``: CPU time used by all its processes; ``wait_ms``: time it was ready to run but
    waited for a CPU (the host's doing, or its own CPU quota's): on cgroup v2 the cgroup's CPU
    pressure (time at least one of its tasks waited), on v1 the sum of its threads' run-queue
    delays (``/proc/TID/schedstat``), which counts a multi-threaded bot's waits once per thread.
    """

    cpu_ms: float | None = None
    wait_ms: float | None = None


class Counters:
    """Counter files read again and again through descriptors kept open (``pread`` at 0: a
    few microseconds, against tens for an open and read), so reading them at every decision
    costs the referee next to nothing. A file that cannot be read reads as None."""

    def __init__(self) -> None:
        self.fds: dict[str, int] = {}

    def read(self, path: str) -> str | None:
        try:
            fd = self.fds.get(path)
            if fd is None:
                fd = self.fds[path] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            return os.pread(fd, 4096, 0).decode()
        except OSError:  # gone (a thread that ended) or not there on this kernel
            self.forget(path)
            return None

    def forget(self, path: str) -> None:
        fd = self.fds.pop(path, None)
        if fd is not None:
            os.close(fd)

    def run_delay_ms(self, tid: int | str = "thread-self") -> float | None:
        """The time a thread has waited on a run queue for a CPU (its ``schedstat``), in ms."""
        fields = (self.read(f"/proc/{tid}/schedstat") or "").split()
        return int(fields[1]) / 1e6 if len(fields) >= 2 else None

    def close(self) -> None:
        for path in list(self.fds):
            self.forget(path)


class Cgroup:
    """A bot's cgroup: join it between fork and exec, kill it, read its figures, remove it."""

    def __init__(self, memory_mb: int, processes: int, cpus: int) -> None:
        _prepare_parents()
        name = f"bot-{os.getpid()}-{next(_counter)}"
        self.v2 = version() == 2
        self._dir_of = {c: parent / name for c, parent in _parents().items()}
        self.dirs = list(dict.fromkeys(self._dir_of.values()))
        for d in self.dirs:
            d.mkdir()
        try:
            self._limit(memory_mb << 20, processes, cpus * _CPU_PERIOD_US)
        except OSError:
            self.remove()
            raise
        # Ready-made strings, so the child does little between fork and exec.
        self.procs_files = [str(d / "cgroup.procs") for d in self.dirs]
        self.counters = Counters()
        self._members = str(self._file("pids", "cgroup.procs"))
        self._tasks = str(self._file("cpu", "tasks"))
        self._tasks_count = str(self._file("pids", "pids.current"))  # threads too, on v1
        self._threads: list[str] = []  # the bot's threads as last listed (v1)
        self._memory = str(
            self._file("memory", "memory.current" if self.v2 else "memory.usage_in_bytes")
        )

    def _file(self, controller: str, name: str) -> Path:
        return self._dir_of[controller] / name

    def _limit(self, memory_bytes: int, processes: int, cpu_quota_us: int) -> None:
        if self.v2:
            _write(self._file("memory", "memory.max"), memory_bytes)
            with contextlib.suppress(FileNotFoundError):
                _write(self._file("memory", "memory.swap.max"), 0)
            _write(self._file("cpu", "cpu.max"), f"{cpu_quota_us} {_CPU_PERIOD_US}")
        else:
            _write(self._file("memory", "memory.limit_in_bytes"), memory_bytes)
            with contextlib.suppress(FileNotFoundError):  # only with swap accounting
                _write(self._file("memory", "memory.memsw.limit_in_bytes"), memory_bytes)
            _write(self._file("cpu", "cpu.cfs_period_us"), _CPU_PERIOD_US)
            _write(self._file("cpu", "cpu.cfs_quota_us"), cpu_quota_us)
        _write(self._file("pids", "pids.max"), processes)

    def join(self) -> None:
        """Move the calling process in; meant for the child between fork and exec."""
        pid = str(os.getpid()).encode()
        for path in self.procs_files:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)

    def pids(self) -> list[int]:
        """Its processes. On v1 those of its ``pids`` tree: every process joins each tree
        before its program runs and a fork is born in all of them, and only a bot running
        as this user (``rlimits``, unsandboxed) could move itself out of one. Read several
        times between every two matches of a kept bot, so without Python's file objects;
        opened anew each time: on v1 a descriptor kept open reads the list it first read for
        a second after."""
        try:
            return sorted(map(int, read_whole(self._members).split()))
        except OSError:
            return []

    def kill(self) -> None:
        """SIGKILL every process in it until it is empty (new forks are caught next round)."""
        if self.v2 and (self.dirs[0] / "cgroup.kill").exists():
            _write(self.dirs[0] / "cgroup.kill", 1)
        for d in self.dirs:
            _kill_all(d)
        if pids := self.pids():
            raise OSError(errno.EBUSY, f"cgroup {self.dirs[0]} still has processes {pids}")

    def figures(self) -> Figures:
        if self.v2:
            cpu_us = _keyed(_read(self._file("cpu", "cpu.stat")), "usage_usec")
            cpu_ms = None if cpu_us is None else cpu_us / 1000
            peak = _read(self._file("memory", "memory.peak"))
            oom = _keyed(_read(self._file("memory", "memory.events")), "oom_kill")
        else:
            cpu_ns = _read(self._file("cpuacct", "cpuacct.usage"))
            cpu_ms = None if cpu_ns is None else int(cpu_ns) / 1e6
            peak = _read(self._file("memory", "memory.max_usage_in_bytes"))
            oom = _keyed(_read(self._file("memory", "memory.oom_control")), "oom_kill")
        return Figures(
            cpu_ms=cpu_ms,
            peak_memory_kb=None if peak is None else int(peak) // 1024,
            oom_killed=bool(oom),
        )

    def reading(self) -> Reading:
        """The bot's CPU time and its waits for a CPU up to now (read at every decision:
        through kept descriptors, one file for the CPU time and one (v2) or one per thread
        (v1) for the waits)."""
        read = self.counters.read
        if self.v2:
            cpu_us = _keyed(read(str(self._file("cpu", "cpu.stat"))), "usage_usec")
            some = (read(str(self._file("cpu", "cpu.pressure"))) or "").partition("\n")[0]
            total = dict(f.partition("=")[::2] for f in some.split()[1:]).get("total")
            wait_ms = None if total is None else int(total) / 1000
            return Reading(None if cpu_us is None else cpu_us / 1000, wait_ms)
        cpu_ns = read(str(self._file("cpuacct", "cpuacct.usage")))
        delays = [self.counters.run_delay_ms(t) for t in self._threads]
        if None in delays or read(self._tasks_count) != f"{len(self._threads)}\n":
            delays = [self.counters.run_delay_ms(t) for t in self._list_threads()]
        cpu_ms = None if cpu_ns is None else int(cpu_ns) / 1e6
        return Reading(cpu_ms, sum(d for d in delays if d is not None))

    def _list_threads(self) -> list[str]:
        """List the bot's threads (v1) anew, and forget the counters of those gone.

        The list read last stands while every thread on it can still be read through its own
        descriptor (bound to that thread, never to a newer one with its id) and the ``pids``
        tree counts as many: none has ended and none has started. Each new list is read
        through a new descriptor: one kept open and read again within the second lists what
        it first did."""
        try:
            self._threads = read_whole(self._tasks).decode().split()
        except OSError:
            self._threads = []
        for path in [p for p in self.counters.fds if p.endswith("/schedstat")]:
            if path.split("/")[2] not in self._threads:  # a thread that ended
                self.counters.forget(path)
        return self._threads

    def memory_kb(self) -> int | None:
        """The memory it holds now (pages, cache and kernel memory charged to it)."""
        text = self.counters.read(self._memory)  # read for each kept bot after every match
        return None if text is None else int(text) // 1024

    def remove(self) -> None:
        """Remove the (empty) cgroup; the kernel may need a moment after the last exit."""
        self.counters.close()
        for d in self.dirs:
            for _ in range(200):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY:
                        raise
                    time.sleep(0.005)
