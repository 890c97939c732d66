"""The standings of a ladder: one computation for the table, the report and the server.

``arena ladder show``, the HTML report and the competition server's pages all show the same
table from the same stored matches; they get it here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from arena.ladder.config import LadderConfig
from arena.ladder.published import published
from arena.ladder.rated import ratings_of
from arena.ladder.ratings import BotStats, HistoryRow, MatchRecord, ladder_stats, rate
from arena.ladder.run import records
from arena.ladder.schedule import MatchSpec
from arena.ladder.store import Store


@dataclass
class Standings:
    """A ladder's table over its stored matches."""

    cfg: LadderConfig
    schedule: list[MatchSpec]  # a following ladder's: what it stored, in that order
    stored: list[MatchRecord]  # the stored matches of the schedule, in its order
    stats: list[BotStats]  # the table, best first
    hidden: int = 0  # stored matches left out: their duplicate set is not complete yet

    @functools.cached_property
    def history(self) -> list[HistoryRow]:
        """Every bot's rating after each match (computed when first asked)."""
        return rate(self.stored, self.cfg.rating, self.cfg.bot_names)[1]

    @property
    def order(self) -> list[str]:
        """The bots, best first."""
        return [s.bot for s in self.stats]


def standings(cfg: LadderConfig, store: Store, public: bool = False) -> Standings:
    """The table of the ladder ``cfg`` over what ``store`` holds; ``public``: over the matches
    whose duplicate set is complete only (what may be shown while the ladder is played)."""
    schedule, every = records(cfg, store)
    stored = published(store, every) if public else every
    # the ratings kept by the store are over every stored match: shown when all are public
    ratings = ratings_of(cfg, store, every) if len(stored) == len(every) else None
    stats = ladder_stats(stored, cfg.rating, cfg.bot_names, ratings)
    return Standings(cfg, schedule, stored, stats, len(every) - len(stored))
