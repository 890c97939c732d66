"""Customer effects (RULES.md section 8), one function per ``effect_id`` of cards.json.

``resolve`` is one effect resolution: the reaction window when another player is targeted
(section 9), then the effect itself. Nested guests and advertises are scheduled as steps, so they
resolve completely before the outer guest continues (section 7).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .data import CARD_IDS, CARDS
from .ops import option_card, step
from .reactions import open_window

if TYPE_CHECKING:
    from .state import MaiStarState

Effect = Callable[["MaiStarState", int, int, dict[str, Any]], None]


@step("resolve")
def resolve(
    st: MaiStarState, seat: int, card: int, option: dict[str, Any], resolution: int
) -> None:
    target = option.get("target", seat)
    if target != seat:
        open_window(st, seat, card, target, option, resolution)
    else:
        apply_effect(st, seat, card, option)


@step("apply_effect")
def apply_effect(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    EFFECTS[CARDS[card].effect_id](st, seat, card, option)


def courtier(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    """Play one more guest of the Courtier's colour (already checked in D4/D8)."""
    st.push("play_guest", seat, option_card(option), "courtier")


def daimyo(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    """Every advertiser of the Daimyo's colour becomes a guest, oldest first (R20)."""
    area = st.seats[seat]
    colour = CARDS[card].colour
    moving = [c for c in area.ads if CARDS[c].colour == colour]
    area.ads = [c for c in area.ads if CARDS[c].colour != colour]
    st.emit({"type": "ads_to_guests", "seat": seat, "cards": [CARD_IDS[c] for c in moving]})
    for c in moving:
        st.add_guest(seat, c)


def doctor(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    """One pending extra turn (R21, R46); none in the Longer 6-player final lap (R41)."""
    if st.lap is None:
        st.seats[seat].extra_turns += 1
        st.emit({"type": "extra_turn", "seat": seat, "pending": st.seats[seat].extra_turns})


def emissary(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    """The target's newest advertiser becomes the player's newest advertiser (R25, R26)."""
    target = option["target"]
    source = st.seats[target].ads
    if target != seat and source:
        moved = source.pop()
        st.seats[seat].ads.append(moved)
        st.emit(
            {"type": "take_advertiser", "seat": seat, "target": target, "card": CARD_IDS[moved]}
        )


def merchant(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    st.draw(option["target"], 2, "merchant")


def okaasan(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    """A full Advertise action (R22)."""
    st.push("advertise", seat, option_card(option), "okaasan")


def samurai(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    """The target's newest guest moves to the player's guests, without its effect (R25, R26)."""
    target = option["target"]
    source = st.seats[target].guests
    if target != seat and source:
        moved = source.pop()
        st.emit({"type": "take_guest", "seat": seat, "target": target, "card": CARD_IDS[moved]})
        st.add_guest(seat, moved)


def scholar(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    st.draw(option["target"], 1, "scholar")


def sumo(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    """Look at the target's hand (only the player sees it), then D6 picks a card to discard."""
    target = option["target"]
    hand = st.seats[target].hand
    st.emit(
        {"type": "look", "seat": seat, "target": target},
        private={seat: {"hand": sorted(CARD_IDS[c] for c in hand)}},
    )
    if hand:
        options = [{"card": CARD_IDS[c]} for c in st.hand_ids(target)]
        prompt = f"Sumo Wrestler: choose the card seat {target} discards"
        st.ask(seat, "sumo_discard", options, prompt, "sumo_discard", target)


@step("sumo_discard")
def sumo_discard(st: MaiStarState, option: dict[str, Any], target: int) -> None:
    discarded = option_card(option)
    st.seats[target].hand.remove(discarded)
    st.discard_cards(target, [discarded], "sumo")


def thief(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    target = option["target"]
    if st.seats[target].guests:
        st.discard_cards(target, [st.seats[target].guests.pop()], "thief")


def yakuza(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    target = option["target"]
    if st.seats[target].ads:
        st.discard_cards(target, [st.seats[target].ads.pop()], "yakuza")


def monk(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    """Discard the whole hand (R24)."""
    hand = sorted(st.seats[seat].hand)
    st.seats[seat].hand = []
    if hand:
        st.discard_cards(seat, hand, "monk")


def shogun(st: MaiStarState, seat: int, card: int, option: dict[str, Any]) -> None:
    """The whole hand becomes guests, in an order chosen card by card (D5, R23)."""
    st.push("shogun_next", seat)


@step("shogun_next")
def shogun_next(st: MaiStarState, seat: int) -> None:
    ids = st.hand_ids(seat)
    if len(ids) > 1:
        options = [{"card": CARD_IDS[c]} for c in ids]
        prompt = "Shogun: choose the next card to add as a guest"
        st.ask(seat, "shogun_order", options, prompt, "shogun_chosen", seat)
    elif ids:
        for _ in range(len(st.seats[seat].hand)):
            _shogun_add(st, seat, ids[0])


def _shogun_add(st: MaiStarState, seat: int, card: int) -> None:
    st.seats[seat].hand.remove(card)
    st.emit({"type": "guest", "seat": seat, "card": CARD_IDS[card], "source": "shogun"})
    st.add_guest(seat, card)


@step("shogun_chosen")
def shogun_chosen(st: MaiStarState, option: dict[str, Any], seat: int) -> None:
    _shogun_add(st, seat, option_card(option))
    st.push("shogun_next", seat)


EFFECTS: dict[str, Effect] = {
    "courtier_extra_guest_same_colour": courtier,
    "daimyo_matching_advertisers_become_guests": daimyo,
    "doctor_extra_turn": doctor,
    "emissary_take_newest_advertiser": emissary,
    "merchant_target_draws_two": merchant,
    "okaasan_extra_advertise": okaasan,
    "samurai_take_newest_guest": samurai,
    "scholar_target_draws_one": scholar,
    "sumo_look_and_discard_from_hand": sumo,
    "thief_discard_newest_guest": thief,
    "yakuza_discard_newest_advertiser": yakuza,
    "monk_discard_own_hand": monk,
    "shogun_whole_hand_becomes_guests": shogun,
}

assert {c.effect_id for c in CARDS if c.effect_timing == "on_play"} <= set(EFFECTS), (
    "cards.json has an on-play effect the engine does not implement"
)
