"""Reactions (RULES.md section 9): a Ronin from the guest row or a District Kanryou from hand,
offered only to the targeted player, before any part of the effect happens (R12-R14)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .data import CARD_IDS, CARDS, KANRYOU, RONIN_EFFECT
from .ops import step

if TYPE_CHECKING:
    from .state import MaiStarState


def reaction_options(st: MaiStarState, target: int) -> list[dict[str, Any]]:
    """D7 answers: decline, one per Ronin in the guest row (by position), the Kanryou in hand."""
    area = st.seats[target]
    options: list[dict[str, Any]] = [{"action": "decline"}]
    options += [
        {"action": "ronin", "position": i, "card": CARD_IDS[c]}
        for i, c in enumerate(area.guests)
        if CARDS[c].effect_id == RONIN_EFFECT
    ]
    if KANRYOU in area.hand:
        options.append({"action": "kanryou", "card": CARD_IDS[KANRYOU]})
    return options


def open_window(
    st: MaiStarState, seat: int, card: int, target: int, option: dict[str, Any], resolution: int
) -> None:
    """Ask the target (another player) whether to cancel this resolution; then apply it.

    A target with nothing to react with is not asked (R50), but the same public ``reaction``
    event is logged either way, so nobody learns who holds a District Kanryou.
    """
    options = reaction_options(st, target)
    if len(options) == 1:
        reaction_chosen(st, options[0], seat, card, target, option)
        return
    st.resolving = {
        "seat": seat,
        "card": CARD_IDS[card],
        "target": target,
        "resolution": resolution,
    }
    prompt = f"Seat {seat}'s {CARD_IDS[card]} targets you (resolution {resolution}): cancel it?"
    st.ask(target, "reaction", options, prompt, "reaction_chosen", seat, card, target, option)


@step("reaction_chosen")
def reaction_chosen(
    st: MaiStarState,
    answer: dict[str, Any],
    seat: int,
    card: int,
    target: int,
    option: dict[str, Any],
) -> None:
    st.resolving = None
    area = st.seats[target]
    if answer["action"] == "decline":
        st.emit({"type": "reaction", "seat": target, "action": "none"})
        st.push("apply_effect", seat, card, option)
        return
    if answer["action"] == "ronin":
        spent = area.guests.pop(answer["position"])
    else:
        area.hand.remove(KANRYOU)
        spent = KANRYOU
    st.emit(
        {"type": "reaction", "seat": target, "action": answer["action"], "card": CARD_IDS[spent]}
    )
    st.discard_cards(target, [spent], answer["action"])
