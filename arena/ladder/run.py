"""A ladder run: file -> schedule -> executor -> store -> ratings, resumable at any moment.

The runner is the only writer of the database. A ladder file's schedule is a fixed round robin
(:class:`RoundRobin`: every scheduled match not stored yet, handed out at once), or with a
``[follow]`` table a following ladder (``follow.py``); either is played by the one ladder loop
(``loop.py``: voids, retries, host failures, stopping, rerating).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from arena.ladder import database
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.executor import Executor
from arena.ladder.follow import Following
from arena.ladder.loop import (
    Abandoned,
    LadderSchedule,
    Progress,
    check_host,
    check_replays,
    play,
    register,
)
from arena.ladder.rated import RatingStream
from arena.ladder.ratings import MatchRecord
from arena.ladder.schedule import MatchSpec, build_schedule, schedule_sets
from arena.ladder.sets import StoredSets
from arena.ladder.store import Store, storage_error


@dataclass(frozen=True)
class RunSummary:
    scheduled: int | None  # None: a following ladder, which has no end
    already: int
    played: int
    failed: int
    retries: int
    faults: int
    elapsed_s: float
    blocked: list[Abandoned] = field(default_factory=list)

    def suspects(self) -> list[str]:
        """Bots seated in every blocked match (the likeliest cause), by name."""
        if not self.blocked:
            return []
        common = set.intersection(*(set(b.bots) for b in self.blocked))
        return sorted(common)


UPCOMING_SETS = 20  # the next sets the server's queue shows of a ladder file's schedule


def schedule_args(cfg: LadderConfig) -> tuple[Any, ...]:
    """What a ladder file's schedule depends on: ``build_schedule``'s arguments."""
    return (cfg.bot_names, cfg.seats, cfg.rounds, cfg.seed, cfg.fingerprint(), cfg.candidate,
            cfg.max_tables)  # fmt: skip


def schedule_of(cfg: LadderConfig) -> list[MatchSpec]:
    return build_schedule(*schedule_args(cfg))


class RoundRobin(LadderSchedule):
    """A ladder file's fixed schedule: every table of every round, each match once. Everything
    not stored yet is handed out at once; the run ends when the executor has played it.

    What comes next (:meth:`upcoming`) is kept from one call to the next: the stored sets
    (tallied from the matches stored since, ``sets.py``), the sets drawn from the schedule
    that were not whole when last seen, and where the walk through the schedule stands; so a
    call costs the matches stored since and the sets it shows, never the whole schedule."""

    def __init__(self, cfg: LadderConfig) -> None:
        super().__init__(cfg)
        self.handed = False
        self.sets = StoredSets()
        self.walk: Iterator[list[MatchSpec]] | None = None
        self.front: list[list[MatchSpec]] = []  # sets drawn, not whole when last seen
        self.tallied = -1  # self.sets.cleared when the walk began

    @functools.cached_property
    def specs(self) -> list[MatchSpec]:
        return schedule_of(self.cfg)

    def next(self, store: Store, busy: bool) -> list[MatchSpec]:
        if self.handed:
            return []
        self.handed = True
        done = store.done_ids()
        pending = [s for s in self.specs if s.match_id not in done]
        self.already = len(self.specs) - len(pending)
        return pending

    def total(self) -> int:
        return len(self.specs)

    def records(self, store: Store) -> tuple[list[MatchSpec], list[MatchRecord]]:
        return self.specs, store.match_records({s.match_id: s.position for s in self.specs})

    def stream(self) -> RatingStream:
        return RatingStream(self.cfg, append=False, scheduled=len(self.specs))

    def upcoming(self, store: Store | None, sets: int = UPCOMING_SETS) -> list[MatchSpec]:
        """The matches not stored of the first ``sets`` sets not stored whole, in schedule
        order (see the class docstring)."""
        tally = self.sets.update(store) if store is not None else StoredSets()
        if self.walk is None or self.tallied != tally.cleared:  # matches forgotten: again
            self.walk, self.front = schedule_sets(*schedule_args(self.cfg)), []
            self.tallied = tally.cleared

        def stored(spec: MatchSpec) -> bool:
            found = tally.sets.get(spec.set_id)
            return found is not None and spec.match_id in found.ids

        self.front = [g for g in self.front if not all(map(stored, g))]
        while len(self.front) < sets and (group := next(self.walk, None)) is not None:
            if not all(map(stored, group)):
                self.front.append(group)
        return [s for group in self.front[:sets] for s in group if not stored(s)]


def schedule_for(
    cfg: LadderConfig, reload: Callable[[], LadderConfig] | None = None
) -> LadderSchedule:
    """The schedule of the ladder ``cfg``: following with a ``[follow]`` table (``reload``
    reads the ladder as it stands before each set; by default its file), else fixed."""
    if cfg.follow is None:
        return RoundRobin(cfg)
    return Following(cfg, reload or (lambda: load_ladder(cfg.path, check_bots=True)))


def records(cfg: LadderConfig, store: Store) -> tuple[list[MatchSpec], list[MatchRecord]]:
    """The schedule, and the stored matches that belong to it, in schedule order (a following
    ladder's: what it stored, in that order)."""
    return schedule_for(cfg).records(store)


def rerate(cfg: LadderConfig, store: Store) -> None:
    """Rebuild the ratings and their history from the stored results."""
    schedule_for(cfg).rerate(store)


def run_ladder(
    cfg: LadderConfig,
    executor: Executor,
    progress: Progress | None = None,
    stop: Callable[[], bool] | None = None,
    reload: Callable[[], LadderConfig] | None = None,
) -> RunSummary:
    """Play every scheduled match not stored yet, then rerate; a following ladder plays on
    until ``stop()``, reading the ladder before each set (``reload``, see ``schedule_for``).

    Once ``stop()`` is true nothing more is handed out: the matches in flight finish and are
    stored, the ratings are rebuilt and the summary returned (a later run plays the rest). It
    is asked after each finished match, so stopping waits only for the matches in flight.

    Raises HostFailure (before any match, or after the first ``host:`` void), StorageError
    (the database or the replay folder cannot be written), StoreError (the database does
    not fit the file, or another run holds it) and, for a following ladder, LadderConfigError
    when the file, read again before a set, is no longer valid.
    """
    check_host(cfg)
    check_replays(cfg.replays)
    store = Store.create(cfg.database, cfg.game.id)
    try:
        started = time.monotonic()
        schedule = schedule_for(cfg, reload)
        register(cfg, store)
        tally = play(schedule, executor, store, progress, stop or (lambda: False))
        elapsed = time.monotonic() - started
        return RunSummary(schedule.total(), schedule.already, tally.played, tally.failed,
                          tally.retries, tally.faults, elapsed, tally.blocked)  # fmt: skip
    except database.Error as exc:
        raise storage_error(cfg.database, exc) from None
    finally:
        store.close()
