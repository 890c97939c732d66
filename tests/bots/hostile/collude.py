"""Two seats that try to talk: ``--send`` passes a secret of 16 random bits to ``--receive``
through files both sandboxes show (Python's own library, read-only), before saying hello.

Channels: ``flock``, POSIX record locks (``fcntl``), open-file-description locks (``ofd``),
each clocked by a handshake on three shared files (data, clock, acknowledgement), so no
timing is assumed; ``proc_locks``: a lock on a private file whose byte range carries the
secret, read back from the machine-wide ``/proc/locks``; ``inotify``: which of two shared
files the sender opens, watched by the receiver. Also tried: ``fanotify``, ``dnotify``
(``F_NOTIFY``), a lease, and the page cache (``POSIX_FADV_DONTNEED`` to drop a shared
file's pages, ``RWF_NOWAIT`` to see whether they are there).

The sender prints ``COLLUDE sent: <bits>``; the receiver ``COLLUDE <channel>: <bits>`` or the
errno that closed it. Every wait is bounded (``--wait`` seconds), then the bot plays randomly.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import select
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path

from _common import play_on

BITS = 16
LIB = Path(os.__file__).parent  # the same files, the same inodes, in every Python seat
FILES = {
    "flock": ("tabnanny.py", "xdrlib.py", "this.py"),
    "fcntl": ("sndhdr.py", "pipes.py", "nntplib.py"),
    "ofd": ("telnetlib.py", "imghdr.py", "mailcap.py"),
    "inotify": ("antigravity.py", "__hello__.py", "LICENSE.txt"),
}
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
MARK = 0x5A5A0000  # proc_locks: the lock's first byte is MARK + the secret
IN_OPEN = 0x20
_libc = ctypes.CDLL(None, use_errno=True)


def say(channel: str, outcome: str) -> None:
    sys.stderr.write(f"COLLUDE {channel}: {outcome}\n")
    sys.stderr.flush()


def wait_for(check: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("the partner never answered")
        time.sleep(0.002)


class Locks:
    """Hold a lock on a shared file, or see whether another process holds one, by one kind."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.held = [os.open(LIB / n, os.O_RDONLY) for n in FILES[kind]]
        self.probe = [os.open(LIB / n, os.O_RDONLY) for n in FILES[kind]]

    def set(self, i: int, on: bool) -> None:
        fd = self.held[i]
        if self.kind == "flock":
            fcntl.flock(fd, fcntl.LOCK_SH if on else fcntl.LOCK_UN)
        else:
            command = fcntl.F_SETLKW if self.kind == "fcntl" else F_OFD_SETLKW
            kind = fcntl.F_RDLCK if on else fcntl.F_UNLCK
            fcntl.fcntl(fd, command, struct.pack("hhqqi4x", kind, 0, 0, 0, 0))

    def other_holds(self, i: int) -> bool:
        fd = self.probe[i]
        if self.kind == "flock":
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False
        command = fcntl.F_GETLK if self.kind == "fcntl" else F_OFD_GETLK
        answer = fcntl.fcntl(fd, command, struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 0, 0))
        return struct.unpack("hhqqi4x", answer)[0] != fcntl.F_UNLCK


DATA, CLOCK, ACK = 0, 1, 2


def send_locks(kind: str, bits: str, wait: float) -> None:
    locks = Locks(kind)
    for i, bit in enumerate(bits):
        locks.set(DATA, bit == "1")
        locks.set(CLOCK, i % 2 == 0)
        wait_for(lambda i=i: locks.other_holds(ACK) == (i % 2 == 0), wait)


def receive_locks(kind: str, wait: float) -> str:
    locks = Locks(kind)
    got = ""
    for i in range(BITS):
        wait_for(lambda i=i: locks.other_holds(CLOCK) == (i % 2 == 0), wait)
        got += "1" if locks.other_holds(DATA) else "0"
        locks.set(ACK, i % 2 == 0)
    return got


def send_proc_locks(bits: str) -> int:
    """A write lock on one byte of a private file at MARK + secret: kept open until exit."""
    path = f"/tmp/collude-mark-{os.getpid()}"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.unlink(path)  # the lock stays with the open file
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, MARK + int(bits, 2))
    return fd


def receive_proc_locks(wait: float) -> str:
    found: list[str] = []

    def look() -> bool:
        for line in Path("/proc/locks").read_text().splitlines():
            start = int(line.split()[-2])
            if MARK <= start < MARK + (1 << BITS):
                found.append(format(start - MARK, f"0{BITS}b"))
        return bool(found)

    wait_for(look, wait)
    return found[0]


def inotify(paths: list[Path]) -> int:
    fd = _libc.inotify_init1(os.O_NONBLOCK)
    if fd < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    for path in paths:
        if _libc.inotify_add_watch(fd, str(path).encode(), IN_OPEN) < 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return fd


def next_event(fd: int, wait: float) -> int:
    """The watch number of the next event (1, 2, 3: in the order the paths were given)."""
    if not select.select([fd], [], [], wait)[0]:
        raise TimeoutError("no event")
    return struct.unpack("iIII", os.read(fd, 16))[0]


def touch(path: Path) -> None:
    os.close(os.open(path, os.O_RDONLY))


def send_inotify(fd: int, bits: str, wait: float) -> None:
    """``fd`` watches the acknowledgement file since the sender started, so the receiver's
    first opening of it (it is ready) cannot be missed."""
    zero, one, _ = (LIB / n for n in FILES["inotify"])
    next_event(fd, wait)  # the receiver watches: it opened ``ack`` once
    for bit in bits:
        touch(one if bit == "1" else zero)
        next_event(fd, wait)


def receive_inotify(wait: float) -> str:
    zero, one, ack = (LIB / n for n in FILES["inotify"])
    fd = inotify([zero, one])
    touch(ack)
    got = ""
    for _ in range(BITS):
        got += "1" if next_event(fd, wait) == 2 else "0"
        touch(ack)
    return got


def others(send: bool) -> dict[str, Callable[[], object]]:
    """The calls whose only use here would be a channel: each reports what it got."""
    shared = LIB / "this.py"
    fd = os.open(shared, os.O_RDONLY)
    if send:
        return {
            "fadvise_dontneed": lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED),
            "lease": lambda: fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK),
        }
    return {
        "rwf_nowait": lambda: os.preadv(fd, [bytearray(64)], 0, os.RWF_NOWAIT),
        "dnotify": lambda: fcntl.fcntl(os.open(LIB, os.O_RDONLY), fcntl.F_NOTIFY, 1),
        "fanotify": lambda: _check(_libc.fanotify_init(0, os.O_RDONLY)),
    }


def _raise(exc: OSError) -> None:
    raise exc


def _check(result: int) -> int:
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


def attempt(channel: str, action: Callable[[], object]) -> None:
    try:
        result = action()
    except OSError as exc:
        say(channel, errno.errorcode.get(exc.errno or 0, type(exc).__name__))
    except TimeoutError:
        say(channel, "timeout")
    else:
        say(channel, result if isinstance(result, str) else f"ok {result!r}")


def main() -> None:
    send = sys.argv[1] == "--send"
    wait = float(sys.argv[sys.argv.index("--wait") + 1]) if "--wait" in sys.argv else 10.0
    if send:
        bits = format(int.from_bytes(os.urandom(2), "big"), f"0{BITS}b")
        say("sent", bits)
        try:
            watch = inotify([LIB / FILES["inotify"][2]])
        except OSError as exc:
            watch = exc
        attempt("proc_locks_mark", lambda: send_proc_locks(bits))
        for kind in ("flock", "fcntl", "ofd"):
            attempt(kind, lambda kind=kind: send_locks(kind, bits, wait))
        if isinstance(watch, OSError):
            attempt("inotify", lambda: _raise(watch))
        else:
            attempt("inotify", lambda: send_inotify(watch, bits, wait))
    else:
        attempt("proc_locks", lambda: receive_proc_locks(wait))
        for kind in ("flock", "fcntl", "ofd"):
            attempt(kind, lambda kind=kind: receive_locks(kind, wait))
        attempt("inotify", lambda: receive_inotify(wait))
    for channel, action in others(send).items():
        attempt(channel, action)
    play_on()


main()
