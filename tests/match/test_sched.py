"""The referee's own waits for a CPU: every thread of its process counted, listed when the
match begins and again once its sockets are open (ZeroMQ starts its threads then)."""

from __future__ import annotations

import os

import zmq

from arena.match.sched import TASKS, Latency


def test_zmq_threads_are_counted_once_listed_and_forgotten_once_gone() -> None:
    latency = Latency()
    latency.begin()
    ctx = zmq.Context()
    try:
        socket = ctx.socket(zmq.ROUTER)  # ZeroMQ's I/O and reaper threads start here
        started = set(os.listdir(TASKS)) - set(latency.threads)
        assert started  # not counted until listed again
        latency.list_threads()
        assert started <= set(latency.threads)
        assert latency.waited_ms() is not None
        opened = {f"{TASKS}/{t}/schedstat" for t in started}
        assert opened <= set(latency.counters.fds)  # read through descriptors kept open
        socket.close()
    finally:
        ctx.term()
    latency.list_threads()
    assert not started & set(latency.threads)
    assert not opened & set(latency.counters.fds)  # their descriptors closed
    latency.close()
    assert latency.counters.fds == {}
