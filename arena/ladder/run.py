"""A ladder run: file -> schedule -> executor -> store -> ratings, resumable at any moment.

The runner is the only writer of the database. It skips every match id already stored, hands
the rest to the executor, stores each finished match in its own transaction, retries a void
match (a referee or worker failure, never a bot's) a bounded number of times, and at the end
rebuilds the ratings from everything stored, in schedule order.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena.ladder.config import LadderConfig
from arena.ladder.executor import Dispatcher, Executor, Job
from arena.ladder.ratings import BotStats, MatchRecord, ladder_stats, rate
from arena.ladder.schedule import MatchSpec, build_schedule
from arena.ladder.store import Store
from arena.match.bots import BotSpec

MAX_ATTEMPTS = 3

Progress = Callable[[int, int, int], None]
"""Called after each stored or abandoned match with (done, total, faults so far)."""


@dataclass(frozen=True)
class RunSummary:
    scheduled: int
    already: int
    played: int
    failed: int
    retries: int
    faults: int
    elapsed_s: float


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


def match_job(cfg: LadderConfig, spec: MatchSpec) -> dict[str, Any]:
    """Everything a worker needs to play ``spec``: plain data, absolute paths."""
    bots = {b.name: b for b in cfg.bots}
    return {
        "match_id": spec.match_id,
        "game": cfg.game.id,
        "seed": spec.seed,
        "options": cfg.options,
        "limits": cfg.limits.as_dict(),
        "sandbox_limits": cfg.sandbox_limits.as_dict(),
        "sandbox": cfg.sandbox,
        "policy": cfg.policy.as_dict(),
        "bots": [bot_job(bots[n]) for n in spec.bots],
        "replay": str(cfg.replays / f"{spec.match_id}.json.gz") if cfg.replays else None,
    }


def bot_job(bot: BotSpec) -> dict[str, Any]:
    """A bot as plain data for a worker (see ``executor.run_match``)."""
    return {
        "name": bot.name,
        "command": list(bot.command),
        "cwd": str(bot.cwd),
        "transport": bot.transport,
        "limits": bot.limits.as_dict() if bot.limits else None,
    }


def records(cfg: LadderConfig, store: Store) -> tuple[list[MatchSpec], list[MatchRecord]]:
    """The schedule, and the stored matches that belong to it, in schedule order."""
    schedule = schedule_of(cfg)
    return schedule, store.match_records({s.match_id: s.position for s in schedule})


def rerate(cfg: LadderConfig, store: Store) -> list[BotStats]:
    """Rebuild the ratings and their history from the stored results; the ladder table."""
    _, stored = records(cfg, store)
    ratings, history = rate(stored, cfg.rating, cfg.bot_names)
    store.write_ratings(ratings, history)
    return ladder_stats(stored, cfg.rating, cfg.bot_names)


def run_ladder(
    cfg: LadderConfig, executor: Executor, progress: Progress | None = None
) -> RunSummary:
    """Play every scheduled match not stored yet; then rerate."""
    started = time.monotonic()
    schedule = schedule_of(cfg)
    store = Store.create(cfg.database, cfg.game.id)
    try:
        store.register_bots(cfg.bots)
        done = store.done_ids()
        specs = {s.match_id: s for s in schedule if s.match_id not in done}
        jobs = [Job(key, match_job(cfg, spec)) for key, spec in specs.items()]
        already = len(schedule) - len(jobs)
        dispatcher = Dispatcher(executor, jobs)
        played = failed = retries = faults = 0
        if progress is not None:
            progress(already, len(schedule), faults)
        for job, result in dispatcher:
            if result.get("void"):
                store.record_void(job.key, job.attempt, result["void"])
                if job.attempt < MAX_ATTEMPTS:
                    retries += 1
                    dispatcher.again(job)
                    continue
                failed += 1
            else:
                store.record_match(specs[job.key], result, job.attempt)
                played += 1
                faults += sum(1 for s in result["seats"] if s["status"] != "ok")
            if progress is not None:
                progress(already + played + failed, len(schedule), faults)
        rerate(cfg, store)
    finally:
        store.close()
    elapsed = time.monotonic() - started
    return RunSummary(len(schedule), already, played, failed, retries, faults, elapsed)
