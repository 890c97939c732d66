"""Bot processes: start one, watch it, and make sure every process of it is gone afterwards.

Current level: ``rlimits``: each bot runs in its own session and process group, with a filtered
environment, stdin closed, stdout and stderr going to a log file in the match's private
directory, and resource limits (no core files, bounded file size and open files). The
stronger layers of DESIGN.md section 5 (bubblewrap, cgroups, separate uid, seccomp) come on top
of this interface without changing its callers.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import resource
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .limits import SandboxLimits

LEVEL = "rlimits"
LOG_TAIL_BYTES = 4096
MAX_LOG_BYTES = 16 << 20
MAX_OPEN_FILES = 1024

# Environment variables passed through to bots; everything else of the referee's stays private.
_PASSED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "HOME")


def bot_environment(extra: Mapping[str, str]) -> dict[str, str]:
    env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1


def _limit_resources(referee_pid: int) -> None:  # runs in the child between fork and exec
    # If the referee dies (even by SIGKILL) the bot gets SIGKILL too; if it died before the
    # prctl took effect, the bot has been re-parented already and leaves at once.
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != referee_pid:
        os._exit(1)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_LOG_BYTES, MAX_LOG_BYTES))
    resource.setrlimit(resource.RLIMIT_NOFILE, (MAX_OPEN_FILES, MAX_OPEN_FILES))


@dataclass(frozen=True)
class Usage:
    """What a bot used during the match (None where this level cannot measure it)."""

    cpu_ms: float | None = None
    peak_memory_kb: int | None = None
    oom_killed: bool = False


@dataclass
class BotProcess:
    """A running bot. ``pidfd`` becomes readable the moment the process exits."""

    popen: subprocess.Popen[bytes]
    pidfd: int
    log_path: Path
    level: str = LEVEL
    stdin: int | None = None  # pipe fds of a stdio bot, non-blocking
    stdout: int | None = None

    @property
    def pid(self) -> int:
        return self.popen.pid

    def poll(self) -> int | None:
        """The exit code (negative: killed by that signal), or None while running."""
        return self.popen.poll()

    def kill(self) -> None:
        """SIGKILL the bot's whole process group, then reap the bot and close the pidfd."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait()
        for pipe in (self.popen.stdin, self.popen.stdout):
            if pipe is not None:
                pipe.close()
        self.stdin = self.stdout = None
        if self.pidfd >= 0:
            os.close(self.pidfd)
            self.pidfd = -1

    def usage(self) -> Usage:
        """CPU time and peak memory of the bot and its processes; complete once it is killed."""
        return Usage()

    def log_tail(self, limit: int = LOG_TAIL_BYTES) -> str:
        """The last ``limit`` bytes of the bot's output, with control characters removed."""
        try:
            with self.log_path.open("rb") as f:
                f.seek(max(0, self.log_path.stat().st_size - limit))
                data = f.read(limit)
        except OSError:
            return ""
        text = data.decode("utf-8", "replace")
        return "".join(c for c in text if c.isprintable() or c in "\n\t")


def launch(
    argv: Sequence[str],
    *,
    cwd: Path | None,
    env: Mapping[str, str],
    log_path: Path,
    limits: SandboxLimits | None = None,
    socket_path: Path | None = None,
    stdio: bool = False,
) -> BotProcess:
    """Start ``argv`` in its own process group; raises OSError if it cannot be executed.

    ``socket_path`` is the bot's own ipc socket file (made reachable to it, and to no other
    bot). With ``stdio`` the bot's stdin and stdout are pipes to the referee
    (``BotProcess.stdin`` / ``.stdout``, non-blocking); otherwise both go to its log, like stderr.
    """
    del socket_path, limits
    with log_path.open("wb") as log:
        popen = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE if stdio else subprocess.DEVNULL,
            stdout=subprocess.PIPE if stdio else log,
            stderr=log if stdio else subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=functools.partial(_limit_resources, os.getpid()),
            close_fds=True,
        )
    proc = BotProcess(popen, os.pidfd_open(popen.pid), log_path)
    if stdio:
        assert popen.stdin is not None and popen.stdout is not None
        proc.stdin, proc.stdout = popen.stdin.fileno(), popen.stdout.fileno()
        os.set_blocking(proc.stdin, False)
        os.set_blocking(proc.stdout, False)
    return proc
