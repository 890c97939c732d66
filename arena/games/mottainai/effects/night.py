"""Night effects (RULES 4.3 step 1): Pinwheel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..model import Flow, ask
from .registry import hook

if TYPE_CHECKING:
    from ..state import MottainaiState


def _has_hand(s: MottainaiState, p: int, src: int, ctx: Any) -> bool:
    return bool(s.players[p].hand)


@hook("Pinwheel", usable=_has_hand)
def pinwheel(s: MottainaiState, p: int, src: int, ctx: Any) -> Flow:
    """Return a hand card; having done so, you may draw one card."""
    from ..flow import return_from_hand

    hand = s.players[p].hand
    card = yield from ask(
        p,
        "pinwheel_return",
        "Pinwheel: return a hand card?",
        [{"choice": "decline"}] + [s.opt(c) for c in hand],
        [None, *hand],
    )
    if card is None:
        return
    return_from_hand(s, p, card, "Pinwheel")
    draw = yield from ask(
        p,
        "pinwheel_draw",
        "Pinwheel: draw a card?",
        [{"choice": "decline"}, {"choice": "draw"}],
        [False, True],
    )
    if draw:
        s.draw(p, "Pinwheel")
