"""Tries to leave the sandbox: new namespaces, mount, becoming root, a setuid binary."""

import ctypes
import os
import subprocess

from _common import attempt, play_on

CLONE_NEWUSER = 0x10000000
CLONE_NEWNS = 0x00020000
libc = ctypes.CDLL(None, use_errno=True)


def call(result):
    if result == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def status(field):
    with open("/proc/self/status") as f:
        return next(line.split()[1] for line in f if line.startswith(field + ":"))


attempt("unshare_user", lambda: call(libc.unshare(CLONE_NEWUSER)))
attempt("unshare_mount", lambda: call(libc.unshare(CLONE_NEWNS)))
attempt("mount", lambda: call(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)))
attempt("setuid_root", lambda: os.setuid(0))
attempt("setuid_binary", lambda: subprocess.run(
    ["/usr/bin/mount", "-t", "tmpfs", "none", "/tmp"], capture_output=True, check=False
).returncode)  # fmt: skip
attempt("no_new_privs", lambda: status("NoNewPrivs"))
attempt("cap_eff", lambda: status("CapEff"))
attempt("seccomp_mode", lambda: status("Seccomp"))
play_on()
