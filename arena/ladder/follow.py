"""Following ladders: ``arena ladder run FILE --follow`` keeps playing and takes new versions.

A ladder file with a ``[follow]`` table has no fixed schedule. The runner plays one duplicate
set at a time, for ever (until stopped), and before each set reads the file again, so a bot
named ``bot = "alice"`` is whatever version of alice is active *now*: a new submission enters
at once, and its previous version leaves the schedule but keeps its results, shown in the
table. The next table is chosen by ``matchmaking.next_table`` (the new version's placement
sets first, then the table expected to teach the ratings the most), always as a complete
duplicate set.

Everything the choice depends on is in the database, so a runner killed at any moment and
started again first completes the set it was playing (its missing rotations, by the same
match ids: nothing is played twice), then chooses exactly as it would have. The set id of a
table's k-th set is a digest of the ladder seed, the configuration and (table, k). Stopped, it
hands out nothing more and the matches in flight finish; the next run completes their set.

Voids follow the ladder loop's rules (``loop.py``), as in any run: a match whose own voids
reach ``MAX_VOIDS`` is not played again, and its set is passed over (that table's next set
comes in its place), so a bot that keeps killing its referee cannot hold the ladder up.

**Crash policy**, per registry version and per ladder: a version with ``MAX_FAULTS`` faulted
seats, or faults in more than ``MAX_FAULT_SHARE`` of at least ``MIN_GAMES`` games, is
``suspended`` in the registry with the reason, and its faults (match ids, codes, stderr tails)
are kept there for ``arena bot show``. ``bot = "alice"`` then plays alice's latest version
still active, if any; while a bot has none the runner waits and says so.

Ratings of a following ladder are computed in the order matches were stored (its schedule is
that order), with each new version starting from its previous version's mu and a fresh sigma
(``start = "inherit"``), or from the prior (``"fresh"``).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable

from arena.ladder.config import LadderConfig, LadderConfigError
from arena.ladder.loop import MAX_VOIDS, Abandoned, LadderSchedule, register
from arena.ladder.matchmaking import next_table
from arena.ladder.rated import RatingStream, current, rating_key_of, ratings_of
from arena.ladder.ratings import MatchRecord, Rating
from arena.ladder.schedule import MatchSpec, digest, duplicate_set
from arena.ladder.sets import StoredSets
from arena.ladder.store import Store
from arena.match.results import OK
from arena.registry.store import Registry

MAX_FAULTS = 10
MAX_FAULT_SHARE = 0.5
MIN_GAMES = 6


class Following(LadderSchedule):
    """A following ladder's schedule: one duplicate set at a time, for ever. Before each set it
    reads the ladder again (``reload``), and while a bot has no active version left, or too few
    bots are active, it waits (``poll_s``); after each set the crash policy is applied."""

    def __init__(self, cfg: LadderConfig, reload: Callable[[], LadderConfig]) -> None:
        super().__init__(cfg)
        self.reload = reload
        self.waiting = ""  # why the ladder cannot be read now, said once
        self.left: set[str] = set()  # the matches of the set in play not settled yet
        self.seated: set[str] = set()  # its bots
        self.sets = StoredSets()  # what it stored, read once then only the matches since

    def next(self, store: Store, busy: bool) -> list[MatchSpec]:
        if busy:
            return []
        try:
            cfg = self.reload()
        except LadderConfigError as exc:  # e.g. a bot with no active version left
            if str(exc) != self.waiting:
                print(f"arena: waiting: {exc}", file=sys.stderr, flush=True)
            self.waiting = str(exc)
            return []
        self.cfg, self.waiting = cfg, ""
        register(cfg, store)
        specs = next_set(cfg, store, self.sets)
        self.left = {s.match_id for s in specs}
        self.seated = {b for s in specs for b in s.bots}
        return specs

    def stored(self, store: Store, spec: MatchSpec) -> None:
        self._settled(store, spec)

    def abandoned(self, store: Store, gone: Abandoned) -> None:
        self._settled(store, gone.spec)

    def _settled(self, store: Store, spec: MatchSpec) -> None:
        self.left.discard(spec.match_id)
        if not self.left and self.seated:
            apply_crash_policy(self.cfg, store, self.seated, self.sets)
            self.seated = set()

    def idle(self) -> bool:
        time.sleep(self.cfg.follow.poll_s if self.cfg.follow else 1.0)
        return True

    def records(self, store: Store) -> tuple[list[MatchSpec], list[MatchRecord]]:
        return records(self.cfg, store)

    def stream(self) -> RatingStream:
        return RatingStream(self.cfg, append=True)

    def upcoming(self, store: Store | None) -> list[MatchSpec]:
        """The set being played, else the next one."""
        return next_set(self.cfg, store, self.sets) if store is not None else []


def records(cfg: LadderConfig, store: Store) -> tuple[list[MatchSpec], list[MatchRecord]]:
    """Every stored match of the ladder's bots, in storage order, and the specs they had."""
    rows = store.match_rows()
    order = [i for i in store.stored_order() if i in rows]
    names = set(cfg.bot_names)
    specs = []
    for position, match_id in enumerate(order):
        row = rows[match_id]
        bots = tuple(r["bot"] for r in row["results"])
        if names.issuperset(bots):
            specs.append(
                MatchSpec(
                    position,
                    match_id,
                    row["set_id"],
                    row["round"],
                    tuple(sorted(bots)),
                    row["rotation"],
                    row["seed"],
                    bots,
                )
            )
    return specs, store.match_records({s.match_id: s.position for s in specs})


def next_set(
    cfg: LadderConfig, store: Store, sets: StoredSets | None = None, batch: bool = True
) -> list[MatchSpec]:
    """The matches to play next: the rest of a set left incomplete, else the next table's
    whole set; empty when fewer bots than seats are active. A set with a match no longer
    played (its own voids reached ``MAX_VOIDS``) is passed over. ``sets``: the stored sets
    as tallied before (brought up to date here by reading the matches stored since), so a
    ladder that plays for ever never reads its whole history again. Without ``batch``, a
    store not rated under this ladder yet has no next table (empty) rather than a re-rating."""
    playing = {b.name for b in cfg.bots}
    blocked = {k for k, n in store.match_voids().items() if n >= MAX_VOIDS}
    tally = (sets or StoredSets()).update(store)
    for set_id in sorted(tally.incomplete):
        found = tally.sets[set_id]
        if playing.issuperset(found.table):
            whole = duplicate_set(set_id, found.table, found.round, 0)
            rest = [s for s in whole if s.match_id not in found.ids]
            if blocked.isdisjoint(s.match_id for s in rest):
                return rest
    if len(playing) < cfg.seats:
        return []
    names = set(cfg.bot_names)
    table_sets = Counter({t: n for t, n in tally.tables.items() if names.issuperset(t)})
    ratings = _ratings(cfg, store, batch)
    if ratings is None:
        return []
    table = next_table(
        sorted(playing),
        cfg.seats,
        {n: (r.mu, r.sigma) for n, r in ratings.items()},
        tally.sets_played(names),
        cfg.rating.beta,
        cfg.follow.placement if cfg.follow else 0,
        table_sets,
    )
    k = table_sets[table]
    while True:  # the table's first set neither stored nor passed over
        set_id = digest("follow", cfg.seed, cfg.fingerprint(), "\x1e".join(table), k)[:16]
        whole = duplicate_set(set_id, table, k, 0)
        if set_id not in tally.sets and blocked.isdisjoint(s.match_id for s in whole):
            return whole
        k += 1


def _ratings(cfg: LadderConfig, store: Store, batch: bool) -> dict[str, Rating] | None:
    """The ratings the store keeps, with the few matches queued behind a gap folded on (read
    by id); for a store not rated under this ladder's key yet (its writer re-rates it once,
    when it starts), the batch over every stored match, or None without ``batch``."""
    found = current(store, rating_key_of(cfg), cfg.bot_names, cfg.rating)
    if found is None and batch:
        return ratings_of(cfg, store, records(cfg, store)[1])
    return found


def apply_crash_policy(
    cfg: LadderConfig, store: Store, seated: set[str], sets: StoredSets | None = None
) -> None:
    """Suspend every registry version of ``seated`` over the crash policy's limits (counted
    from ``sets``, the stored sets' tally; a version's seats are read only to suspend it)."""
    versions = {name for name, _ in cfg.refs} & seated
    if not versions or cfg.registry is None:
        return
    tally = (sets or StoredSets()).update(store)
    with Registry(cfg.registry) as reg:
        for ref in sorted(versions):
            games, faulted = tally.games[ref], tally.faults[ref]
            share = faulted / games if games else 0.0
            if faulted >= MAX_FAULTS or (games >= MIN_GAMES and share > MAX_FAULT_SHARE):
                faults = [s for s in store.seat_results(ref) if s["status"] != OK]
                codes = Counter(f["status"] for f in faults)
                kinds = ", ".join(f"{c} x{n}" for c, n in sorted(codes.items()))
                reason = (
                    f"{len(faults)} faults in {games} games of ladder {cfg.name} ({kinds}); "
                    f"limits: {MAX_FAULTS} faults, or over {MAX_FAULT_SHARE:.0%} after {MIN_GAMES}"
                )
                reg.suspend(ref, reason, cfg.name, faults)
