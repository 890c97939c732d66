"""The referee's own waits for a CPU: its own thread and ZeroMQ's I/O threads counted, listed
when the match begins and again once its sockets are open (ZeroMQ starts its threads then);
no other thread of its process."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import zmq

from arena.match.sched import IO_THREAD, TASKS, Latency


def io_threads() -> set[str]:
    """ZeroMQ's I/O threads in this process now."""
    return {
        t for t in os.listdir(TASKS) if Path(TASKS, t, "comm").read_bytes().startswith(IO_THREAD)
    }


def test_zmq_io_threads_are_counted_once_listed_and_forgotten_once_gone(tmp_path: Path) -> None:
    latency = Latency()
    latency.begin()
    own = str(threading.get_native_id())
    assert latency.threads == [own]
    ctx = zmq.Context()
    try:
        router, dealer = ctx.socket(zmq.ROUTER), ctx.socket(zmq.DEALER)
        router.bind(f"ipc://{tmp_path}/s.sock")  # ZeroMQ's I/O and reaper threads start here
        dealer.connect(f"ipc://{tmp_path}/s.sock")
        dealer.send(b"through the I/O thread")
        router.recv_multipart()
        started = io_threads() - set(latency.threads)
        assert started  # not counted until listed again
        latency.list_threads()
        assert set(latency.threads) == {own, *started}  # the reaper does no message's work
        assert latency.waited_ms() is not None
        opened = {f"{TASKS}/{t}/schedstat" for t in started}
        assert opened <= set(latency.counters.fds)  # read through descriptors kept open
        router.close()
        dealer.close()
    finally:
        ctx.term()
    latency.list_threads()
    assert not started & set(latency.threads)
    assert not opened & set(latency.counters.fds)  # their descriptors closed
    latency.close()
    assert latency.counters.fds == {}


def test_other_threads_of_its_process_are_never_the_referees() -> None:
    """A thread its caller left running (a test runner's, a pool's, a busy one) waits for a
    CPU on a loaded host; crediting those waits to a seat would let a slow bot answer late."""
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        latency = Latency()
        latency.begin()
        latency.list_threads()
        assert str(other.native_id) not in latency.threads
        assert latency.threads == [str(threading.get_native_id())]
        latency.close()
    finally:
        stop.set()
        other.join()
