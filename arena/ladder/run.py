"""A ladder run: file -> schedule -> executor -> store -> ratings, resumable at any moment.

The runner is the only writer of the database. It skips every match id already stored, hands
the rest to the executor, stores each finished match in its own transaction, retries a void
match (a referee or worker failure, never a bot's) a bounded number of times, and at the end
rebuilds the ratings from everything stored, in schedule order.

Voids are never a free undo, and never burn a schedule:

* a ``host:`` void (this machine failed to start a bot) stops the run: nothing more is handed
  out, nothing is stored for it, and :class:`HostFailure` says what to fix;
* a worker that dies takes every match in flight with it, so those voids are ``shared`` and the
  matches are retried alone (``solo``): a void of a match that ran alone is its own;
* a match whose own voids reach ``MAX_VOIDS``, over all runs, is not played again: a bot may be
  crashing its referee to undo losses. The run finishes the rest and reports it (``blocked``)
  with the bots seated in every such match, for the organiser to judge (``arena ladder forget``
  clears a match's voids).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import sandbox
from arena.ladder import database
from arena.ladder.config import LadderConfig
from arena.ladder.deal_key import deal_key
from arena.ladder.executor import Dispatcher, Executor, Job
from arena.ladder.ratings import BotStats, MatchRecord, ladder_stats, rate
from arena.ladder.schedule import MatchSpec, build_schedule, engine_seed
from arena.ladder.store import StorageError, Store, storage_error
from arena.match.bots import BotSpec
from arena.match.results import is_host_void
from arena.registry.content import program_files

MAX_ATTEMPTS = 3
MAX_VOIDS = 5  # a match's own voids over all runs (a full run of tries and 2 more), then no more


class HostFailure(RuntimeError):
    """This machine cannot run the ladder's bots (sandbox, interpreter, cgroup, uid, fork)."""


Progress = Callable[[int, int, int], None]
"""Called after each stored or abandoned match with (done, total, faults so far)."""


@dataclass(frozen=True)
class Blocked:
    """A match no longer played: its own voids reached ``MAX_VOIDS``."""

    match_id: str
    bots: tuple[str, ...]
    voids: int
    last: str


@dataclass(frozen=True)
class RunSummary:
    scheduled: int
    already: int
    played: int
    failed: int
    retries: int
    faults: int
    elapsed_s: float
    blocked: list[Blocked] = field(default_factory=list)

    def suspects(self) -> list[str]:
        """Bots seated in every blocked match (the likeliest cause), by name."""
        if not self.blocked:
            return []
        common = set.intersection(*(set(b.bots) for b in self.blocked))
        return sorted(common)


def schedule_of(cfg: LadderConfig) -> list[MatchSpec]:
    return build_schedule(
        cfg.bot_names,
        cfg.seats,
        cfg.rounds,
        cfg.seed,
        cfg.fingerprint(),
        cfg.candidate,
        cfg.max_tables,
    )


def match_job(cfg: LadderConfig, spec: MatchSpec, key: bytes) -> dict[str, Any]:
    """Everything a worker needs to play ``spec``: plain data, absolute paths. The engine
    seed comes from the ladder's secret deal ``key`` (``deal_key``), never the schedule."""
    bots = {b.name: b for b in cfg.bots}
    return {
        "match_id": spec.match_id,
        "game": cfg.game.id,
        "seed": engine_seed(key, spec.seed),
        "options": cfg.options,
        "limits": cfg.limits.as_dict(),
        "sandbox_limits": cfg.sandbox_limits.as_dict(),
        "sandbox": cfg.sandbox,
        "policy": cfg.policy.as_dict(),
        "bots": [bot_job(bots[n]) for n in spec.bots],
        "replay": str(cfg.replays / f"{spec.match_id}.json.gz") if cfg.replays else None,
        "lane": spec.rotation,  # a kept bot process plays one rotation: never a deal twice
    }


def bot_job(bot: BotSpec) -> dict[str, Any]:
    """A bot as plain data for a worker (see ``executor.run_match``)."""
    return {
        "name": bot.name,
        "command": list(bot.command),
        "cwd": str(bot.cwd),
        "transport": bot.transport,
        "limits": bot.limits.as_dict() if bot.limits else None,
        "reuse": bot.reuse,
    }


def register(cfg: LadderConfig, store: Store) -> None:
    """Record the file's bots with what each command runs (refused if that changed)."""
    files = {b.name: program_files(b.argv(), b.cwd or Path.cwd()) for b in cfg.bots}
    store.register_bots(cfg.bots, files)


def records(cfg: LadderConfig, store: Store) -> tuple[list[MatchSpec], list[MatchRecord]]:
    """The schedule, and the stored matches that belong to it, in schedule order (a following
    ladder's: what it stored, in that order)."""
    if cfg.follow is not None:
        from arena.ladder import follow  # follow builds on this module

        return follow.records(cfg, store)
    schedule = schedule_of(cfg)
    return schedule, store.match_records({s.match_id: s.position for s in schedule})


def rerate(cfg: LadderConfig, store: Store) -> list[BotStats]:
    """Rebuild the ratings and their history from the stored results; the ladder table."""
    _, stored = records(cfg, store)
    ratings, history = rate(stored, cfg.rating, cfg.bot_names)
    store.write_ratings(ratings, history)
    return ladder_stats(stored, cfg.rating, cfg.bot_names)


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


def run_ladder(
    cfg: LadderConfig,
    executor: Executor,
    progress: Progress | None = None,
    stop: Callable[[], bool] | None = None,
) -> RunSummary:
    """Play every scheduled match not stored yet; then rerate.

    Once ``stop()`` is true nothing more is handed out: the matches in flight finish and are
    stored, the ratings are rebuilt and the summary returned (a later run plays the rest). It
    is asked after each finished match, so stopping waits only for the matches in flight.

    Raises HostFailure (before any match, or after the first ``host:`` void), StorageError
    (the database or the replay folder cannot be written) and StoreError (the database does
    not fit the file, or another run holds it).
    """
    check_host(cfg)
    check_replays(cfg.replays)
    store = Store.create(cfg.database, cfg.game.id)
    try:
        return _run(cfg, executor, store, progress, stop or (lambda: False))
    except database.Error as exc:
        raise storage_error(cfg.database, exc) from None
    finally:
        store.close()


def _run(
    cfg: LadderConfig,
    executor: Executor,
    store: Store,
    progress: Progress | None,
    stop: Callable[[], bool],
) -> RunSummary:
    started = time.monotonic()
    schedule = schedule_of(cfg)
    register(cfg, store)
    secret = deal_key(store)
    done = store.done_ids()
    specs = {s.match_id: s for s in schedule if s.match_id not in done}
    own_voids = store.match_voids()
    blocked = [
        _blocked(store, specs[k], n) for k, n in own_voids.items() if k in specs and n >= MAX_VOIDS
    ]
    jobs = [
        Job(key, match_job(cfg, spec, secret), solo=key in own_voids)
        for key, spec in specs.items()
        if own_voids.get(key, 0) < MAX_VOIDS
    ]
    already = len(schedule) - len(specs)
    dispatcher = Dispatcher(executor, jobs)
    played = failed = retries = faults = 0
    host_failure = ""
    if progress is not None:
        progress(already, len(schedule), faults)
    if stop():
        dispatcher.stop()
    for job, result in dispatcher:
        if result.get("void"):
            blame = void_blame(result, job)
            store.record_void(job.key, job.attempt, result["void"], specs[job.key].bots, blame)
            own_voids[job.key] = own_voids.get(job.key, 0) + (blame == "match")
            if blame == "host":
                host_failure = host_failure or result["void"]
                dispatcher.stop()
                failed += 1
            elif own_voids[job.key] >= MAX_VOIDS:
                blocked.append(_blocked(store, specs[job.key], own_voids[job.key]))
                failed += 1
            elif job.attempt < MAX_ATTEMPTS and not host_failure and not stop():
                retries += 1  # stopping: no retries
                dispatcher.again(job, solo=True)
                continue
            else:
                failed += 1
        else:
            store.record_match(specs[job.key], result, job.attempt)
            store.check_still_there()
            played += 1
            faults += sum(1 for s in result["seats"] if s["status"] != "ok")
        if progress is not None:
            progress(already + played + failed, len(schedule), faults)
        if stop():
            dispatcher.stop()
    rerate(cfg, store)
    store.check_still_there()
    if host_failure:
        raise HostFailure(
            f"the run stopped: {host_failure}; nothing was stored for the matches this machine "
            "could not start and no bot was blamed: fix it (see `arena sandbox probe`) and run "
            "the same command again"
        )
    elapsed = time.monotonic() - started
    blocked.sort(key=lambda b: b.match_id)
    return RunSummary(len(schedule), already, played, failed, retries, faults, elapsed, blocked)


def void_blame(result: dict[str, Any], job: Job) -> str:
    """Whose failure a void was (see ``store.VOID_COLUMNS``)."""
    if is_host_void(result["void"]):
        return "host"
    return "shared" if result.get("worker_died") and not job.solo else "match"


def _blocked(store: Store, spec: MatchSpec, voids: int) -> Blocked:
    return Blocked(spec.match_id, tuple(spec.bots), voids, store.last_void(spec.match_id))
