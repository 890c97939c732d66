"""A sequential test between two bots of a ladder file: duplicate sets until the SPRT decides.

``arena test FILE A B`` plays duplicate sets of A against B (set 0, 1, 2, ...) with the ladder
file's game, options, limits, sandbox and bots. With more than two seats the other seats go to
the file's other bots, in turn (sorted by name, so the file's order does not matter), and
every bot of a set sits in every seat once, as in a ladder. After each set the test walks the
complete sets in index order (:func:`arena.ladder.stats.sprt`) and stops at the first bound
crossed, or when ``max_sets`` sets are complete.

Results go to their own database beside the ladder's (``<db stem>.test.A.B.db``), through the
same store, executor and retry rules as a ladder. A test killed at any moment resumes from the
stored matches, and since the decision is a function of the sets in index order (sets played
while it was being reached are ignored), a resumed test reaches the same decision.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.ladder import database as db
from arena.ladder import run as ladder
from arena.ladder.config import LadderConfig
from arena.ladder.deal_key import deal_key
from arena.ladder.executor import Dispatcher, Executor, Job
from arena.ladder.ratings import set_relative_scores
from arena.ladder.schedule import MatchSpec, digest, duplicate_set
from arena.ladder.stats import SprtSettings, SprtState, sprt
from arena.ladder.store import Store, storage_error

Progress = Callable[[SprtState, int], None]
"""Called with the test's state and the number of complete sets stored, after each match."""


class Stopped(RuntimeError):
    """A match stayed void (or its own voids reached the limit): the test cannot go on."""


@dataclass(frozen=True)
class Outcome:
    state: SprtState
    stored_before: int  # complete sets stored when the run started
    complete: int  # complete sets stored now (sets past the decision included)
    max_sets: int


def database(cfg: LadderConfig, a: str, b: str) -> Path:
    """The test's own SQLite file, beside the ladder's database (or its file, when the ladder's
    database is a server: a test is one organiser's experiment)."""
    return db.beside(cfg.database, cfg.path, f".test.{a}.{b}.db")


def fillers(cfg: LadderConfig, a: str, b: str, index: int) -> tuple[str, ...]:
    """The bots in the seats beside A and B in set ``index``: the others, in turn."""
    others = sorted(n for n in cfg.bot_names if n not in (a, b))
    k = cfg.seats - 2
    return tuple(others[(index * k + j) % len(others)] for j in range(k))


def set_matches(cfg: LadderConfig, a: str, b: str, index: int) -> list[MatchSpec]:
    """The matches of set ``index``: its id and deal come from the ladder seed, the game's
    fingerprint, A, B and the index."""
    table = tuple(sorted((a, b, *fillers(cfg, a, b, index))))
    set_id = digest("test", cfg.seed, cfg.fingerprint(), a, b, index)[:16]
    return duplicate_set(set_id, table, index, index * cfg.seats)


def differences(stored: dict[str, dict[str, float]], ids: list[str], a: str, b: str) -> list[float]:
    """A's per-set relative score minus B's for the sets complete from index 0 without a gap."""
    values = []
    for set_id in ids:
        if set_id not in stored:
            break
        values.append(stored[set_id][a] - stored[set_id][b])
    return values


class _Test:
    """The state of one run: the schedule so far, what is stored, the SPRT over it."""

    def __init__(self, cfg: LadderConfig, a: str, b: str, settings: SprtSettings, max_sets: int):
        self.cfg, self.a, self.b, self.settings = cfg, a, b, settings
        self.sets = [set_matches(cfg, a, b, i) for i in range(max_sets)]
        self.ids = [s[0].set_id for s in self.sets]
        self.positions = {m.match_id: m.position for s in self.sets for m in s}

    def state(self, store: Store) -> tuple[SprtState, int]:
        """The SPRT over the stored sets, and how many sets are complete."""
        per_set = set_relative_scores(store.match_records(self.positions))
        values = differences(per_set, self.ids, self.a, self.b)
        return sprt(values, self.settings), len(values)


def play_until_decided(
    cfg: LadderConfig,
    a: str,
    b: str,
    settings: SprtSettings,
    max_sets: int,
    executor: Executor,
    progress: Progress | None = None,
) -> Outcome:
    """Play sets of A against B until the test decides or ``max_sets`` sets are complete.

    Raises what :func:`arena.ladder.run.run_ladder` raises before and while playing, and
    Stopped when a match of the sets the test needs stays void.
    """
    ladder.check_host(cfg)
    ladder.check_replays(cfg.replays)
    test = _Test(cfg, a, b, settings, max_sets)
    path = database(cfg, a, b)
    store = Store.create(path, cfg.game.id)
    try:
        return _play(test, store, executor, progress)
    except db.Error as exc:
        raise storage_error(path, exc) from None
    finally:
        store.close()


def _play(test: _Test, store: Store, executor: Executor, progress: Progress | None) -> Outcome:
    """Hand out the sets the test may need next, store what finishes, stop at the decision."""
    cfg, max_sets = test.cfg, len(test.sets)
    store.register_bots(cfg.bots)
    secret = deal_key(store)
    state, before = test.state(store)
    complete = before
    if progress is not None:
        progress(state, complete)
    done = store.done_ids()
    blocked = {k: n for k, n in store.match_voids().items() if n >= ladder.MAX_VOIDS}
    # enough sets in flight to keep every slot busy, and one more
    ahead = math.ceil(executor.slots / cfg.seats) + 1
    queued = 0  # sets handed out so far (their matches not stored yet)
    dispatcher = Dispatcher(executor, [])

    def hand_out(upto: int) -> None:
        nonlocal queued
        for spec in (m for s in test.sets[queued:upto] for m in s):
            if spec.match_id in blocked:
                raise Stopped(
                    f"match {spec.match_id} (set {spec.round}: {', '.join(spec.bots)}) voided "
                    f"{blocked[spec.match_id]} times by its own referee or worker failing and "
                    "is not played again (a bot may be crashing the referee to undo a loss); "
                    f"look into it, then delete {store.path} to start the test afresh"
                )
            if spec.match_id not in done:
                dispatcher.queue.append(Job(spec.match_id, ladder.match_job(cfg, spec, secret)))
        queued = max(queued, upto)

    if state.decision is None and complete < max_sets:
        hand_out(min(max_sets, complete + ahead))
    specs = {m.match_id: m for s in test.sets for m in s}
    for job, result in dispatcher:
        if result.get("void"):
            _void(store, dispatcher, job, result, specs[job.key])
            continue
        store.record_match(specs[job.key], result, job.attempt)
        store.check_still_there()
        done.add(job.key)
        state, complete = test.state(store)
        if progress is not None:
            progress(state, complete)
        if state.decision is not None or complete >= max_sets:
            dispatcher.stop()
        else:
            hand_out(min(max_sets, complete + ahead))
    return Outcome(state, before, complete, max_sets)


def _void(store: Store, dispatcher: Dispatcher, job: Job, result: dict, spec: MatchSpec) -> None:
    """Record a void attempt and retry it, as a ladder run does; stop when it stays void."""
    blame = ladder.void_blame(result, job)
    store.record_void(job.key, job.attempt, result["void"], spec.bots, blame)
    if blame == "host":
        raise ladder.HostFailure(f"the test stopped: {result['void']}; nothing was stored for it")
    voids = store.match_voids().get(job.key, 0)
    if job.attempt >= ladder.MAX_ATTEMPTS or voids >= ladder.MAX_VOIDS:
        raise Stopped(
            f"match {job.key} (set {spec.round}: {', '.join(spec.bots)}) is still void after "
            f"{job.attempt} tries: {result['void']}; run the same command again to retry it"
        )
    dispatcher.again(job, solo=True)
