"""Runs matches concurrently: local worker processes, or a Dask distributed cluster.

Both run the same top-level :func:`run_batch` on a list of plain dicts and get plain dicts
back (``MatchJob`` and ``Returned`` of ``jobs.py``, typed on each side), so a job pickles the
same way to a local process or to a remote worker. A job holds a batch of matches, played one
after another by one worker (its kept bots reused across them). Handing a job over (pickling,
the pool's queues, the runner's bookkeeping; on Dask a round of its scheduler) costs about 0.1
ms locally and a few ms on Dask (``bench/throughput.py``), against about 1 ms for a short match
with reused bots, so :class:`Dispatcher` packs short matches into batches of about
``BATCH_MS`` of the referee's work (``MOST_MATCHES`` at most) and hands out a long match alone.
The runner stores a job's matches in one transaction, whose fixed cost (the commit, the
tally's sequences written again) is then paid once for them: 64 short matches a job rather
than 32 take about 15 % off its CPU per match. Results never depend on the batching: each
match has its own seed and lane, and is yielded and stored on its own. Rotations of one deal
that must not be played at the same time (an author's bot is seated: see ``loop.py``) are
never in two jobs at once.

Whatever fails outside the referee's own guard (an import error, a worker that died, a lost
connection) comes back as a ``void`` result: never a bot's fault, so the runner retries it and
never stores it. A local worker that died marks the voids of every match it had in flight (its
whole batch, and the other workers' batches, since the pool breaks) ``worker_died``, and so
does a Dask job that failed as a whole (its workers killed, a lost connection): which match
caused it is not known, so the runner retries each alone (a ``solo`` job runs with nothing
else in flight, a batch of one) and only then holds a void against the match. After a
``host:`` void the worker plays nothing more of its batch: the rest comes back not attempted
(queued again, as if never handed out), and the runner stops.

Local workers are started with the executor, so they import while the runner prepares the
ladder, and without running the runner's main script again (see ``_main_not_rerun``). They
are started with the ``spawn`` method (no forked ZeroMQ state) and ask the
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
import importlib.machinery
import math
import multiprocessing
import os
import signal
import socket
import sys
import threading
from abc import ABC, abstractmethod
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing import resource_tracker
from pathlib import Path
from typing import Any

from arena import sandbox
from arena.games import load_game
from arena.ladder.jobs import MatchJob, Returned
from arena.match.pool import BotPool
from arena.match.referee import play_match
from arena.match.results import VoidKind
from arena.sandbox import cores, paths

_PR_SET_PDEATHSIG = 1
STOP_GRACE_S = 5.0
BATCH_MS = 75.0  # the referee's work one job aims to hold: the hand-off is paid once for it
MOST_MATCHES = 128  # in one job at most (the runner stores a job's matches in one transaction)
AHEAD = 4  # full jobs queued per worker before more are made (Dispatcher.extend)
# A worker with no matches of its own left takes another's only when they make this many full
# jobs: fewer, and their owner plays them before this worker has started their lane's kept bots
# (tens of ms a pair), so taking them would end the run later.
STEAL_JOBS = 2


class ExecutorError(RuntimeError):
    """The executor could not start (for example, no Dask scheduler at that address)."""


def run_batch(
    jobs: list[dict[str, Any]], runtime_links: dict[str | None, tuple[Path, ...]] | None = None
) -> list[dict[str, Any]]:
    """Play ``jobs`` (each ``MatchJob.as_dict()``) one after another in this worker; a
    ``Returned.as_dict()`` per match played. Stops after a ``host:`` void: this machine cannot
    start bots, so the rest would only fail the same way. ``runtime_links``: what a local
    runner found (``arena.sandbox.paths.runtime_links``), so its workers do not walk the
    installations again each."""
    if runtime_links:
        paths.learn_runtime_links(runtime_links)
    results = []
    for data in jobs:
        returned = run_match(data)
        results.append(returned.as_dict())
        if returned.host_void:
            break
    return results


def run_match(data: dict[str, Any]) -> Returned:
    """Play the match ``data`` describes (``MatchJob.as_dict()``)."""
    try:
        job = MatchJob.from_dict(data)
        result = play_match(
            load_game(job.game),
            list(job.bots),
            job.seed,
            job.options,
            job.limits,
            replay_path=job.replay,
            match_id=job.match_id,
            policy=job.policy,
            sandbox_limits=job.sandbox_limits,
            sandbox_level=job.sandbox,
            pool=kept_bots() if any(b.reuse for b in job.bots) else None,
            lane=job.lane,
        ).as_dict()
    except sandbox.HostError as exc:  # this machine failed, outside the referee's guard
        return Returned(None, VoidKind.HOST.reason(str(exc)))
    except Exception as exc:  # outside the referee's guard: the worker's fault, not a bot's
        return Returned(None, VoidKind.WORKER.reason(f"{type(exc).__name__}: {exc}"))
    result["worker"] = f"{socket.gethostname()}:{os.getpid()}"
    return Returned.from_dict(result)


@functools.cache
def kept_bots() -> BotPool:
    """This worker's reusable bot processes, kept between its matches (``arena.match.pool``);
    killed when the worker exits (by ``_stop`` on SIGTERM, which kills every running bot)."""
    pool = BotPool()
    atexit.register(pool.close)
    return pool


def _voids(count: int, exc: BaseException, worker_died: bool = False) -> list[Returned]:
    """A void result for each of the ``count`` matches of a job that failed as a whole."""
    void = VoidKind.EXECUTOR.reason(f"{type(exc).__name__}: {exc}")
    return [Returned(None, void, worker_died) for _ in range(count)]


class Executor(ABC):
    """Where matches run. ``slots`` is how many jobs to keep submitted at once."""

    slots: int
    homes = 1  # workers that keep bots of their own, each fed its share (``submit_to``)

    @abstractmethod
    def submit(self, jobs: list[MatchJob]) -> Any:
        """Start a job playing ``jobs`` one after another (:func:`run_batch`); a future."""

    def submit_to(self, jobs: list[MatchJob], home: int) -> Any:
        """:meth:`submit` on the worker ``home`` (below ``homes``), whose kept bots they need."""
        return self.submit(jobs)

    @abstractmethod
    def wait(self, futures: list[Any]) -> list[Any]:
        """Block until at least one future is done; the done ones."""

    @abstractmethod
    def outcome(self, future: Any) -> list[Returned]:
        """The results of a done future in its jobs' order (fewer after a ``host:`` void), or a
        void one for each of its matches if the job itself failed."""

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


def _worker_start(parent: int, core: int | None) -> None:
    """In each local worker: on SIGTERM, which also comes when the runner dies, stop at once
    and take the match's bots along. Ctrl-C in a terminal reaches the whole process group; the
    runner alone decides what it means. Then it moves to its ``core`` (None: left to the
    kernel; see ``arena.sandbox.cores``), and the sandbox is probed, once per worker, before
    its first job comes."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # the runner died before prctl took effect
        os._exit(1)
    if core is not None:
        cores.pin(core)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, lambda *_: None)
    # tens of ms, while the runner still reads the ladder; a failure is left for the first
    # match to meet and report
    with contextlib.suppress(Exception):
        sandbox.probe()


class LocalExecutor(Executor):
    """``workers`` local processes, each in a pool of its own, so that a job goes to the worker
    whose kept bots it needs (its ``home``, see :class:`Dispatcher`) and a worker that dies
    takes only its own jobs along. Each runs on a core of its own when they take every core,
    or when ``pin`` asks and there are enough (``arena.sandbox.cores.assign``; a worker
    started again takes its home's core)."""

    def __init__(self, workers: int, pin: bool | None = None) -> None:
        self.workers = self.homes = workers
        self.slots = 2 * workers
        self.cores = cores.assign(workers, cores.usable(), pin)
        _quiet_resource_tracker()
        self.started: list[cf.Future[int]] = []  # each worker's pid, as it started
        self.pools = [self._pool(home) for home in range(workers)]
        self.origin: dict[Any, tuple[cf.ProcessPoolExecutor, int, int]] = {}
        self.in_flight = [0] * workers
        self.runtime_links: dict[str | None, tuple[Path, ...]] = {}  # found once, for all

    def _pool(self, home: int) -> cf.ProcessPoolExecutor:
        """A one-worker pool whose worker is started now, while the runner prepares the
        ladder."""
        pool = cf.ProcessPoolExecutor(
            1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_start,
            initargs=(os.getpid(), self.cores[home]),
        )
        with _main_not_rerun():
            started = pool.submit(os.getpid)
        if home < len(self.started):
            self.started[home] = started
        else:
            self.started.append(started)
        return pool

    def _renew(self, home: int, pool: cf.ProcessPoolExecutor) -> None:
        """The worker of ``pool`` died, which broke it: start a fresh one in its place, once."""
        if pool is self.pools[home]:
            pool.shutdown(wait=True, cancel_futures=True)  # no worker left: its thread ends now
            self.pools[home] = self._pool(home)

    def worker_pids(self) -> list[int]:
        """The workers' process ids (waiting for them to start)."""
        return [started.result() for started in self.started]

    def submit(self, jobs: list[MatchJob]) -> Any:
        """Start ``jobs`` on the worker with the fewest jobs in flight, their lane's home
        first."""
        lane = jobs[0].lane % self.homes if jobs else 0
        return self.submit_to(
            jobs, min(range(self.homes), key=lambda h: (self.in_flight[h], h != lane))
        )

    def submit_to(self, jobs: list[MatchJob], home: int) -> Any:
        plain = [job.as_dict() for job in jobs]
        if not self.runtime_links:  # the bots see the runner's PATH (sandbox.bot_environment)
            path_env = os.environ.get("PATH")
            self.runtime_links[path_env] = paths.runtime_links(path_env)
        pool = self.pools[home]
        try:
            future = pool.submit(run_batch, plain, self.runtime_links)
        except cf.process.BrokenProcessPool:  # its worker just died; nothing of this job ran
            self._renew(home, pool)
            pool = self.pools[home]
            future = pool.submit(run_batch, plain, self.runtime_links)
        self.origin[future] = (pool, home, len(jobs))
        self.in_flight[home] += 1
        return future

    def wait(self, futures: list[Any]) -> list[Any]:
        return list(cf.wait(futures, return_when=cf.FIRST_COMPLETED).done)

    def outcome(self, future: Any) -> list[Returned]:
        pool, home, count = self.origin.pop(future)
        self.in_flight[home] -= 1
        try:
            return [Returned.from_dict(r) for r in future.result()]
        except cf.process.BrokenProcessPool as exc:
            self._renew(home, pool)
            return _voids(count, exc, worker_died=True)
        except Exception as exc:
            return _voids(count, exc)

    def close(self, abort: bool = False) -> None:
        """Release the workers (``abort``: stopped at once), then wait for every pool's manager
        thread to end. Left running, a manager thread that notices its workers gone late (a
        loaded machine) closes its wake-up pipe while the interpreter's exit hook writes to it
        (CPython 3.11 ``concurrent.futures.process._python_exit``, no lock): an ``OSError:
        [Errno 9] Bad file descriptor`` traceback after the runner's last line."""
        if not abort:  # every worker told at once, so they stop their bots at the same time
            stopping = [threading.Thread(target=pool.shutdown, kwargs={"cancel_futures": True})
                        for pool in self.pools]  # fmt: skip
            for thread in stopping:
                thread.start()
            for thread in stopping:
                thread.join()
        else:  # the workers stopped first: a shutdown that does not wait would let go of its
            # manager thread, which then outlives the interpreter's exit hook (see above)
            workers = multiprocessing.active_children()
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.join(STOP_GRACE_S)
                if worker.is_alive():
                    worker.kill()
                    worker.join()
        for pool in self.pools:
            pool.shutdown(wait=True, cancel_futures=True)  # no worker left: its thread ends now


@contextlib.contextmanager
def _main_not_rerun() -> Iterator[None]:
    """Workers started meanwhile do not run the runner's main script again.

    ``spawn`` runs the parent's ``__main__`` file in each new worker, unless ``__main__`` is a
    module's own ``__main__``; for ``arena`` that is its whole command line, about 1 s of CPU
    per worker, of which a worker uses nothing (it unpickles ``run_batch`` from this module).
    """
    main = sys.modules["__main__"]
    saved = main.__spec__
    main.__spec__ = importlib.machinery.ModuleSpec("__main__", None)
    try:
        yield
    finally:
        main.__spec__ = saved


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
        self.sizes: dict[Any, int] = {}

    def submit(self, jobs: list[MatchJob]) -> Any:
        future = self.client.submit(run_batch, [job.as_dict() for job in jobs], pure=False)
        self.sizes[future] = len(jobs)
        return future

    def wait(self, futures: list[Any]) -> list[Any]:
        from distributed import wait

        return list(wait(futures, return_when="FIRST_COMPLETED").done)

    def outcome(self, future: Any) -> list[Returned]:
        count = self.sizes.pop(future)
        try:
            return [Returned.from_dict(r) for r in future.result()]
        except Exception as exc:  # which of its matches did it is not known
            return _voids(count, exc, worker_died=True)
        finally:
            future.release()

    def close(self, abort: bool = False) -> None:
        self.client.close()


@dataclass
class Job:
    """A match to run, how many times it has been tried, whether it must run alone, and its
    deal when no other rotation of it may be in flight at the same time."""

    match: MatchJob
    attempt: int = 1
    solo: bool = False
    deal: str | None = None

    @property
    def key(self) -> str:
        return self.match.match_id


class Concurrency:
    """How many jobs the dispatcher keeps in flight: the executor's slots on a calm machine,
    fewer while its referees wait for a CPU, so a loaded host slows a ladder down instead of
    ruining its matches (``arena.match.clock`` voids what it cannot judge fairly).

    Each match brings its referee's scheduling latency (``MatchResult.sched``): how long the
    referee waited for a CPU during it. Over each ``WINDOW_MS`` of matches' wall time (short
    matches are pooled: one late wake in a 1 ms match says little), a share of waiting of
    ``BUSY_SHARE`` or more, or any ``load:`` void, keeps one job fewer in flight (down to one);
    ``CALM_WINDOWS`` windows in a row at ``CALM_SHARE`` or less, one more (up to the slots). A
    referee alone on its core waits well under 1 % of its match; one sharing its core with
    another busy task about half of it.
    """

    WINDOW_MS = 2000.0
    BUSY_SHARE = 0.25
    CALM_SHARE = 0.05
    CALM_WINDOWS = 3

    def __init__(self, slots: int) -> None:
        self.slots = self.limit = slots
        self.calm = 0
        self.waited_ms = self.played_ms = 0.0

    def observe(self, returned: Returned) -> None:
        """Take one finished match into account."""
        if returned.load_void:
            self._slower()
            return
        result = returned.result or {}
        wait = (result.get("sched") or {}).get("wait_ms")
        if wait is None:
            return
        self.waited_ms += wait
        self.played_ms += float(result.get("duration_ms", 0.0))
        if self.played_ms < self.WINDOW_MS:
            return
        share = self.waited_ms / self.played_ms
        self.waited_ms = self.played_ms = 0.0
        if share >= self.BUSY_SHARE:
            self._slower()
        elif share <= self.CALM_SHARE:
            self.calm += 1
            if self.calm >= self.CALM_WINDOWS and self.limit < self.slots:
                self.limit, self.calm = self.limit + 1, 0
        else:
            self.calm = 0

    def _slower(self) -> None:
        self.limit, self.calm = max(1, self.limit - 1), 0
        self.waited_ms = self.played_ms = 0.0

    def shown(self) -> str:
        """For the progress line: '' at full speed, else how far it slowed down."""
        if self.limit >= self.slots:
            return ""
        return f"slowed: referees wait for a CPU, {self.limit} of {self.slots} jobs in flight"


def _recent(estimate: float | None, ms: float) -> float:
    """The referee's recent time per match, after a match of ``ms``: it falls fast (a lane's
    first matches start its kept bots, tens of ms each, so a run's first estimates are far
    above its matches: halving the gap each match, batches reach full size after a few jobs)
    and rises by a fifth of the gap (one long match among short ones shrinks the batches for
    a few jobs, not to one match)."""
    if estimate is None:
        return ms
    return 0.5 * (estimate + ms) if ms < estimate else 0.8 * estimate + 0.2 * ms


class Dispatcher:
    """Keeps the executor's slots full and yields ``(job, result)`` as matches finish, in any
    order, one per match however they were batched (:meth:`finished`: a job's together).

    Two matches of one ``deal`` are never in two batches in flight at once: they share the
    cards, and seats in concurrent matches could pass them on. They may share one batch
    (played one after another by one worker); otherwise the second waits and the matches
    queued behind it go first.

    An executor whose workers keep bots of their own (``homes``: local workers) gets each
    match on the worker of its lane (``lane % homes``), so a bot's kept process for a lane is
    started by one worker only, not by each; the jobs in flight are shared alike among the
    workers. A worker with nothing of its own left takes from the longest other queue while
    that holds enough to pay for starting its lane's bots (``STEAL_JOBS``), so none idles
    long near the end.
    """

    def __init__(self, executor: Executor, jobs: Iterable[Job] = ()) -> None:
        self.executor = executor
        self.queues: list[deque[Job]] = [deque() for _ in range(executor.homes)]
        self.sources: deque[Iterator[Job]] = deque()  # jobs made when the queues run low
        self.extend(jobs)
        self.running: dict[Any, list[Job]] = {}
        self.home_of: dict[Any, int] = {}  # each job in flight's worker
        self.match_ms: float | None = None  # the referee's recent time per match
        self.concurrency = Concurrency(executor.slots)
        self.stopped = False

    def _queue(self, job: Job) -> deque[Job]:
        return self.queues[job.match.lane % len(self.queues)]

    def add(self, job: Job) -> None:
        """Run ``job`` after everything queued."""
        self._queue(job).append(job)

    def extend(self, jobs: Iterable[Job]) -> None:
        """Run ``jobs`` after everything queued, each made only when the queues run low: a
        ladder's first matches start without its whole schedule made into jobs first."""
        self.sources.append(iter(jobs))

    def _top_up(self) -> bool:
        """Queue jobs from the sources until about ``AHEAD`` batches wait per worker; whether
        any job is queued."""
        want = AHEAD * MOST_MATCHES * len(self.queues)
        while self.sources and sum(map(len, self.queues)) < want:
            job = next(self.sources[0], None)
            if job is None:
                self.sources.popleft()
            else:
                self.add(job)
        return any(self.queues)

    def again(self, job: Job, solo: bool = False) -> None:
        """Run ``job`` once more, before anything not yet started; alone if ``solo``."""
        job.attempt += 1
        job.solo = job.solo or solo
        self._queue(job).appendleft(job)

    def stop(self) -> None:
        """Start nothing more; the jobs in flight still finish."""
        self.stopped = True
        self.sources.clear()
        for queue in self.queues:
            queue.clear()

    def batch_size(self) -> int:
        """How many matches the next job may hold: about ``BATCH_MS`` of them, measured from
        the results so far (one until a match is measured: it may take minutes)."""
        if self.match_ms is None:
            return 1
        return max(1, min(MOST_MATCHES, int(BATCH_MS / max(self.match_ms, 0.01))))

    def _next_batch(self, home: int) -> list[Job]:
        """The next job's matches for worker ``home``, or none when nothing may start now. A
        solo job alone, with nothing else in flight; else the jobs queued for it (if none, the
        longest other queue's, when it holds ``STEAL_JOBS`` full jobs or more) up to the first
        solo one whose deal is not in flight, at most a batch and at most a fair share of that
        queue per slot of the worker, so no worker idles near the end."""
        if not any(self.queues) or len(self.running) >= self.concurrency.limit:
            return []
        if any(batch[0].solo for batch in self.running.values()):
            return []
        solo = next((q for q in self.queues if q and q[0].solo), None)
        if solo is not None:
            return [] if self.running else [solo.popleft()]
        slots = math.ceil(self.concurrency.limit / len(self.queues))  # of each worker
        if sum(h == home for h in self.home_of.values()) >= slots:
            return []
        queue = self.queues[home] or max(self.queues, key=len)
        if queue is not self.queues[home] and len(queue) < STEAL_JOBS * self.batch_size():
            return []  # its owner plays them sooner than this worker starts their lane's bots
        busy = {job.deal for batch in self.running.values() for job in batch}
        size = min(self.batch_size(), math.ceil(len(queue) / slots))
        batch: list[Job] = []
        waiting: list[Job] = []
        while queue and len(batch) < size and not queue[0].solo:
            job = queue.popleft()
            (waiting if job.deal is not None and job.deal in busy else batch).append(job)
        queue.extendleft(reversed(waiting))
        return batch

    def _measure(self, results: list[Returned]) -> None:
        for returned in results:
            self.concurrency.observe(returned)
            if returned.result is not None and "duration_ms" in returned.result:
                self.match_ms = _recent(self.match_ms, float(returned.result["duration_ms"]))

    def _fill(self) -> None:
        """Hand out jobs while a slot is free and something may start, a worker at a time:
        the worker with the fewest jobs in flight first and, among those, the one with the
        most of its own left, so a slot that cannot go to each (jobs in flight cut to an odd
        number on a busy machine) goes to the worker furthest behind and the workers finish
        their lanes together."""
        handed = True
        while handed:
            handed = False
            self._top_up()
            in_flight = Counter(self.home_of.values())
            homes = range(len(self.queues))
            for home in sorted(homes, key=lambda h: (in_flight[h], -len(self.queues[h]))):
                if batch := self._next_batch(home):
                    future = self.executor.submit_to([j.match for j in batch], home)
                    self.running[future], self.home_of[future] = batch, home
                    handed = True

    def __iter__(self) -> Iterator[tuple[Job, Returned]]:
        for finished in self.finished():
            yield from finished

    def finished(self) -> Iterator[list[tuple[Job, Returned]]]:
        """The matches of each job as it finishes, together, so the runner can store them in
        one transaction."""
        while self._top_up() or self.running:
            self._fill()
            for future in self.executor.wait(list(self.running)):
                batch = self.running.pop(future)
                del self.home_of[future]
                results = self.executor.outcome(future)
                played, unplayed = batch[: len(results)], batch[len(results) :]
                if not self.stopped:  # after a host void: not attempted, as if never handed out
                    for job in reversed(unplayed):
                        self._queue(job).appendleft(job)
                self._measure(results)
                if all(r.void is None for r in results):  # else the runner may stop or retry
                    self._fill()  # the worker plays on while the runner stores these
                yield list(zip(played, results, strict=True))
