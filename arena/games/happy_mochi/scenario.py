"""Build a state from an explicit layout, for scenario tests and search bots.

``build_state`` starts a real game (so options and the RNG are set up as usual), replaces the
deal with the given hands, piles and reserves, and begins ``active``'s turn exactly as the engine
would (a stuck player passes at once, R5). Cards given nowhere are set aside: they are out of
this round, and come back only at the next deal (every unreserved card is shuffled, 3.2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import EventLog

from .cards import CARD_COUNT
from .game import HappyMochi
from .state import MochiState


def build_state(
    hands: Sequence[Sequence[int]],
    tens: Sequence[int],
    units: Sequence[int],
    draw: Sequence[int] = (),
    reserves: Sequence[Sequence[int]] | None = None,
    *,
    direction: str = "+",
    active: int = 0,
    totals: Sequence[int] | None = None,
    round_number: int = 1,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
) -> MochiState:
    """A state at the start of ``active``'s turn in round ``round_number``.

    ``tens``/``units`` list each main-duo pile bottom to top; ``draw`` lists the draw pile from
    its top card down. Every card may appear at most once.
    """
    players = len(hands)
    placed = [*tens, *units, *draw]
    for group in (*hands, *(reserves or ())):
        placed.extend(group)
    if len(set(placed)) != len(placed) or not all(0 <= c < CARD_COUNT for c in placed):
        raise ValueError("build_state: every card id must be valid and appear at most once")
    if not tens or not units:
        raise ValueError("build_state: both main-duo piles need at least one card")
    state = HappyMochi().new(players, seed, {**(options or {}), "first_seat": active})
    state.log = EventLog()
    state.hands = [list(h) for h in hands]
    state.reserves = [sorted(r) for r in (reserves or [()] * players)]
    state.tens, state.units = list(tens), list(units)
    state.draw = list(reversed(draw))
    state.direction = 1 if direction == "+" else -1
    state.totals = list(totals or [0] * players)
    state.round = round_number
    state.starter = state.active = active
    state.turns = state.passes = 0
    state._start_turn()
    return state
