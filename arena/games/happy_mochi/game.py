"""Happy Mochi's facts and options (RULES.md 1, 3.1 step 6 and R33)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.base import Game, OptionError, OptionSpec

from .cards import CARD_TABLE, MAX_PLAYERS, MIN_PLAYERS
from .state import MochiState


class HappyMochi(Game):
    """Shedding game with two-card duos: 2-6 players, first to 30 minus points ends the game."""

    id = "happy_mochi"
    title = "Happy Mochi"
    version = "1.0.0"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    options = (
        OptionSpec(
            "max_turns_per_round",
            int,
            1000,
            "safety cap: after this many turns a round ends as a stalemate (R33)",
            minimum=1,
        ),
        OptionSpec(
            "max_rounds",
            int,
            100,
            "safety cap: the game ends after this many rounds (R33)",
            minimum=1,
        ),
        OptionSpec(
            "first_seat",
            int,
            -1,
            "seat that starts the first round; -1 picks one with the seeded RNG (3.1 step 6)",
            minimum=-1,
            maximum=MAX_PLAYERS - 1,
        ),
    )

    def check_options(self, values: Mapping[str, Any], players: int | None) -> None:
        first = values["first_seat"]
        if players is not None and first >= players:
            raise OptionError(
                f"option 'first_seat' must be -1 or a seat below {players}, got {first}"
            )

    def public_data(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The static card table, ``[number, colour, effect]`` by card id (RULES.md 1)."""
        return {"cards": CARD_TABLE}

    def _new(self, players: int, seed: int, options: dict[str, Any]) -> MochiState:
        return MochiState(players, seed, options)
