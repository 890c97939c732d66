"""Geisha abilities (RULES.md section 10): Suzune and Akenohoshi windows, Harukaze's draw,
Momiji's second resolution, Natsumi's extra blue guests and Oboro's extra cards."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .actions import advertise_options, card_options
from .data import (
    AKENOHOSHI,
    CARD_IDS,
    CARDS,
    COLOURS,
    MOMIJI,
    NATSUMI,
    OBORO,
    OBORO_BONUS,
    SUZUNE,
)
from .guests import effect_options
from .ops import option_card, step

if TYPE_CHECKING:
    from .state import MaiStarState

BOOST_OPTIONS = tuple({"action": "boost", "colour": c} for c in COLOURS)


def oboro_extra(st: MaiStarState, seat: int) -> int:
    """Oboro is dealt 2 more cards (in Management Mode she draws them after selection, R35)."""
    return OBORO_BONUS if st.ability(seat) == OBORO else 0


@step("oboro_bonus")
def oboro_bonus(st: MaiStarState) -> None:
    for s in range(st.n):
        if st.ability(s) == OBORO:
            st.draw(s, OBORO_BONUS, "oboro")


def apply_boost(st: MaiStarState, seat: int, colour: str) -> None:
    """Akenohoshi: +3 in one skill until the end of this turn, once per round (R30)."""
    st.akenohoshi_used = True
    st.boost = COLOURS.index(colour)
    st.emit({"type": "boost", "seat": seat, "colour": colour})


@step("pre_action")
def pre_action(st: MaiStarState, seat: int) -> None:
    """D2: Suzune's extra Advertise or Akenohoshi's boost before the main action (section 5)."""
    ability = st.ability(seat)
    if ability == SUZUNE and not st.suzune_used and st.seats[seat].hand:
        options = [{"action": "proceed"}, *advertise_options(st, seat)]
        prompt = "Suzune: advertise now (extra action) or proceed"
    elif ability == AKENOHOSHI and not st.akenohoshi_used:
        options = [{"action": "proceed"}, *BOOST_OPTIONS]
        prompt = "Akenohoshi: +3 to one reputation this turn, or proceed"
    else:
        return
    st.ask(seat, "pre_action", options, prompt, "pre_action_chosen", seat)


@step("pre_action_chosen")
def pre_action_chosen(st: MaiStarState, option: dict[str, Any], seat: int) -> None:
    if option["action"] == "advertise":
        st.suzune_used = True
        st.push("advertise", seat, option_card(option), "suzune")
    elif option["action"] == "boost":
        apply_boost(st, seat, option["colour"])


@step("post_action")
def post_action(st: MaiStarState, seat: int) -> None:
    """D12: Suzune's extra Advertise after the main action is fully resolved (R34)."""
    if st.ability(seat) != SUZUNE or st.suzune_used or not st.seats[seat].hand:
        return
    options = [{"action": "decline"}, *advertise_options(st, seat)]
    prompt = "Suzune: take your extra Advertise action now?"
    st.ask(seat, "post_action", options, prompt, "post_action_chosen", seat)


# After the action only "decline" or Suzune's advertise is offered: the same handling.
step("post_action_chosen")(pre_action_chosen)


@step("courtier_boost")
def courtier_boost(st: MaiStarState, seat: int, card: int) -> None:
    """D11: Akenohoshi may boost just before choosing a Courtier's extra guest (R30)."""
    if st.ability(seat) != AKENOHOSHI or st.akenohoshi_used:
        return
    options = [{"action": "no"}, *BOOST_OPTIONS]
    prompt = f"Akenohoshi: boost a reputation before using {CARD_IDS[card]}?"
    st.ask(seat, "akenohoshi_courtier", options, prompt, "courtier_boost_chosen", seat)


@step("courtier_boost_chosen")
def courtier_boost_chosen(st: MaiStarState, option: dict[str, Any], seat: int) -> None:
    if option["action"] == "boost":
        apply_boost(st, seat, option["colour"])


@step("harukaze_draw")
def harukaze_draw(st: MaiStarState, seat: int) -> None:
    """Harukaze's Advertise draw: 3 then 2 under the deck, or the low-deck discard (R31)."""
    left = len(st.deck)
    if left >= 3:
        st.draw(seat, 3, "advertise")
        options = card_options(st, seat)
        prompt = "Harukaze: put a card at the very bottom of the deck"
        st.ask(seat, "harukaze_bottom_first", options, prompt, "harukaze_bottom", seat, 0)
    else:
        st.draw(seat, left, "advertise")
        if left == 2:
            options = card_options(st, seat)
            prompt = "Harukaze: discard a card"
            st.ask(seat, "harukaze_discard", options, prompt, "harukaze_discard", seat)


@step("harukaze_bottom")
def harukaze_bottom(st: MaiStarState, option: dict[str, Any], seat: int, position: int) -> None:
    card = option_card(option)
    st.seats[seat].hand.remove(card)
    st.deck.insert(position, card)
    st.bottom_known += 1
    st.emit(
        {"type": "deck_bottom", "seat": seat, "count": 1},
        private={seat: {"card": CARD_IDS[card]}},
    )
    if position == 0:
        options = card_options(st, seat)
        prompt = "Harukaze: put a card just above it"
        st.ask(seat, "harukaze_bottom_second", options, prompt, "harukaze_bottom", seat, 1)


@step("harukaze_discard")
def harukaze_discard(st: MaiStarState, option: dict[str, Any], seat: int) -> None:
    card = option_card(option)
    st.seats[seat].hand.remove(card)
    st.discard_cards(seat, [card], "harukaze")


@step("momiji_check")
def momiji_check(st: MaiStarState, seat: int, card: int) -> None:
    """D8: once per turn, a played red guest's used effect may resolve again (R15, R19, R32)."""
    if st.ability(seat) != MOMIJI or st.momiji_used or CARDS[card].colour != "red":
        return
    options = effect_options(st, seat, card)
    if len(options) > 1:
        prompt = f"Momiji: resolve the effect of {CARD_IDS[card]} a second time?"
        st.ask(seat, "momiji", options, prompt, "effect_chosen", seat, card, 2)


@step("natsumi_check")
def natsumi_check(st: MaiStarState, seat: int, card: int) -> None:
    """D9: after a played blue guest, Natsumi may play another blue guest, twice a turn (R33)."""
    if st.ability(seat) != NATSUMI or st.natsumi_uses >= 2 or CARDS[card].colour != "blue":
        return
    rep = st.reputation(seat)
    options = [{"action": "decline"}]
    options += [
        {"action": "guest", "card": CARD_IDS[c]}
        for c in st.hand_ids(seat)
        if CARDS[c].colour == "blue" and st.can_play(c, rep)
    ]
    if len(options) > 1:
        prompt = "Natsumi: play another blue guest?"
        st.ask(seat, "natsumi", options, prompt, "natsumi_chosen", seat)


@step("natsumi_chosen")
def natsumi_chosen(st: MaiStarState, option: dict[str, Any], seat: int) -> None:
    if option["action"] == "guest":
        st.natsumi_uses += 1
        st.push("play_guest", seat, option_card(option), "natsumi")
