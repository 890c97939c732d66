"""Playing a guest (RULES.md section 7): the card enters the row, its effect may be used (D4),
then Momiji's second resolution (D8) and Natsumi's extra blue guest (D9) follow, depth first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .data import CARD_IDS, CARDS, COURTIER_EFFECT
from .ops import step

if TYPE_CHECKING:
    from .state import MaiStarState


def effect_options(st: MaiStarState, seat: int, card: int) -> list[dict[str, Any]]:
    """D4/D8 answers: decline, or use with the card's parameter (section 18, R49)."""
    c = CARDS[card]
    options: list[dict[str, Any]] = [{"action": "decline"}]
    parameter = c.effect_parameter
    if parameter == "target_player":
        options += [{"action": "target", "target": s} for s in range(st.n)]
    elif parameter == "hand_card_same_colour":
        rep = st.reputation(seat)
        options += [
            {"action": "guest", "card": CARD_IDS[h]}
            for h in st.hand_ids(seat)
            if CARDS[h].colour == c.colour and st.can_play(h, rep)
        ]
    elif parameter == "hand_card":
        options += [{"action": "advertise", "card": CARD_IDS[h]} for h in st.hand_ids(seat)]
    else:
        options.append({"action": "use"})
    return options


@step("play_guest")
def play_guest(st: MaiStarState, seat: int, card: int, source: str) -> None:
    """Move a hand card that passed its check to the right end of the guest row (section 7)."""
    st.seats[seat].hand.remove(card)
    st.emit({"type": "guest", "seat": seat, "card": CARD_IDS[card], "source": source})
    st.add_guest(seat, card)
    st.push("natsumi_check", seat, card)
    if CARDS[card].effect_timing == "on_play":
        st.push("effect_prompt", seat, card)
        if CARDS[card].effect_id == COURTIER_EFFECT:
            st.push("courtier_boost", seat, card)


@step("effect_prompt")
def effect_prompt(st: MaiStarState, seat: int, card: int) -> None:
    """D4, skipped when declining is the only answer (R50)."""
    options = effect_options(st, seat, card)
    if len(options) > 1:
        prompt = f"Use the effect of {CARD_IDS[card]}?"
        st.ask(seat, "effect", options, prompt, "effect_chosen", seat, card, 1)


@step("effect_chosen")
def effect_chosen(
    st: MaiStarState, option: dict[str, Any], seat: int, card: int, resolution: int
) -> None:
    """After D4 (resolution 1) or D8 (resolution 2): resolve, then offer Momiji after D4."""
    st.emit(
        {
            "type": "effect",
            "seat": seat,
            "card": CARD_IDS[card],
            "resolution": resolution,
            "choice": dict(option),
        }
    )
    if option["action"] == "decline":
        return
    if resolution == 1:
        st.push("momiji_check", seat, card)
    else:
        st.momiji_used = True
    st.push("resolve", seat, card, option, resolution)
