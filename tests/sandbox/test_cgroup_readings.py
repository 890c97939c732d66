"""What a bot's cgroup says of it, read as the referee reads it at every decision: again and
again within the second."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from arena import sandbox
from arena.sandbox import cgroups

# Waits for a line on stdin, then starts a second thread; both sleep until it is killed.
LATE_THREAD = (
    "import sys, threading, time\n"
    "sys.stdin.readline()\n"
    "threading.Thread(target=time.sleep, args=(60,)).start()\n"
    "time.sleep(60)\n"
)


def measured(cgroup: cgroups.Cgroup) -> set[str]:
    """The threads whose waits for a CPU the last reading added up (cgroup v1)."""
    return {path.split("/")[2] for path in cgroup.counters.fds if path.endswith("/schedstat")}


def test_a_thread_started_between_readings_counts_in_the_waits_on_cgroup_v1() -> None:
    """On v1 a bot's waits are its threads' run-queue delays: a thread it starts after the
    referee has read them many times over is added at the next reading (a descriptor of the
    ``tasks`` list kept open would list the first threads for as long as it is read)."""
    if not sandbox.probe().has("cgroup") or cgroups.version() != 1:
        pytest.skip("per-thread waits are cgroup v1's (v2 reads the cgroup's CPU pressure)")
    cgroup = cgroups.Cgroup(256, 16, 1)
    bot = subprocess.Popen(
        [sys.executable, "-c", LATE_THREAD], stdin=subprocess.PIPE, preexec_fn=cgroup.join
    )
    try:
        assert bot.stdin is not None
        for _ in range(20):  # as at every decision: many readings within the second
            cgroup.reading()
            time.sleep(0.005)
        assert len(measured(cgroup)) == 1
        bot.stdin.write(b"go\n")
        bot.stdin.flush()
        deadline = time.monotonic() + 30  # the thread starts within this: a bound, not a pace
        while len(measured(cgroup)) < 2 and time.monotonic() < deadline:
            cgroup.reading()
            time.sleep(0.005)
        assert len(measured(cgroup)) == 2
    finally:
        bot.kill()
        bot.wait()
        cgroup.kill()
        cgroup.remove()
