"""A seccomp deny-list: no network sockets, no debugging other processes, no new namespaces.

Default allow, so any language runtime starts; the listed calls fail with an errno (not a kill)
so a bot sees a clear error it can report. libseccomp kills on a foreign-architecture syscall
by default, which closes 32-bit ``int 0x80`` bypasses.
"""

from __future__ import annotations

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
)  # fmt: skip

# clone() with any namespace flag is refused; clone3() passes its flags in memory a filter
# cannot read, so it gets ENOSYS and libc falls back to clone().
# (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET from <linux/sched.h>)
_NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                    0x40000000)  # fmt: skip


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
