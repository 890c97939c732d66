"""Motora (Twisted Bit Games, 2018): tribes, idols and survival on a volcanic island.

The rules follow the packaged ``RULES.md``; the board and the 70 cards are loaded from the
packaged ``board.json`` and ``cards.json``. See README.md for decisions, view and events.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..base import Game, OptionError, OptionSpec
from .position import load_position
from .sample import determinize
from .short import expand
from .state import MotoraState
from .views import public_data


class Motora(Game):
    id = "motora"
    title = "Motora"
    version = "2.0"
    min_players = 2
    max_players = 6
    options = (
        OptionSpec(
            "turn_limit",
            int,
            0,
            "end the game at the start of turn N+1 as by the Wrath of the Gods (0 = no limit)",
            minimum=0,
        ),
        OptionSpec(
            "wrath_of_the_gods",
            bool,
            True,
            "an empty event deck ends the game; if false the discard pile is reshuffled",
        ),
        OptionSpec(
            "stockpile_cap",
            int,
            0,
            "cut food, water and shelter to this value after consumption (0 = no cap)",
            minimum=0,
        ),
    )

    def check_options(self, values: Mapping[str, Any], players: int | None) -> None:
        """Without the Wrath of the Gods only a turn limit guarantees that a game ends."""
        if not values["wrath_of_the_gods"] and not values["turn_limit"]:
            raise OptionError("motora: wrath_of_the_gods=false needs a turn_limit (e.g. 30)")

    def public_data(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The island, the tile pool and every card, sent once in ``welcome`` (see README)."""
        return public_data()

    def _new(self, players: int, seed: int, options: dict[str, Any]) -> MotoraState:
        return MotoraState(players, seed, options)

    def _load(self, players: int, options: dict[str, Any], position: dict[str, Any]) -> MotoraState:
        """Check the position's fields and resume its stack (README "Positions")."""
        return load_position(players, options, position)

    def expand(self, short: Mapping[str, Any]) -> dict[str, Any]:
        """The full position of a short one (README "Short positions")."""
        return expand(short)

    def determinize(
        self,
        players: int,
        options: Mapping[str, Any],
        seat: int,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        rng: random.Random,
    ) -> MotoraState:
        """Other hands and deck orders dealt from ``rng`` (README "Search bots")."""
        return determinize(players, self.resolve_options(options, players), seat, view, events, rng)


GAME = Motora()

__all__ = ["GAME", "Motora", "MotoraState"]
