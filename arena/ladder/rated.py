"""Ratings kept up to date in the database as each match is stored, so no read re-rates.

The ratings are a fold over the stored matches in schedule order (``ratings.py``); matches are
stored in the order they finish. So the store keeps the fold over the longest stored prefix of
the schedule: the ``ratings`` table (each bot that played, its ``(mu, sigma)``), the
``rating_history`` rows and ``meta.rated_next`` (the next position to rate). A match stored
ahead of a gap waits in ``rating_queue`` until the gap is filled, in the same transaction as
the match; when nothing is in flight (the end of a run) the queue is rated past any gap left
(a match given up). A reader folds the few queued matches onto the stored ratings, which is
exactly the batch :func:`arena.ladder.ratings.rate` over every stored match; a match stored
behind the prefix (played again after its gap was passed over) rebuilds the whole fold.

``meta.rating_key`` names what the fold depends on (the rating model and its parameters, and
the schedule); a database rated under another key (or by an older version) is re-rated once by
its next writer, and read meanwhile by the batch.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import astuple
from typing import TYPE_CHECKING

from arena.ladder.ratings import (
    HistoryRow,
    MatchRecord,
    Rater,
    Rating,
    Ratings,
    RatingSettings,
    rate,
)
from arena.ladder.running import RUNNING_KEY, Kept
from arena.ladder.schedule import DESIGN, drawn

if TYPE_CHECKING:
    from arena.ladder.config import LadderConfig
    from arena.ladder.schedule import MatchSpec
    from arena.ladder.store import Store

RATED_NEXT = "rated_next"
RATING_KEY = "rating_key"


def rating_key(settings: RatingSettings, schedule: object) -> str:
    """What the stored ratings depend on: the model's parameters (not the inheritance, which
    grows with a following ladder and applies only at a version's first match) and
    ``schedule`` (what decides each match's position)."""
    model = astuple(settings)[:6]
    text = json.dumps([model, schedule], default=str, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def rating_key_of(cfg: LadderConfig) -> str:
    """What the ladder's stored ratings depend on (``rated.py``): its rating settings, and
    what decides each match's position, the schedule's arguments (a following ladder's is
    the storage order)."""
    if cfg.follow is not None:
        return rating_key(cfg.rating, "storage order")
    shape = [cfg.bot_names, cfg.seats, cfg.rounds, cfg.seed, cfg.fingerprint(), cfg.candidate,
             cfg.max_tables, cfg.rating.inherit]  # fmt: skip
    if drawn(len(cfg.bot_names), cfg.seats, cfg.candidate is not None, cfg.max_tables):
        shape.append(DESIGN)  # ratings kept under an earlier draw are rebuilt
    return rating_key(cfg.rating, shape)


class RatingStream:
    """The writer's side: rates each match as it is stored (see the module docstring), and
    keeps the table's tally with it (``running.py``). ``append``: positions are the storage
    order (a following ladder), not given by the spec; ``scheduled``: the schedule's length
    (None for a following ladder, whose schedule is what it stored)."""

    def __init__(self, cfg: LadderConfig, append: bool, scheduled: int | None = None) -> None:
        self.rater = Rater(cfg.rating)
        self.key = rating_key_of(cfg)
        self.bots = cfg.bot_names
        self.append = append
        self.scheduled = scheduled
        self.kept = Kept(cfg)

    def stored(self, store: Store, specs: Sequence[MatchSpec]) -> None:
        """``specs``' matches were just inserted, in this order (inside their transaction):
        rate them and what they unblock, and keep their sets' tally, exactly as if each had
        been stored alone (the fold goes in schedule order, the sets are added in the order
        of their last match either way). Behind the rated prefix, or on a fold not this one,
        both are marked stale for :meth:`settle` to rebuild."""
        rating, running, rated_from = store.metas(RATING_KEY, RUNNING_KEY, RATED_NEXT)
        if rating != self.key or running != self.kept.key:
            return
        rated_next = int(rated_from or 0)
        if self.append:  # the storage order: after what is rated and what waits
            first = rated_next + len(store.queue())
            arrived = {first + i: spec.match_id for i, spec in enumerate(specs)}
        else:
            arrived = {spec.position: spec.match_id for spec in specs}
        if min(arrived) < rated_next:
            store.set_metas({RATING_KEY: "", RUNNING_KEY: ""})
            return
        rated = self.drain(store, rated_next, everything=False, arrived=arrived)
        sets = {spec.match_id: spec.set_id for spec in specs}
        self.kept.stored(store, [(p, m, sets[m]) for p, m in arrived.items()], rated)

    def fresh(self, store: Store) -> bool:
        """Whether the stored fold and tally are this stream's."""
        return store.metas(RATING_KEY, RUNNING_KEY) == [self.key, self.kept.key]

    def settle(self, store: Store) -> None:
        """Nothing is in flight: rate every queued match, past any gap (a match given up)."""
        with store.transaction():
            before = int(store.meta(RATED_NEXT) or 0)
            rated = self.drain(store, before, everything=True)
            self.kept.release(store, rated)
            if rated != before:
                store.ratings_changed()

    def drain(
        self,
        store: Store,
        rated_next: int,
        everything: bool,
        arrived: Mapping[int, str] | None = None,
    ) -> int:
        """Rate the queued matches and those ``arrived`` (just stored: position -> id) from
        ``rated_next`` on in order: those with no gap before them, or (``everything``: nothing
        is in flight) all of them; the arrived ones left behind a gap wait in the queue. Where
        the rated prefix ends now."""
        arrived = arrived or {}
        queued = store.queue()
        ready = []
        for position, match_id in sorted([*queued, *arrived.items()]):
            if position != rated_next and not everything:
                break
            ready.append((position, match_id))
            rated_next = position + 1
        store.queue_ratings([(p, m) for p, m in arrived.items() if p >= rated_next])
        if not ready:
            return rated_next
        records = store.records_of({match_id: position for position, match_id in ready})
        self.fold(store, records)
        store.unqueue_ratings([p for p, _ in queued if p < rated_next], rated_next)
        return rated_next

    def fold(self, store: Store, records: Iterable[MatchRecord]) -> None:
        """Apply ``records`` (in schedule order) to the stored ratings: those of their bots
        (and of the versions they inherit from) are read, the only ones a step reads."""
        records = list(records)
        bots = {seat.bot for match in records for seat in match.seats}
        inherited = {self.rater.inherit[bot] for bot in bots if bot in self.rater.inherit}
        known = store.rating_pairs(bots | inherited)
        changed: Ratings = {}
        history: list[HistoryRow] = []
        for match in records:
            now, rows = self.rater.step(known, match)
            known.update(now)
            changed.update(now)
            history += rows
        store.save_ratings(changed, history, time.time())

    def rebuild(self, store: Store, records: Sequence[MatchRecord]) -> None:
        """Rate every stored match from scratch (``arena ladder rerate``): one pass, one
        transaction, under this stream's key."""
        with store.transaction():
            store.clear_ratings(self.key)
            ordered = sorted(records, key=lambda m: m.position)
            # every bot of the ladder has a row, as a bot that has not played yet is rated;
            # but a new version, which starts from its previous version's at its first match
            unplayed = {b: self.rater.fresh for b in self.bots if b not in self.rater.inherit}
            store.save_ratings(unplayed, [], time.time())
            self.fold(store, ordered)
            rated_next = ordered[-1].position + 1 if ordered else 0
            if self.append:
                rated_next = store.count_matches()
            store.unqueue_ratings([], rated_next)
            self.kept.rebuild(store, ordered, self.scheduled)
            store.ratings_changed()


def current(
    store: Store,
    key: str,
    bots: Sequence[str],
    settings: RatingSettings,
    history: list[HistoryRow] | None = None,
    before: int | None = None,
) -> dict[str, Rating] | None:
    """The ratings of ``bots`` over the stored matches of the schedule, read from the store,
    the queued matches (a few: those stored behind a gap) folded on, their history rows
    appended to ``history`` when given; ``before``: over the matches before that position
    only. None when the store's fold is not this one (rated under another key, or over other
    matches): the caller rates the batch."""
    if store.meta(RATING_KEY) != key:
        return None
    rated_next = int(store.meta(RATED_NEXT) or 0)
    if before is not None and before < rated_next:
        return _as_of(store, bots, settings, before)
    known = dict(store.rating_pairs())
    if not set(known) <= set(bots):
        return None  # it rated matches of bots no longer in the ladder: the batch leaves them out
    queued = {m: p for p, m in store.queue() if before is None or p < before}
    rater = Rater(settings)
    for match in store.records_of(queued) if queued else []:
        changed, rows = rater.step(known, match)
        known.update(changed)
        if history is not None:
            history += rows
    return {bot: Rating(*known.get(bot, rater.fresh)) for bot in bots}


def _as_of(
    store: Store, bots: Sequence[str], settings: RatingSettings, before: int
) -> dict[str, Rating] | None:
    """The ratings after the matches before position ``before`` (inside the rated prefix):
    each bot's last history row before it, fresh when it has none; one indexed read a bot.
    None when a bot rated there is no longer in the ladder (the batch leaves it out)."""
    fresh = Rater(settings).fresh
    if not set(store.rating_pairs()) <= set(bots):
        return None
    found = store.ratings_before(bots, before)
    return {bot: Rating(*found.get(bot, fresh)) for bot in bots}


def ratings_of(cfg: LadderConfig, store: Store, stored: Sequence[MatchRecord]) -> dict[str, Rating]:
    """The ratings of the ladder's bots over ``stored`` (every stored match of its schedule):
    the store's, else (an older or re-keyed database not re-rated yet) the batch."""
    found = current(store, rating_key_of(cfg), cfg.bot_names, cfg.rating)
    return found if found is not None else rate(stored, cfg.rating, cfg.bot_names)[0]


def history_of(cfg: LadderConfig, store: Store, stored: Sequence[MatchRecord]) -> list[HistoryRow]:
    """Every bot's rating after each match of ``stored`` (every stored match of the schedule),
    in schedule order: the store's rows, else the batch's."""
    queued: list[HistoryRow] = []
    if current(store, rating_key_of(cfg), cfg.bot_names, cfg.rating, queued) is None:
        return rate(stored, cfg.rating, cfg.bot_names)[1]
    return store.rating_history() + queued
