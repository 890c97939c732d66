"""The ladder behind the server: a thread of the ladder's own process (``ladder.py``) that plays
whatever the current bots have not played.

Each pass builds the ladder from the competition file and the registry's active versions (a
new version replaces its bot's previous one in the ladder) and runs it with ``run_ladder`` on
local worker processes (or a Dask cluster's). The store skips every match already stored and
holds an exclusive lock, so a killed server loses only the matches in flight, and a restarted
one plays them again once (never a second copy of a stored match). Stopping it (the server
shutting down) hands out no more matches: those in flight finish and are stored, and a restart
plays the rest. When nothing is left to play it waits for the next version. Local workers die
with the ladder's process (``PR_SET_PDEATHSIG``), taking their bots along, and it with the
server.

A competition with a ``[follow]`` table is a following ladder: ``run_ladder`` plays it for
ever, one duplicate set at a time, reading the competition again before each set (new versions
placed first); a set cut by a kill or a stop is completed on restart.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from arena.ladder.config import LadderConfig, LadderConfigError
from arena.ladder.executor import DaskExecutor, Executor, ExecutorError, LocalExecutor
from arena.ladder.jobs import MatchJob, Returned
from arena.ladder.loop import HostFailure
from arena.ladder.run import run_ladder
from arena.ladder.store import StorageError, StoreError
from arena.web.competition import Competition
from arena.web.events import note

STOP_WAIT_S = 60.0
# What stops the ladder until the next look (the problem is shown on the queue page).
STOPPERS = (HostFailure, StorageError, StoreError, LadderConfigError, ExecutorError)


@dataclass
class RunnerState:
    """What the queue page shows of the runner."""

    status: str = "starting"
    bots: tuple[str, ...] = ()
    scheduled: int = 0
    done: int = 0
    problem: str = ""
    since: float = field(default_factory=time.time)


class Runner:
    """The background ladder of one competition."""

    def __init__(self, competition: Competition) -> None:
        self.competition = competition
        self.state = RunnerState()
        self.stopping = threading.Event()
        self.watched: Watched | None = None
        self.thread = threading.Thread(target=self._loop, name="arena-ladder", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self, wait_s: float = STOP_WAIT_S) -> None:
        """Stop after the matches in flight; a wait over ``wait_s`` leaves them to the
        process's exit, which takes the workers along."""
        self.stopping.set()
        if self.thread.is_alive():
            self.thread.join(wait_s)

    def _loop(self) -> None:
        played: tuple[str, ...] | None = None
        while not self.stopping.is_set():
            try:
                cfg = self.competition.ladder(check_bots=True)
            except LadderConfigError as exc:  # a version retired meanwhile: look again soon
                self._set("waiting", problem=str(exc))
                cfg = None
            if cfg is None:
                self._set("waiting for bots", problem=self.state.problem)
            elif cfg.bot_names != played:  # a following ladder: played until stopped
                self._set("playing", bots=cfg.bot_names, done=0, scheduled=0)
                try:
                    with self._executor() as executor:
                        stop = self.stopping.is_set
                        summary = run_ladder(cfg, executor, self._progress, stop, self._load)
                except STOPPERS as exc:
                    self._set("stopped", problem=str(exc))
                else:
                    if self.stopping.is_set():  # maybe mid-schedule: a restart plays the rest
                        self._set("stopped")
                        break
                    played = cfg.bot_names
                    total = summary.scheduled or 0
                    self._set("idle", scheduled=total, done=total)
                    continue
            self.stopping.wait(self.competition.server.poll_s)

    def _executor(self) -> Executor:
        """The competition's Dask cluster when it names one, else local worker processes;
        watched, so the queue page knows which matches are in a worker's hands."""
        server = self.competition.server
        inner = DaskExecutor(server.cluster) if server.cluster else LocalExecutor(server.workers)
        self.watched = Watched(inner)
        return self.watched

    def running(self) -> set[str]:
        """The match ids handed to workers and not finished yet."""
        return self.watched.running() if self.watched is not None else set()

    def _load(self) -> LadderConfig:
        """The competition's ladder as it stands now (a following ladder reads it before each
        set)."""
        cfg = self.competition.ladder(check_bots=True)
        assert cfg is not None  # a following ladder is never short of bots: it waits
        return cfg

    def _progress(self, done: int, total: int | None, _faults: int, _pace: str) -> None:
        """A schedule with no end (a following ladder) shows no progress."""
        self.state.done, self.state.scheduled = done, total or 0

    def _set(self, status: str, problem: str = "", **changes: object) -> None:
        if (status, problem) != (self.state.status, self.state.problem):
            note(f"ladder {status}" + (f": {problem}" if problem else ""))
        self.state.status = status
        self.state.problem = problem
        self.state.since = time.time()
        for key, value in changes.items():
            setattr(self.state, key, value)


class Watched(Executor):
    """An executor that keeps the ids of the matches it holds, for the pages' threads to read
    while the runner's thread hands matches out (a batch's matches count from its start)."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.slots, self.homes = inner.slots, inner.homes
        self.lock = threading.Lock()
        self.held: dict[Any, list[str]] = {}

    def running(self) -> set[str]:
        with self.lock:
            return {match_id for ids in self.held.values() for match_id in ids}

    def submit(self, jobs: list[MatchJob]) -> Any:
        return self._watch(self.inner.submit(jobs), jobs)

    def submit_to(self, jobs: list[MatchJob], home: int) -> Any:
        return self._watch(self.inner.submit_to(jobs, home), jobs)

    def _watch(self, future: Any, jobs: list[MatchJob]) -> Any:
        with self.lock:
            self.held[future] = [job.match_id for job in jobs]
        return future

    def wait(self, futures: list[Any]) -> list[Any]:
        return self.inner.wait(futures)

    def outcome(self, future: Any) -> list[Returned]:
        try:
            returned = self.inner.outcome(future)
        finally:
            with self.lock:
                ids = self.held.pop(future, [])
        for match_id, one in zip(ids, returned, strict=False):
            note(f"match {match_id} {played(one)}")
        return returned

    def close(self, abort: bool = False) -> None:
        with self.lock:
            self.held.clear()
        self.inner.close(abort)


def played(returned: Returned) -> str:
    """A match as the organiser's log tells it: each seat's bot and status, or why it is void
    (a void match is played again; it is never a bot's fault)."""
    result = returned.result
    if returned.void is not None or result is None:
        return f"void, played again: {returned.void}"
    seats = ", ".join(f"{s['name']} {s['status']}" for s in result["seats"])
    took = result["duration_ms"] / 1000
    return f"played: {seats} ({result['decisions']} decisions, {took:.1f} s)"
