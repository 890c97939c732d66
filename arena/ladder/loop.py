"""The one ladder loop: plays what a schedule asks for, stores it, blames and retries voids.

Every way of playing goes through :func:`play`: a ladder file's fixed round robin (``run.py``),
a following ladder (``follow.py``) and ``arena test`` (``sprt.py``) are each a
:class:`Schedule`. The loop asks the schedule for matches to hand out (``next``), hands them to
the executor, stores the matches each job played in one transaction, tells the schedule what
became of each (``stored``, ``abandoned``), and stops when the schedule's stopping rule says so
(``finished``), when asked to (``stop``: nothing more is handed out, the matches in flight
finish and are stored) or when this machine fails. Whenever nothing is in flight and a match
was stored since, and at the end, the schedule settles what it keeps (``Schedule.settle``: the
ratings, rated in each match's own transaction, rate the matches that waited behind a gap).

Voids are never a free undo, and never burn a schedule:

* a ``host:`` void (this machine failed to start a bot) stops the run: nothing more is handed
  out, the matches in flight finish, nothing is stored for it, and :class:`HostFailure` says
  what to fix;
* a ``load:`` void (this machine was too busy to give a seat its time, ``arena.match.clock``)
  is nobody's: it is recorded with blame ``load``, never counts towards ``MAX_VOIDS``, and the
  match is played again alone (the executor meanwhile plays fewer matches at once while its
  referees wait for a CPU);
* a worker that dies takes every match in flight with it, so those voids are ``shared`` and the
  matches are retried alone (``solo``): a void of a match that ran alone is its own;
* a match is tried up to ``MAX_ATTEMPTS`` times each time it is handed out, then abandoned for
  this time; a match whose own voids reach ``MAX_VOIDS``, over all runs, is not played again
  (a bot may be crashing its referee to undo losses) and is reported with the bots seated in
  it, for the organiser to judge (``arena ladder forget`` clears a match's voids).

Two rotations of one deal are never in flight at the same time when a bot of the table is an
author's (a registry bot): they share the cards, and seats colluding across concurrent matches
could pass them on. The executor plays them one after another (``Job.deal``).
"""

from __future__ import annotations

import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from arena import sandbox
from arena.ladder.config import LadderConfig
from arena.ladder.deal_key import deal_key
from arena.ladder.executor import Dispatcher, Executor, Job
from arena.ladder.jobs import MatchJob, Returned
from arena.ladder.rated import RatingStream
from arena.ladder.ratings import MatchRecord
from arena.ladder.schedule import MatchSpec
from arena.ladder.store import Blame, StorageError, Store
from arena.match import heap
from arena.registry.content import program_files

MAX_ATTEMPTS = 3  # tries of a match each time it is handed out
MAX_VOIDS = 5  # a match's own voids over all runs (a full run of tries and 2 more), then no more


class HostFailure(RuntimeError):
    """This machine cannot run the ladder's bots (sandbox, interpreter, cgroup, uid, fork)."""


Progress = Callable[[int, int | None, int, str], None]
"""Called after each stored or abandoned match with (done, total, faults so far, pace); the total
is None for a schedule with no end (a following ladder); the pace is '' at full speed, else how
far the run slowed down because its referees wait for a CPU (``executor.Concurrency``)."""


@dataclass(frozen=True)
class Abandoned:
    """A match given up: still void after its tries, or no longer played (``blocked``)."""

    spec: MatchSpec
    tries: int  # in this run; 0: not handed out, its own voids had reached MAX_VOIDS
    voids: int  # its own voids, over all runs
    last: str  # why its last try was void

    @property
    def blocked(self) -> bool:
        return self.voids >= MAX_VOIDS

    @property
    def match_id(self) -> str:
        return self.spec.match_id

    @property
    def bots(self) -> tuple[str, ...]:
        return self.spec.bots


@dataclass
class Tally:
    """What one call of :func:`play` did."""

    played: int = 0
    retries: int = 0
    faults: int = 0  # seats of the stored matches that were not ``ok``
    abandoned: list[Abandoned] = field(default_factory=list)

    @property
    def failed(self) -> int:
        """Matches tried in this run and given up."""
        return sum(1 for a in self.abandoned if a.tries)

    @property
    def blocked(self) -> list[Abandoned]:
        return sorted((a for a in self.abandoned if a.blocked), key=lambda a: a.match_id)


class Schedule(ABC):
    """What a run plays, asked by :func:`play`; it also holds the stopping rule."""

    already = 0  # matches of the schedule stored before this run (for progress)

    def __init__(self, cfg: LadderConfig) -> None:
        self.cfg = cfg  # the ladder as it stands now (a following ladder reads it again)

    @abstractmethod
    def next(self, store: Store, busy: bool) -> list[MatchSpec]:
        """Matches to hand out now, none of them stored; ``busy``: some are in flight. The
        loop skips those it holds already; ``[]`` for nothing more now."""

    def total(self) -> int | None:
        """The matches of the whole schedule, or None when it has no end."""
        return None

    def stored(self, store: Store, spec: MatchSpec) -> None:
        """Told after ``spec`` was stored."""

    def abandoned(self, store: Store, gone: Abandoned) -> None:
        """Told after a match was given up."""

    def finished(self) -> bool:
        """The stopping rule: true once nothing more is to be handed out."""
        return False

    def idle(self) -> bool:
        """Nothing in flight and nothing to hand out: whether to wait and ask again."""
        return False

    def attach(self, store: Store) -> None:
        """Told once before the first match: keep what must be kept as each match is stored
        (nothing for a test)."""

    def settle(self, store: Store) -> None:
        """Nothing is in flight: bring what is kept up to date with what is stored."""


class LadderSchedule(Schedule):
    """A ladder file's schedule: rated, and read by the table, the report and the server."""

    @abstractmethod
    def records(self, store: Store) -> tuple[list[MatchSpec], list[MatchRecord]]:
        """The schedule so far, and the stored matches that belong to it, in its order."""

    @abstractmethod
    def upcoming(self, store: Store | None) -> list[MatchSpec]:
        """The matches not stored yet that come next (the server's queue): the next sets only,
        at a cost that does not grow with the schedule or the history, changing nothing
        stored; ``store`` is None before the database is made."""

    @abstractmethod
    def stream(self) -> RatingStream:
        """How this schedule's ratings are kept as matches are stored (``rated.py``)."""

    def attach(self, store: Store) -> None:
        """Rate each match as it is stored, in its transaction; a fold from another key (an
        older version, other settings) is rebuilt first."""
        store.stream = self.stream()
        if not store.stream.fresh(store):
            self.rerate(store)

    def settle(self, store: Store) -> None:
        """Rate the matches waiting behind a gap (nothing is in flight: it stays)."""
        stream = self.stream()
        if stream.fresh(store):
            stream.settle(store)
        else:
            self.rerate(store)

    def rerate(self, store: Store) -> None:
        """Rebuild the ratings and their history from the stored results, in one pass."""
        _, stored = self.records(store)
        self.stream().rebuild(store, stored)


def play(
    schedule: Schedule,
    executor: Executor,
    store: Store,
    progress: Progress | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> Tally:
    """Play ``schedule`` on ``executor`` into ``store`` until it is finished, has nothing more
    to play, or ``stop()``; see the module docstring. ``stop`` is asked at the start, after
    each finished match (before a void is tried again) and after each wait of the schedule, so
    stopping waits only for the matches in flight.

    Raises HostFailure (after the matches in flight, once a ``host:`` void came back) and
    StorageError (the database was deleted or replaced meanwhile).
    """
    return _Loop(schedule, executor, store, stop).run(progress)


class _Loop:
    """The state of one :func:`play`."""

    def __init__(
        self, schedule: Schedule, executor: Executor, store: Store, stop: Callable[[], bool]
    ) -> None:
        self.schedule, self.store, self.stop = schedule, store, stop
        self.dispatcher = Dispatcher(executor)
        self.tally = Tally()
        self.own_voids = store.match_voids()
        self.key = deal_key(store)  # every engine seed is an HMAC under it
        self.held: dict[str, MatchSpec] = {}  # handed out, not settled yet
        self.host_failure = ""
        self.stopped = False  # what ``stop()`` said when last asked
        self.unsettled = False  # a match stored since the schedule last settled

    def halted(self) -> bool:
        return bool(self.host_failure) or self.stopped or self.schedule.finished()

    def run(self, progress: Progress | None) -> Tally:
        with heap.frozen():  # what the runner holds before: out of the collector's passes
            return self._run(progress)

    def _run(self, progress: Progress | None) -> Tally:
        self.schedule.attach(self.store)
        self.stopped = self.stop()
        if not self.halted():
            self.hand_out()
        report = progress or (lambda _done, _total, _faults, _pace: None)
        pace = self.dispatcher.concurrency.shown
        report(self.done(), self.schedule.total(), 0, pace())
        while not self.halted():
            if not self.held:
                self.catch_up()
                self.hand_out()
                if not self.held:
                    if not self.schedule.idle():
                        break
                    self.stopped = self.stop()
                    continue
            for finished in self.dispatcher.finished():
                self.store_all([(job, r) for job, r in finished if r.void is None])
                for job, returned in finished:
                    if not self.settle(job, returned):
                        continue  # played again
                    report(self.done(), self.schedule.total(), self.tally.faults, pace())
                    self.stopped = self.stop()
                    if self.halted():
                        self.dispatcher.stop()
                    elif self.held:  # else a pause: settle before the schedule is asked again
                        self.hand_out()
        self.catch_up(always=True)
        self.store.check_still_there()
        if self.host_failure:
            raise HostFailure(
                f"the run stopped: {self.host_failure}; nothing was stored for the matches this "
                "machine could not start and no bot was blamed: fix it (see `arena sandbox "
                "probe`) and run the same command again"
            )
        return self.tally

    def done(self) -> int:
        return self.schedule.already + self.tally.played + self.tally.failed

    def catch_up(self, always: bool = False) -> None:
        """Whenever nothing is in flight and a match was stored since (a following ladder:
        after each set), and at the end: the schedule brings what it keeps up to date."""
        if self.unsettled or always:
            self.schedule.settle(self.store)
            self.unsettled = False

    def hand_out(self) -> None:
        """Queue what the schedule asks for now, but a match whose own voids reached the limit."""
        specs = self.schedule.next(self.store, busy=bool(self.held))
        queued: list[tuple[MatchSpec, bool]] = []  # and whether it must run alone
        for spec in specs:
            if spec.match_id in self.held:
                continue
            voids = self.own_voids.get(spec.match_id, 0)
            if voids >= MAX_VOIDS:
                last = self.store.last_void(spec.match_id)
                self.give_up(Abandoned(spec, 0, voids, last))
                continue
            self.held[spec.match_id] = spec
            queued.append((spec, voids > 0))
        if queued:
            self.dispatcher.extend(self.jobs(self.schedule.cfg, queued))

    def jobs(self, cfg: LadderConfig, queued: list[tuple[MatchSpec, bool]]) -> Iterator[Job]:
        """The jobs of ``queued`` matches of the ladder ``cfg`` (as the schedule read it for
        them), each made when the dispatcher asks for it."""
        authors = {name for name, _ in cfg.refs}
        for spec, solo in queued:
            deal = spec.set_id if authors.intersection(spec.table) else None
            yield Job(MatchJob.of(cfg, spec, self.key), solo=solo, deal=deal)

    def store_all(self, done: list[tuple[Job, Returned]]) -> None:
        """Store the matches of a finished job that were played, in one transaction (group
        commit: none of them is reported before all are stored)."""
        if done:
            matches = [(self.held[job.key], r.result or {}, job.attempt) for job, r in done]
            self.store.record_matches(matches)
            self.store.check_still_there()

    def settle(self, job: Job, returned: Returned) -> bool:
        """Count a stored match or record its void; False when it is played again."""
        spec = self.held[job.key]
        if returned.void is None:
            assert returned.result is not None
            del self.held[job.key]
            self.tally.played += 1
            self.tally.faults += sum(1 for s in returned.result["seats"] if s["status"] != "ok")
            self.unsettled = True
            self.schedule.stored(self.store, spec)
            return True
        blame = _blame(returned, job)
        self.store.record_void(job.key, job.attempt, returned.void, spec.bots, blame)
        voids = self.own_voids[job.key] = self.own_voids.get(job.key, 0) + (blame is Blame.MATCH)
        self.stopped = self.stop()
        if blame is Blame.HOST:
            self.host_failure = self.host_failure or returned.void
            self.dispatcher.stop()
        elif voids < MAX_VOIDS and job.attempt < MAX_ATTEMPTS and not self.halted():
            self.tally.retries += 1  # stopping: no retries
            self.dispatcher.again(job, solo=True)
            return False
        del self.held[job.key]
        self.give_up(Abandoned(spec, job.attempt, voids, returned.void))
        return True

    def give_up(self, gone: Abandoned) -> None:
        self.tally.abandoned.append(gone)
        self.schedule.abandoned(self.store, gone)


def _blame(returned: Returned, job: Job) -> Blame:
    """Whose failure a void was: this machine's (it failed, or it was too busy), or a worker's
    death with several matches in flight (not known which caused it), or this match's own."""
    if returned.host_void:
        return Blame.HOST
    if returned.load_void:
        return Blame.LOAD
    return Blame.SHARED if returned.worker_died and not job.solo else Blame.MATCH


def register(cfg: LadderConfig, store: Store) -> None:
    """Record the ladder's bots with what each command runs (refused if that changed)."""
    files = {b.name: program_files(b.argv(), b.cwd or Path.cwd()) for b in cfg.bots}
    store.register_bots(cfg.bots, files)


def check_host(cfg: LadderConfig) -> str:
    """The level bots will run at; HostFailure if this machine cannot run them (no confining
    level and no explicit ``rlimits``, or Arena's Python unusable by bots at that level)."""
    try:
        level = sandbox.choose(cfg.sandbox)
    except sandbox.SandboxError as exc:
        raise HostFailure(str(exc)) from None
    python = any(b.argv()[0] == sys.executable for b in cfg.bots)
    problem = sandbox.interpreter_problem(level) if python and level != "rlimits" else ""
    if problem:
        raise HostFailure(f"{problem}; nothing was played")
    return level


def check_replays(folder: Path | None) -> None:
    """StorageError, before anything is played, if replays cannot be written to ``folder``."""
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".arena-write-test-{time.monotonic_ns()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise StorageError(
            f"{folder}: the replay folder cannot be written ({exc.strerror}); nothing was "
            "played: fix it, or set replays = false in the ladder file"
        ) from None
