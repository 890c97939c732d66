"""Happy Mochi's facts and options (RULES.md 1, 3.1 step 6 and R33)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import Game, OptionError, OptionSpec, State

from . import position as position_data
from .cards import CARD_TABLE, END_THRESHOLD, MAX_PLAYERS, MIN_PLAYERS, NUMBER
from .sampling import Sampler
from .state import MochiState


class HappyMochi(Game):
    """Shedding game with two-card duos: 2-6 players, first to 30 minus points ends the game."""

    id = "happy_mochi"
    title = "Happy Mochi"
    version = "2.0.0"
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

    def __init__(self) -> None:
        self._sampler = Sampler()  # remembers what a search bot's events told it (sampling.py)

    def check_options(self, values: Mapping[str, Any], players: int | None) -> None:
        first = values["first_seat"]
        if players is not None and first >= players:
            raise OptionError(
                f"option 'first_seat' must be -1 or a seat below {players}, got {first}"
            )

    def score_range(self, players: int, options: Mapping[str, Any]) -> tuple[float, float]:
        """Scores are minus points, so at most 0. The game ends after the round in which someone
        reaches END_THRESHOLD (or at a cap), so every total stays below it before that round,
        and one round adds at most one hand: at most every card's number (RULES.md 6-8)."""
        return (-float(END_THRESHOLD - 1 + sum(NUMBER)), 0.0)

    def public_data(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The static card table, ``[number, colour, effect]`` by card id (RULES.md 1)."""
        return {"cards": CARD_TABLE}

    def _new(self, players: int, seed: int, options: dict[str, Any]) -> MochiState:
        return MochiState(players, seed, options)

    def _load(self, players: int, options: dict[str, Any], position: dict[str, Any]) -> MochiState:
        return position_data.load(players, options, position)

    def expand(self, short: Mapping[str, Any]) -> dict[str, Any]:
        return position_data.expand(short)

    def determinize(
        self,
        players: int,
        options: Mapping[str, Any],
        seat: int,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        rng: random.Random,
    ) -> State:
        return self._sampler.sample(self, players, options, seat, view, events, rng)
