"""The Mottainai game description: options and their cross-checks (RULES 3, 12)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import Game, OptionError, OptionSpec
from .state import MottainaiState

TEAM_PLAYERS = 4


class Mottainai(Game):
    id = "mottainai"
    title = "Mottainai"
    version = "1.0"
    min_players = 2
    max_players = 5
    options = (
        OptionSpec(
            "extended",
            bool,
            None,
            "wing threshold 6 instead of 5; unset = on at 4-5 players, off at 2-3",
        ),
        OptionSpec(
            "two_decks",
            bool,
            None,
            "shuffle two decks (108 cards); unset = on at 4-5 players, where it is required",
        ),
        OptionSpec("teams", bool, False, "team game: 4 players, seats 0+2 against 1+3"),
    )

    def check_options(self, values: Mapping[str, Any], players: int | None) -> None:
        if players is None:
            return
        if players >= 4 and values.get("two_decks") is False:
            raise OptionError(f"Mottainai with {players} players needs two decks (two_decks)")
        if values.get("teams") and players != TEAM_PLAYERS:
            raise OptionError(f"the team game needs exactly 4 players, got {players}")

    def _new(self, players: int, seed: int, options: dict[str, Any]) -> MottainaiState:
        return MottainaiState(players, seed, options)

    def from_layout(
        self,
        players: int,
        layout: Mapping[str, Any],
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
    ) -> MottainaiState:
        """A game starting at ``layout["current"]``'s Morning with every named card placed.

        For scenario tests and analysis. ``layout``: ``seats`` (a list of maps with ``hand``,
        ``waiting``, ``helpers``, ``bench``, ``sales``, ``gallery``, ``gift_shop`` name lists and
        optional ``task`` / ``task_down``), ``floor``, ``deck`` (top first), ``exact_deck``
        (unnamed cards leave play instead of going under the deck), ``current``.
        """
        resolved = self.resolve_options(options, players)
        return MottainaiState(players, seed, resolved, dict(layout))
