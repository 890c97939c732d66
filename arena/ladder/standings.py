"""The standings of a ladder: one computation for the table, the report and the server.

``arena ladder show``, the HTML report and the competition server's pages all show the same
table from the same stored matches; they get it here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from arena.ladder.config import LadderConfig
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

    @functools.cached_property
    def history(self) -> list[HistoryRow]:
        """Every bot's rating after each match (computed when first asked)."""
        return rate(self.stored, self.cfg.rating, self.cfg.bot_names)[1]

    @property
    def order(self) -> list[str]:
        """The bots, best first."""
        return [s.bot for s in self.stats]


def standings(cfg: LadderConfig, store: Store) -> Standings:
    """The table of the ladder ``cfg`` over what ``store`` holds."""
    schedule, stored = records(cfg, store)
    return Standings(cfg, schedule, stored, ladder_stats(stored, cfg.rating, cfg.bot_names))
