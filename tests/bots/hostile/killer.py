"""Tries to kill or trace the referee: ptrace(PTRACE_ATTACH, parent), kill(parent), kill(-1)."""

import ctypes
import os
import signal

from _common import attempt, play_on, report

PTRACE_ATTACH = 16
libc = ctypes.CDLL(None, use_errno=True)
parent = os.getppid()


def ptrace_attach(pid):
    if libc.ptrace(PTRACE_ATTACH, pid, None, None) == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return "attached"


report("parent", str(parent))
attempt("ptrace_parent", lambda: ptrace_attach(parent))
attempt("kill_parent", lambda: os.kill(parent, signal.SIGKILL))
attempt("kill_all", lambda: os.kill(-1, signal.SIGKILL))  # kill(-1) spares the caller
play_on()
