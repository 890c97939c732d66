"""The referee's own scheduling latency: how late it wakes against its poll timeouts, and how
long it waited for a CPU over a match.

A referee on a quiet machine wakes within a fraction of a millisecond of the moment it asked
for; on a loaded one it waits on a run queue first, and every deadline it measures is that much
late. It measures this for itself (its thread's ``schedstat``, and each poll that timed out
against the moment it was meant to end), subtracts its waits from what a seat is charged
(``clock.Spent``), and records both with every match (``MatchResult.sched``): the ladder plays
fewer matches at once while its referees wait (``arena.ladder.executor.Concurrency``).
"""

from __future__ import annotations

import os
import threading
from typing import Any

from arena.sandbox import Counters

TASKS = "/proc/self/task"
IO_THREAD = b"ZMQbg/IO/"  # how libzmq names the I/O threads that carry a context's messages


class Latency:
    """One referee's scheduling latency over one match (use it from the referee's thread).

    Its threads are the referee's own (the one that began the match) and ZeroMQ's I/O threads,
    which carry every message; no other thread of its process (a test runner's, a pool's, one
    left busy by its caller) is its work, so none of their waits is ever credited to a seat.
    They are listed when the match begins and again once its sockets are open
    (:meth:`list_threads`; ZeroMQ starts its I/O thread with a context's first socket), not at
    every reading: listing them costs more than reading all their counters."""

    def __init__(self) -> None:
        self.counters = Counters()
        self.threads: list[str] = []  # the ids of the referee's threads, as listed
        self.own = ""  # the id of the thread that began the match
        self.start: float | None = None
        self.timed = 0  # polls that ended by their timeout
        self.late_total_ms = 0.0
        self.late_max_ms = 0.0
        self.moved = 0  # deadlines moved on because the host kept a seat from running

    def begin(self) -> None:
        self.own = str(threading.get_native_id())
        self.list_threads()
        self.start = self.waited_ms()

    def list_threads(self) -> None:
        """List the referee's threads anew (the counters of those gone are closed)."""
        threads = sorted(t for t in os.listdir(TASKS) if t == self.own or _carries_messages(t))
        for gone in set(self.threads) - set(threads):
            self.counters.forget(f"{TASKS}/{gone}/schedstat")
        self.threads = threads

    def waited_ms(self) -> float | None:
        """How long the referee's threads (its own, and ZeroMQ's I/O threads, which carry every
        message) have waited for a CPU, added up (None: not measured)."""
        delays = [self.counters.run_delay_ms(f"self/task/{t}") for t in self.threads]
        known = [d for d in delays if d is not None]
        return sum(known) if known else None

    def woke(self, meant: float, woke: float) -> None:
        """A poll meant to time out at ``meant`` returned, with nothing to read, at ``woke``."""
        late = max(0.0, (woke - meant) * 1000)
        self.timed += 1
        self.late_total_ms += late
        self.late_max_ms = max(self.late_max_ms, late)

    def record(self, duration_ms: float) -> dict[str, Any]:
        """What is kept with the match: the referee's waits for a CPU (ms, and as a share of
        the match's wall time), its timed wakes with their mean and longest lateness, and how
        many deadlines it moved on because the host kept a seat from running."""
        now = self.waited_ms()
        wait = None if now is None or self.start is None else max(0.0, now - self.start)
        share = None if wait is None or duration_ms <= 0 else min(1.0, wait / duration_ms)
        mean = self.late_total_ms / self.timed if self.timed else 0.0
        return {
            "wait_ms": None if wait is None else round(wait, 3),
            "wait_share": None if share is None else round(share, 4),
            "timed_wakes": self.timed,
            "late_mean_ms": round(mean, 3),
            "late_max_ms": round(self.late_max_ms, 3),
            "deadlines_moved": self.moved,
        }

    def close(self) -> None:
        self.counters.close()


def _carries_messages(thread: str) -> bool:
    """Whether the thread is one of ZeroMQ's I/O threads (by the name libzmq gives them)."""
    try:
        with open(f"{TASKS}/{thread}/comm", "rb") as comm:
            return comm.read().startswith(IO_THREAD)
    except OSError:  # it ended meanwhile
        return False
