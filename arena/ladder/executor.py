"""Runs matches concurrently: local worker processes, or a Dask distributed cluster.

Both run the same top-level :func:`run_match` on a plain dict and get a plain dict back, so a
job pickles the same way to a local process or to a remote worker. Whatever fails outside the
referee's own guard (an import error, a worker that died, a lost connection) comes back as a
``void`` result: never a bot's fault, so the runner retries it and never stores it. A local
worker that died marks the voids of every match it had in flight ``worker_died``: which of them
caused it is not known, so the runner retries each alone (a ``solo`` job runs with nothing else
in flight) and only then holds a void against the match.

Local workers are started with the ``spawn`` method (no forked ZeroMQ state) and ask the
kernel for SIGTERM when the runner dies (``PR_SET_PDEATHSIG``); on SIGTERM a worker kills
its bots and exits, so a runner killed with SIGKILL leaves no process behind, and a stopped
runner ends its workers the same way.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import contextlib
import ctypes
import functools
import multiprocessing
import os
import signal
import socket
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing import resource_tracker
from pathlib import Path
from typing import Any

from arena import sandbox
from arena.games import load_game
from arena.match.bots import BotSpec
from arena.match.faults import FaultPolicy
from arena.match.pool import BotPool
from arena.match.referee import HOST_VOID, Limits, play_match
from arena.sandbox import SandboxLimits

_PR_SET_PDEATHSIG = 1
STOP_GRACE_S = 5.0


class ExecutorError(RuntimeError):
    """The executor could not start (for example, no Dask scheduler at that address)."""


def run_match(job: dict[str, Any]) -> dict[str, Any]:
    """Play one match described by ``job`` (see ``ladder.match_job``); a MatchResult dict."""
    try:
        bots = [
            BotSpec(
                b["name"],
                tuple(b["command"]),
                Path(b["cwd"]),
                b["transport"],
                SandboxLimits(**b["limits"]) if b["limits"] else None,
                b["reuse"],
            )
            for b in job["bots"]
        ]
        replay = Path(job["replay"]) if job["replay"] else None
        result = play_match(
            load_game(job["game"]),
            bots,
            job["seed"],
            job["options"],
            Limits(**job["limits"]),
            replay_path=replay,
            match_id=job["match_id"],
            policy=FaultPolicy(**job["policy"]),
            sandbox_limits=SandboxLimits(**job["sandbox_limits"]),
            sandbox_level=job["sandbox"],
            pool=kept_bots() if any(b.reuse for b in bots) else None,
            lane=job["lane"],
        ).as_dict()
    except sandbox.HostError as exc:  # this machine failed, outside the referee's guard
        result = {"void": f"{HOST_VOID}{exc}"}
    except Exception as exc:  # outside the referee's guard: the worker's fault, not a bot's
        result = {"void": f"worker: {type(exc).__name__}: {exc}"}
    result["worker"] = f"{socket.gethostname()}:{os.getpid()}"
    return result


@functools.cache
def kept_bots() -> BotPool:
    """This worker's reusable bot processes, kept between its matches (``arena.match.pool``);
    killed when the worker exits (by ``_stop`` on SIGTERM, which kills every running bot)."""
    pool = BotPool()
    atexit.register(pool.close)
    return pool


def _void(exc: BaseException, worker_died: bool = False) -> dict[str, Any]:
    void = {"void": f"executor: {type(exc).__name__}: {exc}", "worker": "?"}
    return void | {"worker_died": True} if worker_died else void


class Executor(ABC):
    """Where matches run. ``slots`` is how many jobs to keep submitted at once."""

    slots: int

    @abstractmethod
    def submit(self, job: dict[str, Any]) -> Any:
        """Start a job; a future."""

    @abstractmethod
    def wait(self, futures: list[Any]) -> list[Any]:
        """Block until at least one future is done; the done ones."""

    @abstractmethod
    def outcome(self, future: Any) -> dict[str, Any]:
        """The result dict of a done future, or a void one if the job itself failed."""

    @abstractmethod
    def close(self, abort: bool = False) -> None:
        """Release the workers; ``abort`` stops jobs in flight at once."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        self.close(abort=kind is not None)


def _children() -> list[int]:
    """This process's child processes (the bots of the match in progress)."""
    me = str(os.getpid())
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            if stat.read_text().rpartition(")")[2].split()[1] == me:
                found.append(int(stat.parent.name))
    return found


def _stop(signum: int, _frame: object) -> None:
    """Kill the bots of the match in progress, then exit.

    First every sandbox the worker started (its cgroup, uid and process group), then any child
    found through /proc, so a bot caught between fork and its registration is not missed.
    """
    sandbox.kill_running()
    for pid in _children():
        for kill in (os.killpg, os.kill):
            with contextlib.suppress(OSError):
                kill(pid, signal.SIGKILL)
    os._exit(128 + signum)


def _worker_start(parent: int) -> None:
    """In each local worker: on SIGTERM, which also comes when the runner dies, stop at once
    and take the match's bots along. Ctrl-C in a terminal reaches the whole process group; the
    runner alone decides what it means."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # the runner died before prctl took effect
        os._exit(1)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, lambda *_: None)


class LocalExecutor(Executor):
    """A pool of ``workers`` local processes."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.slots = 2 * workers
        self.pool = self._pool()
        self.origin: dict[Any, cf.ProcessPoolExecutor] = {}

    def _pool(self) -> cf.ProcessPoolExecutor:
        _quiet_resource_tracker()
        return cf.ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_start,
            initargs=(os.getpid(),),
        )

    def submit(self, job: dict[str, Any]) -> Any:
        future = self.pool.submit(run_match, job)
        self.origin[future] = self.pool
        return future

    def wait(self, futures: list[Any]) -> list[Any]:
        return list(cf.wait(futures, return_when=cf.FIRST_COMPLETED).done)

    def outcome(self, future: Any) -> dict[str, Any]:
        pool = self.origin.pop(future)
        try:
            return future.result()
        except cf.process.BrokenProcessPool as exc:  # a worker died: start a fresh pool
            if pool is self.pool:
                pool.shutdown(wait=False, cancel_futures=True)
                self.pool = self._pool()
            return _void(exc, worker_died=True)
        except Exception as exc:
            return _void(exc)

    def close(self, abort: bool = False) -> None:
        self.pool.shutdown(wait=not abort, cancel_futures=True)
        if abort:
            workers = multiprocessing.active_children()
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.join(STOP_GRACE_S)
                if worker.is_alive():
                    worker.kill()


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (once) with its stderr on /dev/null.

    The pool's queues hold named semaphores, which the tracker unlinks when the runner dies
    without closing them (SIGKILL); it also prints a ``leaked semaphore`` warning then, which
    would be the last words on the organiser's terminal about a cleanup that went well.
    """
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        resource_tracker.ensure_running()
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class DaskExecutor(Executor):
    """Jobs on a Dask distributed scheduler at ``address`` (``tcp://host:8786``)."""

    def __init__(self, address: str, timeout_s: float = 10) -> None:
        from distributed import Client

        try:
            self.client = Client(address, timeout=timeout_s)
        except (OSError, TimeoutError) as exc:
            raise ExecutorError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        self.slots = 2 * max(1, sum(self.client.nthreads().values()))

    def submit(self, job: dict[str, Any]) -> Any:
        return self.client.submit(run_match, job, pure=False)

    def wait(self, futures: list[Any]) -> list[Any]:
        from distributed import wait

        return list(wait(futures, return_when="FIRST_COMPLETED").done)

    def outcome(self, future: Any) -> dict[str, Any]:
        try:
            return future.result()
        except Exception as exc:
            return _void(exc)
        finally:
            future.release()

    def close(self, abort: bool = False) -> None:
        self.client.close()


@dataclass
class Job:
    """A match to run, how many times it has been tried, and whether it must run alone."""

    key: str
    payload: dict[str, Any]
    attempt: int = 1
    solo: bool = False


class Dispatcher:
    """Keeps the executor's slots full and yields results as they finish, in any order."""

    def __init__(self, executor: Executor, jobs: Iterable[Job]) -> None:
        self.executor = executor
        self.queue = deque(jobs)
        self.running: dict[Any, Job] = {}

    def again(self, job: Job, solo: bool = False) -> None:
        """Run ``job`` once more, before anything not yet started; alone if ``solo``."""
        job.attempt += 1
        job.solo = job.solo or solo
        self.queue.appendleft(job)

    def stop(self) -> None:
        """Start nothing more; the jobs in flight still finish."""
        self.queue.clear()

    def _may_start(self) -> bool:
        if not self.queue or len(self.running) >= self.executor.slots:
            return False
        alone = self.queue[0].solo or any(j.solo for j in self.running.values())
        return not (alone and self.running)

    def __iter__(self) -> Iterator[tuple[Job, dict[str, Any]]]:
        while self.queue or self.running:
            while self._may_start():
                job = self.queue.popleft()
                self.running[self.executor.submit(job.payload)] = job
            for future in self.executor.wait(list(self.running)):
                yield self.running.pop(future), self.executor.outcome(future)
