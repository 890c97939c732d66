"""Per-bot uids: each running bot on the machine gets its own uid, so bots cannot signal,
trace or read each other, nor the referee.

A uid from 40000-40999 is leased by holding an exclusive ``flock`` on a lock file named after
it, in a root-only directory. The lock is held for the bot's whole life and dies with the
holder, so concurrent matches in separate processes never share a uid and a crashed referee
leaks nothing.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import signal
from pathlib import Path

FIRST_UID = 40000
LAST_UID = 40999
LOCK_DIR = Path("/run/arena-sandbox/uids")


def check() -> str:
    """Empty if bot uids can be used here, else why not."""
    if os.geteuid() != 0:
        return "uid: not root"
    try:
        _lock_dir()
        UidLease().release()  # lease one for real, as every launch will
    except OSError as exc:
        return f"uid: cannot lease a bot uid from {LOCK_DIR} ({exc.strerror or exc})"
    return ""


def _lock_dir() -> Path:
    LOCK_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    return LOCK_DIR


class UidLease:
    """One leased uid (also used as the gid); ``release`` once every process of it is gone."""

    def __init__(self) -> None:
        folder = _lock_dir()
        count = LAST_UID - FIRST_UID + 1
        start = random.randrange(count)  # spread concurrent referees over the range
        for i in range(count):
            uid = FIRST_UID + (start + i) % count
            fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            return
        raise OSError(f"no free bot uid in {FIRST_UID}-{LAST_UID}")

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def kill_all(uid: int) -> None:
    """SIGKILL every process running as ``uid`` (used when no cgroup holds the bot).

    A child takes the uid and calls ``kill(-1)``, which reaches exactly the processes of that
    uid; it cannot signal itself, and needs no scan of /proc that a forking bot could outrun.
    """
    pid = os.fork()
    if pid == 0:
        try:
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            for _ in range(3):  # again, for children forked while the first round ran
                with contextlib.suppress(ProcessLookupError):
                    os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
