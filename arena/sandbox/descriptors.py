"""The referee's own descriptor limit: room for the connections bots open to its sockets.

Every connection a bot makes to its socket holds a descriptor of the referee until the seat is
ruled and its socket closed, and libzmq aborts the whole process when it cannot accept one, so
the referee keeps as much room as the machine gives it (``channels.MAX_CONNECTIONS`` is the real
bound; this is the margin for a burst accepted before the referee could react).
"""

from __future__ import annotations

import resource
from pathlib import Path


def raise_open_files_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit; return the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else _nr_open()
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):  # a hard limit of infinity above the kernel's nr_open
            return soft
        return target
    return soft


def _nr_open() -> int:
    try:
        return int(Path("/proc/sys/fs/nr_open").read_text())
    except (OSError, ValueError):
        return 1 << 20
