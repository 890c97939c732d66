"""A sequential test between two bots of a ladder file: duplicate sets until the SPRT decides.

``arena test FILE A B`` plays duplicate sets of A against B (set 0, 1, 2, ...) with the ladder
file's game, options, limits, sandbox and bots. With more than two seats the other seats go to
the file's other bots, in turn (sorted by name, so the file's order does not matter), and
every bot of a set sits in every seat once, as in a ladder. After each set the test walks the
complete sets in index order (:func:`arena.ladder.stats.sprt`) and stops at the first bound
crossed, or when ``max_sets`` sets are complete.

Results go to their own database beside the ladder's (``<db stem>.test.A.B.db``), through the
same store, executor and ladder loop as a ladder (``loop.py``): the test is a schedule whose
stopping rule is the SPRT. A test killed at any moment resumes from the stored matches, and
since the decision is a function of the sets in index order (sets played while it was being
reached are ignored), a resumed test reaches the same decision. A match the test needs that
stays void after its tries stops it (``Stopped``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.ladder import database as db
from arena.ladder.config import LadderConfig
from arena.ladder.executor import Executor
from arena.ladder.loop import Abandoned, Schedule, check_host, check_replays, play
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


class SequentialTest(Schedule):
    """The sets of A against B in index order, handed out a few ahead of the complete ones;
    its stopping rule is the SPRT over the complete sets (or ``max_sets`` of them)."""

    def __init__(
        self,
        cfg: LadderConfig,
        a: str,
        b: str,
        settings: SprtSettings,
        max_sets: int,
        slots: int,
        progress: Progress | None = None,
    ) -> None:
        super().__init__(cfg)
        self.a, self.b, self.settings, self.progress = a, b, settings, progress
        self.sets = [set_matches(cfg, a, b, i) for i in range(max_sets)]
        self.ids = [s[0].set_id for s in self.sets]
        self.positions = {m.match_id: m.position for s in self.sets for m in s}
        self.ahead = math.ceil(slots / cfg.seats) + 1  # every slot busy, and one set more
        self.queued = 0  # sets handed out so far
        self.state = sprt([], settings)
        self.complete = 0  # sets complete from index 0 without a gap
        self.stuck = ""  # why the test cannot go on

    def measure(self, store: Store) -> None:
        """The SPRT over the stored sets; told to ``progress``."""
        per_set = set_relative_scores(store.match_records(self.positions))
        values = differences(per_set, self.ids, self.a, self.b)
        self.state, self.complete = sprt(values, self.settings), len(values)
        if self.progress is not None:
            self.progress(self.state, self.complete)

    def next(self, store: Store, busy: bool) -> list[MatchSpec]:
        upto = min(len(self.sets), self.complete + self.ahead)
        done = store.done_ids()
        specs = [m for s in self.sets[self.queued : upto] for m in s if m.match_id not in done]
        self.queued = max(self.queued, upto)
        return specs

    def stored(self, store: Store, spec: MatchSpec) -> None:
        self.measure(store)

    def abandoned(self, store: Store, gone: Abandoned) -> None:
        spec = gone.spec
        match = f"match {spec.match_id} (set {spec.round}: {', '.join(spec.bots)})"
        if gone.blocked:
            self.stuck = (
                f"{match} voided {gone.voids} times by its own referee or worker failing and is "
                "not played again (a bot may be crashing the referee to undo a loss); look into "
                f"it, then delete {store.path} to start the test afresh"
            )
        else:
            self.stuck = (
                f"{match} is still void after {gone.tries} tries: {gone.last}; run the same "
                "command again to retry it"
            )

    def decided(self) -> bool:
        return self.state.decision is not None or self.complete >= len(self.sets)

    def finished(self) -> bool:
        return self.decided() or bool(self.stuck)


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
    check_host(cfg)
    check_replays(cfg.replays)
    test = SequentialTest(cfg, a, b, settings, max_sets, executor.slots, progress)
    path = database(cfg, a, b)
    store = Store.create(path, cfg.game.id)
    try:
        store.register_bots(cfg.bots)
        test.measure(store)
        before = test.complete
        play(test, executor, store)
    except db.Error as exc:
        raise storage_error(path, exc) from None
    finally:
        store.close()
    if not test.decided():
        raise Stopped(test.stuck)
    return Outcome(test.state, before, test.complete, max_sets)
