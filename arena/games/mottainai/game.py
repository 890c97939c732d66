"""The Mottainai game description: options and their cross-checks (RULES 3, 12)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..base import Game, OptionError, OptionSpec, PositionError
from .position import expand, read
from .sample import sample
from .setup import deck_count
from .state import MottainaiState

TEAM_PLAYERS = 4


class Mottainai(Game):
    id = "mottainai"
    title = "Mottainai"
    version = "2.0"
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

    def _load(
        self, players: int, options: dict[str, Any], position: dict[str, Any]
    ) -> MottainaiState:
        mark, answers = read(position, players, deck_count(players, options))
        return MottainaiState.resume(players, options, mark, answers)

    def expand(self, short: Mapping[str, Any]) -> dict[str, Any]:
        players = short.get("players")
        if not isinstance(players, int) or isinstance(players, bool):
            raise PositionError("players", "must be an integer")
        given = dict(short.get("options") or {})
        try:
            options = self.resolve_options(given, players)
        except OptionError as exc:
            raise PositionError("options", str(exc)) from None
        body = expand(short, players, deck_count(players, options))
        return {**self.envelope(players, given), **body}

    def determinize(
        self,
        players: int,
        options: Mapping[str, Any],
        seat: int,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        rng: random.Random,
    ) -> MottainaiState:
        resolved = self.resolve_options(options, players)
        position = sample(view, deck_count(players, resolved), rng)
        return self._load(players, resolved, {**self.envelope(players, resolved), **position})
