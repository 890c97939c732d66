"""The Mai-Star game: facts and options (RULES.md sections 1, 15)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..base import Game, OptionSpec
from ..rng import derived
from . import actions, effects, geishas, guests, reactions  # noqa: F401  (they register steps)
from .data import MAX_PLAYERS, MIN_PLAYERS, PUBLIC_CARDS
from .flow import setup
from .positions import load_state
from .sampling import sample_position
from .short import expand
from .state import MaiStarState


class MaiStarGame(Game):
    id = "mai_star"
    title = "Mai-Star"
    version = "2.0"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    options = (
        OptionSpec(
            "management_mode",
            bool,
            False,
            "choose geishas anew after every deal (RULES.md 15.1)",
        ),
        OptionSpec(
            "limited_guests",
            str,
            "off",
            "end the round after a turn in which a player's guests exceed (RULES.md R40, the "
            "rule's own sentence) or reach the round's starting hand size (RULES.md 15.2)",
            choices=("off", "exceeds", "reaches"),
        ),
        OptionSpec(
            "longer_six_player",
            bool,
            False,
            "when the deck runs out everyone takes one more turn (RULES.md 15.3; any count)",
        ),
    )

    def public_data(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The printed customer and geisha cards (``cards.json`` without source notes)."""
        return PUBLIC_CARDS

    def _new(self, players: int, seed: int, options: dict[str, Any]) -> MaiStarState:
        state = MaiStarState(players, seed, options)
        setup(state)
        state.advance()
        return state

    def _load(
        self, players: int, options: dict[str, Any], position: dict[str, Any]
    ) -> MaiStarState:
        return load_state(players, options, position)

    def expand(self, short: Mapping[str, Any]) -> dict[str, Any]:
        return expand(self.id, self.version, short)

    def determinize(
        self,
        players: int,
        options: Mapping[str, Any],
        seat: int,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        rng: random.Random,
    ) -> MaiStarState:
        position = {**self.envelope(players, options), **sample_position(seat, view, events, rng)}
        return load_state(players, dict(options), position, derived(rng))


GAME = MaiStarGame()
