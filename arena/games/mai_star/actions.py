"""The main action (D3) and the five actions with their exact preconditions (section 6)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .data import CARD_IDS, HARUKAZE
from .ops import option_card, step

if TYPE_CHECKING:
    from .state import MaiStarState


def card_options(st: MaiStarState, seat: int, **fields: Any) -> list[dict[str, Any]]:
    """One option per distinct card in ``seat``'s hand, in cards.json order."""
    return [{**fields, "card": CARD_IDS[c]} for c in st.hand_ids(seat)]


def advertise_options(st: MaiStarState, seat: int) -> list[dict[str, Any]]:
    return card_options(st, seat, action="advertise")


@step("main_action")
def main_action(st: MaiStarState, seat: int) -> None:
    """D3. Skipped only when the hand is empty (R9)."""
    if not st.seats[seat].hand:
        st.emit({"type": "no_action", "seat": seat})
        return
    rep = st.reputation(seat)
    ids = st.hand_ids(seat)
    options = [{"action": "guest", "card": CARD_IDS[c]} for c in ids if st.can_play(c, rep)]
    options += [{"action": "advertise", "card": CARD_IDS[c]} for c in ids]
    if st.deck:
        options.append({"action": "introduce"})
    if st.seats[seat].ads:
        options.append({"action": "exchange"})
    if st.deck:
        options.append({"action": "search"})
    st.ask(seat, "action", options, "Choose your action", "action_chosen", seat)


@step("action_chosen")
def action_chosen(st: MaiStarState, option: dict[str, Any], seat: int) -> None:
    action = option["action"]
    if action == "guest":
        st.push("play_guest", seat, option_card(option), "action")
    elif action == "advertise":
        st.push("advertise", seat, option_card(option), "action")
    elif action == "introduce":
        most = min(2, len(st.seats[seat].hand), len(st.deck))
        options = card_options(st, seat)
        prompt = "Introduce: discard a card"
        st.ask(seat, "introduce_first", options, prompt, "introduce_first", seat, most)
    elif action == "exchange":
        options = [{"position": i, "card": CARD_IDS[c]} for i, c in enumerate(st.seats[seat].ads)]
        prompt = "Exchange: choose the advertiser to take back"
        st.ask(seat, "exchange_advertiser", options, prompt, "exchange_advertiser", seat)
    else:
        st.emit({"type": "search", "seat": seat})
        st.draw(seat, 1, "search")


@step("advertise")
def advertise(st: MaiStarState, seat: int, card: int, source: str) -> None:
    """An Advertise action (6.2): the card joins the advertisers, then draw 1 (Harukaze: 10)."""
    st.seats[seat].hand.remove(card)
    st.seats[seat].ads.append(card)
    st.emit({"type": "advertise", "seat": seat, "card": CARD_IDS[card], "source": source})
    if st.ability(seat) == HARUKAZE:
        st.push("harukaze_draw", seat)
    else:
        st.draw(seat, 1, "advertise")


def _introduce_discard(st: MaiStarState, seat: int, card: int) -> None:
    st.seats[seat].hand.remove(card)
    st.discard_cards(seat, [card], "introduce")


@step("introduce_first")
def introduce_first(st: MaiStarState, option: dict[str, Any], seat: int, most: int) -> None:
    """D3a, then D3b if the deck held 2+ cards and a card is left (6.3, R5)."""
    _introduce_discard(st, seat, option_card(option))
    if most >= 2 and st.seats[seat].hand:
        options = [{"action": "stop"}, *card_options(st, seat, action="discard")]
        prompt = "Introduce: discard a second card or stop"
        st.ask(seat, "introduce_second", options, prompt, "introduce_second", seat)
    else:
        st.draw(seat, 1, "introduce")


@step("introduce_second")
def introduce_second(st: MaiStarState, option: dict[str, Any], seat: int) -> None:
    if option["action"] == "stop":
        st.draw(seat, 1, "introduce")
    else:
        _introduce_discard(st, seat, option_card(option))
        st.draw(seat, 2, "introduce")


@step("exchange_advertiser")
def exchange_advertiser(st: MaiStarState, option: dict[str, Any], seat: int) -> None:
    """D3c chose the advertiser; D3d picks the hand card that takes its place (6.4)."""
    options = card_options(st, seat)
    prompt = "Exchange: choose the hand card to put in its place"
    st.ask(seat, "exchange_hand", options, prompt, "exchange_hand", seat, option["position"])


@step("exchange_hand")
def exchange_hand(st: MaiStarState, option: dict[str, Any], seat: int, position: int) -> None:
    area = st.seats[seat]
    card = option_card(option)
    returned = area.ads[position]
    area.hand.remove(card)
    area.ads[position] = card
    area.hand.append(returned)
    st.emit(
        {
            "type": "exchange",
            "seat": seat,
            "position": position,
            "placed": CARD_IDS[card],
            "returned": CARD_IDS[returned],
        }
    )
