"""CPU hogs outside the bots: load this machine on purpose.

Used by the loaded-machine tests (:func:`hogs`), and by hand to run the suite on a busy machine
(README, "Testing")::

    .venv/bin/python -m tests.hogs 4 &     # 4 spinning processes, pinned round the cores
    .venv/bin/python -m pytest -q -n 2
    kill %1

Each hog is a separate process at nice 0 pinned to one core, spinning in pure Python, so the
kernel shares each core between the hogs and whatever else runs there (the referee, its bots,
the tests) as it would on a machine shared with other jobs.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator

_PR_SET_PDEATHSIG = 1


def _spin(core: int) -> None:
    """Spin on ``core`` until killed, or until the process that started it dies."""
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    os.sched_setaffinity(0, {core})
    while True:
        pass


@contextlib.contextmanager
def hogs(count: int) -> Iterator[list[int]]:
    """``count`` spinning processes pinned round this process's cores; their pids. Killed on
    leaving (even when the test fails)."""
    cores = sorted(os.sched_getaffinity(0))
    ctx = multiprocessing.get_context("spawn")
    procs = [
        ctx.Process(target=_spin, args=(cores[i % len(cores)],), daemon=True) for i in range(count)
    ]
    try:
        for proc in procs:
            proc.start()
        yield [p.pid for p in procs if p.pid is not None]
    finally:
        for proc in procs:
            if proc.pid is not None:
                proc.kill()
        for proc in procs:
            if proc.pid is not None:
                proc.join()


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2 * len(os.sched_getaffinity(0))
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    with hogs(count) as pids:
        shown = " ".join(map(str, pids))
        print(f"{count} CPU hogs running (pids {shown}); Ctrl-C or kill to stop", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})


if __name__ == "__main__":
    main()
