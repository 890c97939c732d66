"""What a bot's cgroup says of it, read as the referee reads it at every decision: again and
again within the second."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from arena import sandbox
from arena.sandbox import cgroups

# At a first line on stdin it starts a second thread, which ends at a second line; the first
# sleeps until it is killed.
LATE_THREAD = (
    "import sys, threading, time\n"
    "sys.stdin.readline()\n"
    "threading.Thread(target=sys.stdin.readline).start()\n"
    "time.sleep(60)\n"
)


def measured(cgroup: cgroups.Cgroup) -> set[str]:
    """The threads whose waits for a CPU the last reading added up (cgroup v1)."""
    return {path.split("/")[2] for path in cgroup.counters.fds if path.endswith("/schedstat")}


def readings_until(cgroup: cgroups.Cgroup, threads: int) -> set[str]:
    """Read as the referee does until ``threads`` are measured (bounded, not paced)."""
    deadline = time.monotonic() + 30
    while len(measured(cgroup)) != threads and time.monotonic() < deadline:
        cgroup.reading()
        time.sleep(0.005)
    return measured(cgroup)


def test_threads_started_and_ended_between_readings_are_counted_so_on_cgroup_v1() -> None:
    """On v1 a bot's waits are its threads' run-queue delays: a thread it starts after the
    referee has read them many times over is added at a next reading, and one that ends is
    dropped (a descriptor of the ``tasks`` list kept open would list the first threads for as
    long as it is read: a thread started later would go unmeasured, and the id of one ended,
    taken by another thread of the host, would add that thread's waits to the bot's)."""
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
        first = measured(cgroup)
        assert len(first) == 1
        bot.stdin.write(b"start\n")
        bot.stdin.flush()
        both = readings_until(cgroup, 2)
        assert len(both) == 2 and first < both
        bot.stdin.write(b"end\n")
        bot.stdin.flush()
        assert readings_until(cgroup, 1) == first
    finally:
        bot.kill()
        bot.wait()
        cgroup.kill()
        cgroup.remove()
