"""A seccomp deny-list: no network sockets, no debugging other processes, no new namespaces,
and nothing two bots could meet on in the files every sandbox shows.

Default allow, so any language runtime starts; the listed calls fail with an errno (not a kill)
so a bot sees a clear error it can report. libseccomp kills on a foreign-architecture syscall
by default, which closes 32-bit ``int 0x80`` bypasses.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import socket
from typing import Any

# Every address family except AF_UNIX (the referee's ipc socket) and AF_NETLINK (libc uses it
# to list interfaces; it cannot reach other hosts) is refused at socket().
_ALLOWED_FAMILIES = (socket.AF_UNIX, socket.AF_NETLINK)
_MAX_FAMILY = 64

_DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root",
    "chroot", "unshare", "setns", "bpf", "perf_event_open", "keyctl", "add_key", "request_key",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
    "swapon", "swapoff", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "open_by_handle_at", "name_to_handle_at", "fsopen", "fsmount", "fsconfig", "fspick",
    "move_mount", "open_tree", "acct", "syslog", "quotactl", "iopl", "ioperm", "vhangup",
    "settimeofday", "clock_settime", "adjtimex", "lookup_dcookie",
    # a bot stays on the cores it was started on (cores.py), away from other matches' cores
    "sched_setaffinity",
)  # fmt: skip

# clone() with any namespace flag is refused; clone3() passes its flags in memory a filter
# cannot read, so it gets ENOSYS and libc falls back to clone().
# (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET from <linux/sched.h>)
_NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                    0x40000000)  # fmt: skip


# Seats share read-only files (``/usr``, the interpreter) and could signal each other through
# them: locks (seen by every opener of the file, and machine-wide in /proc/locks), and watches
# that report another process opening or reading a file. A copy of every file per seat cannot
# be made (bind mounts and overlays share the inode, so locks still meet), so these calls are
# refused for every file: locks fail with ENOLCK ("no locks available", as on a file system
# without them), watches with EPERM.
_LOCK_COMMANDS = (5, 6, 7, 36, 37, 38)  # F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK/SETLK/SETLKW
_WATCH_COMMANDS = (1024, 1025, 1026)  # F_SETLEASE, F_GETLEASE, F_NOTIFY (dnotify)
_WATCHES = ("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark")
# The page cache is shared too: one seat could drop a shared file's pages and another see
# whether they are there without timing anything. Dropping becomes a no-op (it is only
# advice), the non-blocking probe is refused, and cachestat does not exist.
_POSIX_FADV_DONTNEED = 4
_MADV_DROPPING = (20, 21)  # MADV_COLD, MADV_PAGEOUT
_RWF_NOWAIT = 0x8


def _isolate_seats(f: Any, sc: Any) -> None:
    """The rules that keep seats from talking through shared files (see above)."""
    f.add_rule(sc.ERRNO(errno.ENOLCK), "flock")
    for command in _LOCK_COMMANDS:
        f.add_rule(sc.ERRNO(errno.ENOLCK), "fcntl", sc.Arg(1, sc.EQ, command))
    for command in _WATCH_COMMANDS:
        f.add_rule(sc.ERRNO(errno.EPERM), "fcntl", sc.Arg(1, sc.EQ, command))
    for name in _WATCHES:
        f.add_rule(sc.ERRNO(errno.EPERM), name)
    f.add_rule(sc.ERRNO(0), "fadvise64", sc.Arg(3, sc.EQ, _POSIX_FADV_DONTNEED))
    for advice in _MADV_DROPPING:
        f.add_rule(sc.ERRNO(0), "madvise", sc.Arg(2, sc.EQ, advice))
    for name in ("preadv2", "pwritev2"):
        f.add_rule(
            sc.ERRNO(errno.EOPNOTSUPP), name, sc.Arg(5, sc.MASKED_EQ, _RWF_NOWAIT, _RWF_NOWAIT)
        )
    with contextlib.suppress(ValueError, OSError):  # Linux 6.5 and later
        f.add_rule(sc.ERRNO(errno.ENOSYS), "cachestat")


def build() -> Any:
    """The filter as a ``pyseccomp.SyscallFilter`` (ImportError/OSError without libseccomp)."""
    import pyseccomp as sc

    f = sc.SyscallFilter(defaction=sc.ALLOW)
    for family in range(_MAX_FAMILY):
        if family not in _ALLOWED_FAMILIES:
            f.add_rule(sc.ERRNO(errno.EACCES), "socket", sc.Arg(0, sc.EQ, family))
    for name in _DENIED:
        try:
            f.add_rule(sc.ERRNO(errno.EPERM), name)
        except (ValueError, OSError):  # not a syscall on this architecture
            continue
    for flag in _NAMESPACE_FLAGS:
        f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    _isolate_seats(f, sc)
    return f


@functools.cache
def filter_once() -> Any:
    """Built once per process: loading it in a forked child needs no further allocation."""
    return build()


@functools.cache
def bpf() -> bytes:
    """The compiled BPF program, as ``bwrap --seccomp FD`` reads it."""
    r, w = os.pipe()
    try:
        with os.fdopen(w, "wb", closefd=False) as out:
            filter_once().export_bpf(out)
        os.close(w)
        w = -1
        chunks = []
        while chunk := os.read(r, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


def bpf_fd() -> int:
    """A fresh readable fd holding the BPF program, for one bwrap launch (the caller closes it)."""
    fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
    os.write(fd, bpf())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def check() -> str:
    """Empty if the filter can be built here, else why not."""
    try:
        bpf()
    except (ImportError, OSError, ValueError, RuntimeError) as exc:
        return f"seccomp: libseccomp not loadable ({exc})"
    return ""
