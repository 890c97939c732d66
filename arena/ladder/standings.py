"""The standings of a ladder: one computation for the table, the report and the server.

``arena ladder show``, ``h2h``, ``seats`` and ``compare``, the HTML report and the competition
server's pages all show the same table from the same stored matches; they get it here, read
from what the store keeps up to date (the ratings, ``rated.py``; the tally, ``running.py``),
never from the match list. A database whose kept state is not this ladder's (upgraded, or
rekeyed and not rebuilt by a writer yet) is read by the batch, which gives the same table.

The public view (``published.py``) shows whole sets only: its counts and intervals are the
tally of the complete sets, and its ratings those after the longest prefix of the schedule
before the first stored match whose set is not complete (the kept ratings as of that position:
one indexed read a bot), so nothing of an incomplete set shows, and the table never re-rates.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.ladder.config import LadderConfig
from arena.ladder.published import published
from arena.ladder.rated import current, rating_key_of, ratings_of
from arena.ladder.ratings import BotStats, HistoryRow, MatchRecord, Rating, check_scores, rate
from arena.ladder.run import records
from arena.ladder.running import OUTSIDE, SCHEDULED, Kept
from arena.ladder.schedule import MatchSpec
from arena.ladder.store import Store
from arena.ladder.tally import Comparison, SeatEffect, Tally, compare, comparison, fold


@dataclass
class Standings:
    """A ladder's table over its stored matches (the published ones when ``public``)."""

    cfg: LadderConfig
    store: Store = field(repr=False)
    stats: list[BotStats]  # the table, best first
    tally: Tally  # what the table is computed from: head-to-head, seat effects
    hidden: int = 0  # stored matches left out: their duplicate set is not complete yet
    matches: int = 0  # stored matches of the schedule shown
    scheduled: int = 0  # the schedule's length (a following ladder's: what it stored)
    outside: int = 0  # stored matches not in this schedule (not counted)
    public: bool = False

    @functools.cached_property
    def _records(self) -> tuple[list[MatchSpec], list[MatchRecord]]:
        return records(self.cfg, self.store)

    @functools.cached_property
    def schedule(self) -> list[MatchSpec]:
        """The schedule (a following ladder's: what it stored, in that order): read when asked."""
        return self._records[0]

    @functools.cached_property
    def stored(self) -> list[MatchRecord]:
        """The stored matches shown, in schedule order: read from the store when asked."""
        every = self._records[1]
        return published(self.store, every) if self.public else every

    @functools.cached_property
    def history(self) -> list[HistoryRow]:
        """Every bot's rating after each match (computed when first asked)."""
        return rate(self.stored, self.cfg.rating, self.cfg.bot_names)[1]

    @property
    def order(self) -> list[str]:
        """The bots, best first."""
        return [s.bot for s in self.stats]

    def head_to_head(self) -> dict[tuple[str, str], tuple[int, int]]:
        return self.tally.head_to_head()

    def seat_effects(self) -> list[SeatEffect]:
        return self.tally.seat_effects()


def standings(cfg: LadderConfig, store: Store, public: bool = False) -> Standings:
    """The table of the ladder ``cfg`` over what ``store`` holds; ``public``: over the matches
    whose duplicate set is complete only (what may be shown while the ladder is played)."""
    kept = Kept(cfg)
    with store.conn.snapshot():  # a set completed between two reads would count twice
        found = _kept(cfg, store, kept, public) if kept.usable(store) else None
    return found if found is not None else batch(cfg, store, kept, public)


def _kept(cfg: LadderConfig, store: Store, kept: Kept, public: bool) -> Standings | None:
    """The standings from the kept state; None when it cannot give them (a bot it counted is
    no longer in the ladder, which the batch leaves out)."""
    pending = kept.pending(store)
    before = min((m.position for m in pending), default=None) if public else None
    ratings = current(store, rating_key_of(cfg), cfg.bot_names, cfg.rating, before=before)
    tally = kept.load(store)
    if ratings is None or not set(tally.bots) <= set(cfg.bot_names):
        return None
    if not public:
        check_scores(pending, cfg.rating.score_range)
        for match in pending:
            tally.count(match)
    outside = int(store.meta(OUTSIDE) or 0)
    stored = store.count_matches() - outside
    shown = stored - len(pending) if public else stored
    scheduled = store.meta(SCHEDULED)
    return Standings(cfg, store, tally.table(ratings, cfg.bot_names), tally,
                     hidden=len(pending) if public else 0, matches=shown,
                     scheduled=int(scheduled) if scheduled else stored, outside=outside,
                     public=public)  # fmt: skip


def batch(cfg: LadderConfig, store: Store, kept: Kept, public: bool) -> Standings:
    """The standings from every stored match: the reference the kept state equals."""
    schedule, every = records(cfg, store)
    stored = published(store, every) if public else every
    tally = fold(stored, cfg.rating.score_range, kept.order(store), cfg.seats)
    ratings = public_ratings(cfg, store, every, stored) if public else ratings_of(cfg, store, every)
    outside = len(store.done_ids() - {s.match_id for s in schedule})
    table = Standings(cfg, store, tally.table(ratings, cfg.bot_names), tally,
                      hidden=len(every) - len(stored), matches=len(stored),
                      scheduled=len(schedule), outside=outside, public=public)  # fmt: skip
    table.__dict__["_records"] = (schedule, every)
    return table


def public_ratings(
    cfg: LadderConfig, store: Store, every: Sequence[MatchRecord], shown: Sequence[MatchRecord]
) -> dict[str, Rating]:
    """The batch of the public ratings (see the module docstring): over the stored matches
    before the first whose set is not complete."""
    public = {m.match_id for m in shown}
    cut = min((m.position for m in every if m.match_id not in public), default=None)
    if cut is None:
        return ratings_of(cfg, store, every)
    return rate([m for m in every if m.position < cut], cfg.rating, cfg.bot_names)[0]


def comparison_of(cfg: LadderConfig, store: Store, a: str, b: str) -> Comparison:
    """A against B over the stored matches: from the kept state, one pair's sets (the
    per-set values and the verdict's projection need them in order: no running sum gives
    them); else the batch."""
    kept = Kept(cfg)
    if kept.usable(store):
        pending = kept.pending(store)
        check_scores(pending, cfg.rating.score_range)
        tally = kept.load(store, (a, b))
        for match in pending:
            tally.count(match)
        per_set = kept.pair_sets(store, a, b)
        return comparison(a, b, per_set, tally.head_to_head(), cfg.rating.score_range)
    _, stored = records(cfg, store)
    return compare(stored, a, b, cfg.rating.score_range, kept.order(store))
