"""Playing single-use cards in their windows (RULES.md 5, 7.1, 11.4, 15).

Gear is attached in placement (placement.py) and read where it acts (combat, actions, raids);
Poisoned Darts are played inside fights (combat.py). This module handles the windows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .board import BOARD
from .cards import CARDS, WINDOWS, public_card
from .model import ACTIVE, INJURED, SERIOUS
from .raids import prisoner_action, prisoner_options

if TYPE_CHECKING:
    from .state import Flow, MotoraState


def _targets(st: MotoraState, seat: int, effect: str, params: dict[str, Any]) -> list[dict]:
    """The target fields of each legal way to play a card; empty when it cannot be played."""
    if effect in (
        "gain_resource",
        "npe_hunt",
        "gather_bonus_all",
        "combat_bonus_all",
        "ward_village",
        "transport_bonus",
    ):
        return [{}]
    if effect == "heal_members":
        hurt = [s for s in (INJURED, SERIOUS) if st.own(seat, (s,))]
        if params.get("count") == "all":
            return [{}] if hurt else []
        return [{"target": s} for s in hurt]
    if effect == "gain_member":
        return [{}] if st.tribe_size(seat) < int(BOARD.constants["max_tribe_size"]) else []
    if effect in ("combat_bonus_target_tribe", "consumption_modifier_target_tribe"):
        return [{"target": s} for s in st.order() if s != seat]
    if effect == "restrict_chosen_tile":
        spots = sorted(
            (st.pos_of_tile[t] for t in BOARD.group_tiles[params["group"]]),
            key=BOARD.order.__getitem__,
        )
        return [{"target": p} for p in spots if not st.destroyed[p] and not st.restricted[p]]
    if effect == "destroy_chosen_tile":
        with_idol = {i.pos for i in st.idols}
        return [
            {"target": p} for p in BOARD.tile_spots if not st.destroyed[p] and p not in with_idol
        ]
    if effect == "restore_destroyed_tile":
        return [{"target": p} for p in BOARD.tile_spots if st.destroyed[p]]
    return []


def card_options(st: MotoraState, seat: int, window: str) -> list[dict[str, Any]]:
    """Every legal card play for ``seat`` in ``window``, one option per card design and target."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for uid in st.unattached(seat):
        card = CARDS[uid]
        if card.kind != "single_use" or card.window not in WINDOWS[window] or card.id in seen:
            continue
        seen.add(card.id)
        for target in _targets(st, seat, card.effect, card.params):
            out.append({"action": "play", "card": uid, "name": card.name, **target})
    return out


def window(st: MotoraState, name: str) -> Flow:
    """Rounds in turn order until a full round in which every tribe passes (RULES.md 5, 11.4)."""
    frame = st.enter("window", order=st.order(), i=0, acted=False)
    while True:
        while frame["i"] < len(frame["order"]):
            seat = frame["order"][frame["i"]]
            options = [
                {"action": "pass"},
                *card_options(st, seat, name),
                *prisoner_options(st, seat),
            ]
            pick = yield from st.ask(seat, name, options, "Play a card, use a prisoner or pass.")
            frame["i"] += 1
            if pick["action"] == "pass":
                continue
            frame["acted"] = True
            if pick["action"] == "play":
                play_card(st, seat, pick)
            else:
                prisoner_action(st, seat, pick)
        if not frame["acted"]:
            break
        frame.update(order=st.order(), i=0, acted=False)
    st.leave()


def play_card(st: MotoraState, seat: int, pick: dict[str, Any]) -> None:
    """Apply a single-use card (cards.json effect_types), then put it at the bottom of its deck."""
    from .events import destroy, restrict

    uid = pick["card"]
    card = CARDS[uid]
    tribe = st.tribes[seat]
    tribe.hand.remove(uid)
    st.to_bottom(uid)
    target: Any = pick.get("target")  # a seat or a board spot, by the effect
    st.emit({"type": "card_played", "seat": seat, "card": public_card(uid), "target": target})
    params, effect = card.params, card.effect
    if effect == "gain_resource":
        st.gain(seat, params["resource"], int(params["amount"]), card.name)
    elif effect == "heal_members":
        hurt = st.own(seat, (target,) if target else (INJURED, SERIOUS))
        count = len(hurt) if params.get("count") == "all" else int(params["count"])
        for m in hurt[:count]:
            st.leave_board(m, ACTIVE, card.name)
    elif effect == "npe_hunt":
        tribe.hunts.append(uid)
    elif effect == "restrict_chosen_tile":
        restrict(st, target, card.name)
    elif effect == "destroy_chosen_tile":
        destroy(st, target, card.name)
    elif effect == "restore_destroyed_tile":
        st.destroyed[target] = False
        st.emit({"type": "tile_restored", "position": target})
    elif effect == "gather_bonus_all":
        tribe.plenty += int(params["amount"])
    elif effect == "combat_bonus_all":
        tribe.combat_mod += int(params["amount"])
    elif effect == "combat_bonus_target_tribe":
        st.tribes[target].combat_mod += int(params["amount"])
    elif effect == "consumption_modifier_target_tribe":
        mods = st.tribes[target].need_mod
        mods[params["resource"]] = mods.get(params["resource"], 0) + int(params["amount"])
    elif effect == "gain_member":
        for _ in range(int(params.get("count", 1))):
            if st.tribe_size(seat) < int(BOARD.constants["max_tribe_size"]):
                st.new_member(seat, ACTIVE).new_this_turn = True
                st.emit({"type": "member_gained", "seat": seat, "why": card.name})
    elif effect == "ward_village":
        tribe.ward = True
    elif effect == "transport_bonus":
        tribe.procession += int(params["extra_steps"])


def appease_window(st: MotoraState) -> Flow:
    """RULES.md 7.1 step 1: each tribe in turn order may cancel the revealed event.

    Every tribe is asked (a single "no" option when it holds no such card), so whether a tribe
    is asked reveals nothing about its hand. Returns True if the event was cancelled.
    """
    frame = st.enter("appease", order=st.order(), i=0)
    while frame["i"] < len(frame["order"]):
        seat = frame["order"][frame["i"]]
        options: list[dict[str, Any]] = [{"play": False}]
        held = [u for u in st.unattached(seat) if CARDS[u].effect == "cancel_event"]
        if held:
            options.append({"play": True, "card": held[0]})
        pick = yield from st.ask(seat, "appease", options, "Cancel this event?")
        frame["i"] += 1
        if pick["play"]:
            uid = pick["card"]
            st.tribes[seat].hand.remove(uid)
            st.to_bottom(uid)
            st.emit({"type": "card_played", "seat": seat, "card": public_card(uid), "target": None})
            st.leave()
            return True
    st.leave()
    return False
