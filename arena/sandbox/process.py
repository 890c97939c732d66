"""Bot processes: start one at a sandbox level, watch it, and make sure every process of it is
gone afterwards.

Every level runs the bot in its own session and process group with a filtered environment,
stdin closed (or a pipe for stdio bots), its output in a log file, rlimits, and a parent-death
signal so a dying referee takes its bots along. A cgroup caps memory and processes wherever one
can be made. ``uid`` adds a leased uid and seccomp; ``bwrap`` adds namespaces and a minimal
read-only filesystem on top (see ``bwrap.py``).

A failure that is this machine's (``host.py``) raises ``HostError``: the referee voids the match
instead of blaming the bot. Python bots run with Arena's own interpreter, so before the first one
starts at a confining level, that interpreter is run once as a bot for real.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import resource
import select
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import bwrap, cores, host, paths, seccomp, uids
from .cgroups import Cgroup, Reading
from .limits import SandboxLimits
from .probe import HostError, choose, probe
from .workdirs import match_directory

LOG_TAIL_BYTES = 4096
# bwrap's two helper processes (monitor and pid-namespace init) count against pids.max.
_HELPER_PROCESSES = 2
INTERPRETER_CHECK_S = 30.0  # generous: a loaded machine may take seconds to import zmq
# Without a memory cgroup, RLIMIT_AS is the only cap: generous, as runtimes reserve far more
# address space than they use (Node's V8 cage, the JVM heap).
_MIN_ADDRESS_SPACE_MB = 4096

# Environment variables passed through to bots; everything else of the referee's stays private.
_PASSED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "HOME")
_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|.)")


def clean_output(text: str) -> str:
    """What a bot printed, safe to store and show: ANSI escape sequences and control characters
    (but newline and tab) removed, so no log moves a reader's cursor or retitles a terminal."""
    return "".join(c for c in _ANSI.sub("", text) if c.isprintable() or c in "\n\t")


def bot_environment(extra: Mapping[str, str]) -> dict[str, str]:
    env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


_libc = ctypes.CDLL(None, use_errno=True)
_RUNNING: dict[int, BotProcess] = {}  # by pid: bots started here and not yet killed
_INTERPRETER_WORKS: set[str] = set()  # levels at which Arena's Python ran as a bot
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Usage:
    """What a bot used during the match (None where this machine cannot measure it)."""

    cpu_ms: float | None = None
    peak_memory_kb: int | None = None
    oom_killed: bool = False


def _rlimits(limits: SandboxLimits, memory_capped: bool) -> list[tuple[int, int]]:
    mb = 1 << 20
    found = [
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_FSIZE, limits.file_mb * mb),
        (resource.RLIMIT_NOFILE, limits.open_files),
    ]
    if not memory_capped:
        found.append((resource.RLIMIT_AS, max(_MIN_ADDRESS_SPACE_MB, 4 * limits.memory_mb) * mb))
    return found


@dataclass
class _Child:
    """Runs in the child between fork and exec, as root until it drops to ``uid``."""

    referee_pid: int
    cgroup: Cgroup | None
    limits: list[tuple[int, int]]
    cpu_s: int
    cores: frozenset[int] | None = None  # None: the referee's, inherited
    uid: int | None = None
    processes: int = 0
    seccomp_filter: Any = None

    def __call__(self) -> None:
        step = "cores"
        try:
            if self.cores is not None:
                os.sched_setaffinity(0, self.cores)
            step = "cgroup join"
            if self.cgroup is not None:
                self.cgroup.join()
            step = "rlimits"
            for kind, value in self.limits:
                resource.setrlimit(kind, (value, value))
            resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_s, self.cpu_s + 1))
            if self.uid is not None:
                step = "uid change"
                # A leased uid is this bot's alone, so the per-uid RLIMIT_NPROC is a second
                # fork cap.
                resource.setrlimit(resource.RLIMIT_NPROC, (self.processes, self.processes))
                os.setgroups([])
                os.setresgid(self.uid, self.uid, self.uid)
                os.setresuid(self.uid, self.uid, self.uid)
            # After the uid change, which clears it. If the referee died before this took
            # effect the child has been re-parented already and leaves at once.
            _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != self.referee_pid:
                os._exit(1)
            step = "seccomp load"
            if self.seccomp_filter is not None:
                self.seccomp_filter.load()  # sets NO_NEW_PRIVS: setuid binaries gain nothing
        except BaseException as exc:  # the launcher turns it into a HostError naming the step
            host.report_in_child(step, exc)
            raise


@dataclass
class BotProcess:
    """A running bot. ``pidfd`` becomes readable the moment the process exits."""

    popen: subprocess.Popen[bytes]
    pidfd: int
    log_path: Path
    level: str
    stdin: int | None = None  # pipe fds of a stdio bot, non-blocking
    stdout: int | None = None
    cgroup: Cgroup | None = None
    lease: uids.UidLease | None = None
    # The bot itself as it was last held between matches (kept.py): a pidfd of each process.
    itself: dict[int, int] = field(default_factory=dict)
    _final_usage: Usage | None = None

    @property
    def pid(self) -> int:
        return self.popen.pid

    def poll(self) -> int | None:
        """The exit code (negative: killed by that signal), or None while running."""
        code = self.popen.poll()
        # bwrap reports a bot killed by signal N as exit status 128 + N.
        if self.level == "bwrap" and code is not None and 128 < code <= 128 + signal.NSIG:
            return -(code - 128)
        return code

    def exited_within(self, timeout_s: float) -> int | None:
        """Wait up to ``timeout_s`` for the process to exit: its exit code (as ``poll``), or
        None while it runs. (``poll()`` on the pidfd: ``select()`` fails on descriptors
        numbered 1024 or more, which a busy server or worker reaches.)"""
        waiting = select.poll()
        waiting.register(self.pidfd, select.POLLIN)
        waiting.poll(timeout_s * 1000)
        return self.poll()

    def kill(self) -> None:
        """SIGKILL every process of the bot, reap it, keep its usage, free its cgroup and uid."""
        _RUNNING.pop(self.popen.pid, None)
        if self.cgroup is not None:
            self.cgroup.kill()
        elif self.lease is not None:
            uids.kill_all(self.lease.uid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait()
        if self.cgroup is not None:
            self._final_usage = self.usage()
            self.cgroup.remove()
            self.cgroup = None
        if self.lease is not None:
            self.lease.release()
            self.lease = None
        for pipe in (self.popen.stdin, self.popen.stdout):
            if pipe is not None:
                pipe.close()
        self.stdin = self.stdout = None
        if self.pidfd >= 0:
            os.close(self.pidfd)
            self.pidfd = -1
        for fd in self.itself.values():
            os.close(fd)
        self.itself.clear()

    def usage(self) -> Usage:
        """CPU time and peak memory of all the bot's processes; final once it is killed."""
        if self._final_usage is not None:
            return self._final_usage
        if self.cgroup is None:
            return Usage()
        f = self.cgroup.figures()
        return Usage(f.cpu_ms, f.peak_memory_kb, f.oom_killed)

    def reading(self) -> Reading:
        """Its CPU time and waits for a CPU so far (unmeasured without a cgroup, or killed)."""
        return self.cgroup.reading() if self.cgroup is not None else Reading()

    def log_tail(self, limit: int = LOG_TAIL_BYTES) -> str:
        """At most ``limit`` bytes of the bot's output, without ANSI escapes or control chars:
        all of it, or its head and tail around a ``[... N bytes cut ...]`` line (Node and Java
        print the error that matters first, the last words of a bot come at the end)."""
        try:
            size = self.log_path.stat().st_size
            if not size:  # most bots print nothing: not opened after each match
                return ""
            with self.log_path.open("rb") as f:
                if size <= limit:
                    data = f.read(limit)
                else:
                    head = f.read(limit // 4)
                    f.seek(size - (limit - len(head)))
                    cut = size - limit
                    data = head + f"\n[... {cut} bytes cut ...]\n".encode() + f.read()
        except OSError:
            return ""
        return clean_output(data.decode("utf-8", "replace"))


def _socket_from(env: Mapping[str, str]) -> Path | None:
    """The ipc socket named by ``ARENA_ENDPOINT``, for callers that do not pass ``socket_path``."""
    endpoint = env.get("ARENA_ENDPOINT", "")
    return Path(endpoint[len("ipc://") :]) if endpoint.startswith("ipc://") else None


def _give_socket(socket_path: Path, uid: int) -> None:
    """Only the bot's uid may connect; its directory becomes traversable, not listable."""
    os.chown(socket_path, uid, uid)
    os.chmod(socket_path, 0o600)
    os.chmod(socket_path.parent, 0o711)


def _give_tree(folder: Path, uid: int) -> None:
    """The bot's uid owns ``folder`` and everything in it (symlinks themselves, not followed)."""
    for top, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            os.lchown(os.path.join(top, name), uid, uid)
    os.chown(folder, uid, uid)


def launch(
    argv: Sequence[str],
    *,
    cwd: Path | None,
    env: Mapping[str, str],
    log_path: Path,
    limits: SandboxLimits | None = None,
    socket_path: Path | None = None,
    stdio: bool = False,
    level: str | None = None,
    writable: Path | None = None,
) -> BotProcess:
    """Start ``argv`` at ``level`` (None: ``$ARENA_SANDBOX`` or the strongest available).

    Raises SandboxError if ``level`` is not available here, HostError when this machine fails
    to start it (see ``host.py``), OSError when the bot's own program does not exist or is not
    a program, BotPathError (an OSError) when its command names something outside its folder
    ``cwd`` that is not part of the runtime (``paths.py``), at every level.

    ``socket_path`` is the bot's own ipc socket file (made reachable to it, and to no other
    bot). With ``stdio`` the bot's stdin and stdout are pipes to the referee
    (``BotProcess.stdin`` / ``.stdout``, non-blocking); otherwise both go to its log, like
    stderr. ``writable`` is a folder the process may write (a bot version's build): it is
    handed to the leased uid, and the caller takes it back afterwards (``content.seal``).
    """
    level = choose(level)
    if level != "rlimits" and argv and argv[0] == sys.executable:
        problem = interpreter_problem(level)
        if problem:
            raise HostError(problem)
    return _launch(
        argv, cwd, env, log_path, limits or SandboxLimits(), socket_path, stdio, level, writable
    )


def _launch(
    argv: Sequence[str],
    cwd: Path | None,
    env: Mapping[str, str],
    log_path: Path,
    limits: SandboxLimits,
    socket_path: Path | None,
    stdio: bool,
    level: str,
    writable: Path | None = None,
) -> BotProcess:
    socket_path = socket_path or _socket_from(env)
    found = probe()
    sandboxed = level != "rlimits"
    cgroup = lease = None
    step = "cgroup"
    try:
        if found.has("cgroup"):
            cgroup = Cgroup(limits.memory_mb, limits.processes + _HELPER_PROCESSES, limits.cpus)
        step = "uid lease"
        if sandboxed and found.has("uid"):
            lease = uids.UidLease()
        rlimits = _rlimits(limits, cgroup is not None)
        child = _Child(os.getpid(), cgroup, rlimits, limits.cpu_s, cores.for_bot(limits.cpus))
        if lease is not None and socket_path is not None:
            _give_socket(socket_path, lease.uid)
        if lease is not None and writable is not None:
            _give_tree(writable, lease.uid)
        pass_fds: tuple[int, ...]
        command, workdir, pass_fds = list(argv), cwd, ()
        step = "bot program"
        seen = paths.view(argv, cwd or Path.cwd(), env.get("PATH"), cwd, limits.runtime_paths)
        step = "seccomp filter"
        if level == "uid":
            child.uid, child.processes = lease.uid if lease else None, limits.processes
            child.seccomp_filter = seccomp.filter_once()
        if level == "bwrap":
            workdir = cwd or Path.cwd()
            pass_fds = (seccomp.bpf_fd(),)
            runtime = paths.runtime_binds(env.get("PATH"), limits.runtime_paths)
            command = bwrap.command(
                [seen.program, *argv[1:]],
                cwd=workdir,
                binds=[*seen.binds, *runtime],
                socket=socket_path,
                uid=lease.uid if lease else bwrap.NOBODY,
                tmp_mb=limits.tmp_mb,
                seccomp_fd=pass_fds[0],
                writable=writable,
            )
            workdir = Path("/")
        step = "start"
        popen = None
        try:
            popen = _start(command, workdir, env, log_path, stdio, child, pass_fds)
            pidfd = os.pidfd_open(popen.pid)
        except BaseException:
            if popen is not None:  # started, but cannot be watched: it must not run unseen
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(popen.pid, signal.SIGKILL)
                popen.wait()
            raise
        finally:
            for fd in pass_fds:
                os.close(fd)
    except BaseException as exc:
        if cgroup is not None:
            with contextlib.suppress(OSError):
                cgroup.kill()
                cgroup.remove()
        if lease is not None:
            lease.release()
        _raise_for(exc, step, argv[0], level, log_path)
        raise
    proc = BotProcess(popen, pidfd, log_path, level, cgroup=cgroup, lease=lease)
    _RUNNING[popen.pid] = proc
    if stdio:
        assert popen.stdin is not None and popen.stdout is not None
        proc.stdin, proc.stdout = popen.stdin.fileno(), popen.stdout.fileno()
        os.set_blocking(proc.stdin, False)
        os.set_blocking(proc.stdout, False)
    return proc


def _raise_for(exc: BaseException, step: str, program: str, level: str, log: Path) -> None:
    """Raise what ``launch`` promises for a failure at ``step``; return for the rest (the
    caller re-raises ``exc`` itself: interrupts, and the bot's own missing program)."""
    if isinstance(exc, HostError | KeyboardInterrupt | SystemExit):
        return
    if step == "bot program":
        return  # paths.view: the bot's program does not exist, or names what it may not
    if isinstance(exc, subprocess.SubprocessError):  # the child failed before exec
        raise HostError(f"{level}: could not set up the bot's process: {host.child_report(log)}")
    if step == "start" and isinstance(exc, OSError):
        failure = host.start_failure(exc, program, level)
        if failure is exc:
            return
        raise failure from None
    if isinstance(exc, Exception):
        raise host.setup_failure(step, exc) from None


def interpreter_problem(level: str) -> str:
    """Empty if Arena's own Python, the one Python bots run with, starts as a bot at ``level``
    and imports the bot SDK; else why not and what to fix. Once per process and level when it
    works; a failure is tried again next time (it may have been passing, like a full uid pool)."""
    if level in _INTERPRETER_WORKS:
        return ""
    problem = _run_interpreter(level)
    if not problem:
        _INTERPRETER_WORKS.add(level)
    return problem


def _run_interpreter(level: str) -> str:
    with match_directory() as folder:
        argv = [sys.executable, "-c", "import protocol.bot"]
        env = bot_environment({})
        try:
            proc = _launch(argv, Path("/"), env, folder / "python.log", SandboxLimits(),
                           None, False, level)  # fmt: skip
        except HostError as exc:
            return f"{exc} (Arena's Python, which Python bots run with)"
        try:
            code = proc.exited_within(INTERPRETER_CHECK_S)
        finally:
            proc.kill()
        if code == 0:
            return ""
        lines = [line for line in proc.log_tail().splitlines() if line.strip()]
        why = lines[-1] if lines else f"exit status {code}"
    return (
        f"{level}: Arena's Python {sys.executable}, which Python bots run with, does not start "
        f"as a bot ({why}): {host.reachability_hint(sys.executable)}"
    )


def kill_running() -> None:
    """Kill every bot this process started and has not killed yet: a worker told to stop in
    the middle of a match. Through the cgroup and the uid, not just the process group, so
    nothing a bot left in its sandbox (bwrap's init, a daemon) outlives the worker."""
    for proc in list(_RUNNING.values()):
        with contextlib.suppress(Exception):  # best effort: the worker exits right after
            proc.kill()


def _start(
    command: list[str],
    cwd: Path | None,
    env: Mapping[str, str],
    log_path: Path,
    stdio: bool,
    child: _Child,
    pass_fds: Sequence[int],
) -> subprocess.Popen[bytes]:
    with log_path.open("wb") as log:
        os.fchmod(log.fileno(), 0o600)  # other bots' uids must not read it
        return subprocess.Popen(
            command,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE if stdio else subprocess.DEVNULL,
            stdout=subprocess.PIPE if stdio else log,
            stderr=log if stdio else subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=child,
            close_fds=True,
            pass_fds=pass_fds,
        )
