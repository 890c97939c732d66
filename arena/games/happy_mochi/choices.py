"""Option lists of the decisions D1-D11 (RULES.md 12), in the canonical enumeration order.

Every list built here holds only legal choices. Lists that do not depend on card identities are
built once at import and shared (callers must treat option maps as read-only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .cards import CARD_COUNT, MAX_PLAYERS, NUMBER

Options = tuple[dict[str, Any], ...]

# Decision kinds (stable names, documented in README.md).
TURN = "turn"  # D1
INSERT = "insert"  # D2
EFFECT_ORDER = "effect_order"  # D3
FORCE_DRAW_TARGET = "force_draw_target"  # D4
FORCE_DRAW_SOURCE = "force_draw_source"  # D5
USE_PASS_LEFT = "use_pass_left"  # D6
PASS_CARD = "pass_card"  # D7 (simultaneous)
INSERT_RECEIVED = "insert_received"  # D8 (simultaneous)
USE_RESERVE = "use_reserve"  # D9
RESERVE_CARD = "reserve_card"  # D10
ROUND_RESERVE = "round_reserve"  # D11 (simultaneous)
SIMULTANEOUS = (PASS_CARD, INSERT_RECEIVED, ROUND_RESERVE)

PROMPTS = {
    TURN: "Your turn: play an adjacent duo or draw a card.",
    INSERT: "Choose where to insert the drawn card in your hand.",
    EFFECT_ORDER: "Both played cards have effects: choose which resolves first.",
    FORCE_DRAW_TARGET: "force_draw: name the player who must draw a card.",
    FORCE_DRAW_SOURCE: "You must draw a card (force_draw): choose the source.",
    USE_PASS_LEFT: "pass_left: use it (every player passes one card to the left)?",
    PASS_CARD: "pass_left: choose the card you pass to your left neighbour.",
    INSERT_RECEIVED: "Choose where to insert the card you received.",
    USE_RESERVE: "reserve: put one hand card face down in your reserve?",
    RESERVE_CARD: "reserve: choose the hand card to reserve.",
    ROUND_RESERVE: "Round over: choose one hand card to keep in your reserve.",
}

INSERT_OPTIONS: tuple[Options, ...] = tuple(
    tuple({"index": i} for i in range(size + 1)) for size in range(CARD_COUNT + 1)
)
SEAT_OPTIONS: tuple[Options, ...] = tuple(
    tuple({"seat": s} for s in range(n)) for n in range(MAX_PLAYERS + 1)
)
YES_NO: Options = ({"use": True}, {"use": False})


def hand_options(hand: Sequence[int]) -> Options:
    """D7, D10, D11: one option per hand index, naming the card (only its owner sees it)."""
    return tuple({"index": i, "card": card} for i, card in enumerate(hand))


def play_options(hand: Sequence[int], starts: Sequence[int]) -> list[dict[str, Any]]:
    """D1 play options, ascending start index."""
    out = []
    for i in starts:
        left, right = NUMBER[hand[i]], NUMBER[hand[i + 1]]
        out.append(
            {"action": "play", "index": i, "value": 10 * left + right, "happy_mochi": left == right}
        )
    return out


def source_options(
    tens: Sequence[int], units: Sequence[int], draw_size: int, reserve: Sequence[int]
) -> list[dict[str, Any]]:
    """Legal draw sources (RULES.md 4.1 with R4): T, U, pile, then each own reserved card.

    A main-duo pile with one card, and the draw pile, need a card from the draw pile or from
    the covered cards (R4 reshuffle).
    """
    supply = draw_size + len(tens) + len(units) - 2
    out: list[dict[str, Any]] = []
    if len(tens) >= 2 or supply >= 1:
        out.append({"action": "draw", "source": "T", "card": tens[-1]})
    if len(units) >= 2 or supply >= 1:
        out.append({"action": "draw", "source": "U", "card": units[-1]})
    if supply >= 1:
        out.append({"action": "draw", "source": "pile"})
    out.extend({"action": "draw", "source": "reserve", "card": card} for card in reserve)
    return out


def effect_order_options(left_effect: str, right_effect: str) -> Options:
    """D3: resolve the left card's effect first, or the right card's."""
    return (
        {"first": "L", "effect": left_effect},
        {"first": "R", "effect": right_effect},
    )
