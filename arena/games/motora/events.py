"""The event step and every event effect, plus Hunting Horn hunts (RULES.md 7)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .board import BOARD
from .cards import CARDS, public_card
from .combat import npe_fight
from .equipment import appease_window
from .model import NEXT_INJURED, NEXT_SERIOUS, PLACED, RETURNED, Member
from .victory import check, wrath

if TYPE_CHECKING:
    from .state import Flow, MotoraState

RESULT_STATES = {"seriously_injured": NEXT_SERIOUS, "injured": NEXT_INJURED, "returned": RETURNED}


def event_step(st: MotoraState) -> Flow:
    """RULES.md 7.1: draw, reveal window, resolve, checks; Cursed Season draws again."""
    frame = st.enter("event_step", draws=1, step="draw")
    while frame["draws"] or frame["step"] != "draw":
        if frame["step"] == "draw":
            frame["draws"] -= 1
            draw_event(st)
            frame["step"] = "appease"
        uid = st.event
        assert uid is not None
        if frame["step"] == "appease":
            cancelled = yield from appease_window(st)
            frame["step"] = "cancelled" if cancelled else "resolve"
            if cancelled:
                st.emit({"type": "event_cancelled", "card": public_card(uid)})
        if frame["step"] == "resolve":
            yield from resolve(st, uid)
            if CARDS[uid].effect == "extra_event":
                frame["draws"] += int(CARDS[uid].params.get("count", 1))
        frame["step"] = "draw"
        st.discard.append(uid)
        check(st)
    st.event = None
    st.leave()


def draw_event(st: MotoraState) -> None:
    """Reveal the top event card (an empty deck ends the game or is refilled, RULES.md 13.4)."""
    deck = st.decks["event"]
    if not deck:
        if st.options["wrath_of_the_gods"] or not st.discard:
            wrath(st, "wrath_of_the_gods")
        deck.extend(st.discard)
        st.discard.clear()
        st.rng.shuffle(deck)
        st.emit({"type": "event_deck_reshuffled", "cards": len(deck)})
    uid = deck.pop(0)
    st.event = uid
    st.emit({"type": "event_revealed", "card": public_card(uid)})


def resolve(st: MotoraState, uid: int) -> Flow:
    """Apply one event card's ``params`` (cards.json effect_types)."""
    card = CARDS[uid]
    params, effect, name = card.params, card.effect, card.name
    if effect == "destroy_random_tile":
        for _ in range(int(params.get("count", 1))):
            pos = select(st, params["group"], False)
            if pos is not None:
                destroy(st, pos, name)
    elif effect == "eruption":
        with_idol = {i.pos for i in st.idols}
        hits = [p for p in BOARD.eruption if not st.destroyed[p] and p not in with_idol]
        for pos in hits[: int(params["count"])]:
            destroy(st, pos, name)
    elif effect == "restrict_random_tiles":
        for group in params["groups"]:
            pos = select(st, group, True)
            if pos is not None:
                restrict(st, pos, name)
    elif effect == "restrict_group":
        for tile in BOARD.group_tiles[params["group"]]:
            pos = st.pos_of_tile[tile]
            if not st.destroyed[pos]:
                restrict(st, pos, name)
    elif effect in ("each_tribe_gain", "each_tribe_lose"):
        sign = 1 if effect == "each_tribe_gain" else -1
        for seat in st.order():
            amount = params["amount"]
            value = st.d6(name, seat) if amount == "1d6" else int(amount)
            st.gain(seat, params["resource"], sign * value, name)
    elif effect == "consumption_modifier":
        resource = params["resource"]
        st.need_mod[resource] = st.need_mod.get(resource, 0) + int(params["amount"])
        st.emit({"type": "need_modifier", "resource": resource, "amount": int(params["amount"])})
    elif effect == "random_placed_member":
        for seat in st.order():
            member = pick_stage_one(st, seat, name)
            if member is not None:
                st.leave_board(member, RESULT_STATES[params["result"]], name)
    elif effect == "npe_fight":
        yield from npe_event(st, params, name)


def npe_event(st: MotoraState, params: dict[str, Any], name: str) -> Flow:
    """RULES.md 7.9: random-member NPE cards, or Crocodiles on the water tiles in board order."""
    if params["targets"] == "random_placed_member":
        frame = st.enter("npe_event", order=st.order(), i=0, target=None)
        while frame["i"] < len(frame["order"]):
            seat = frame["order"][frame["i"]]
            yield from hunt(st, frame, seat, params, name)
            frame["i"] += 1
        st.leave()
        return
    spots = sorted(
        (st.pos_of_tile[t] for t in BOARD.group_tiles[params["group"]]),
        key=BOARD.order.__getitem__,
    )
    frame = st.enter("npe_sites", spot=0, order=st.order(), i=0)
    while frame["spot"] < len(spots):
        pos = spots[frame["spot"]]
        if not (params.get("skip_destroyed", True) and st.destroyed[pos]):
            while frame["i"] < len(frame["order"]):
                seat = frame["order"][frame["i"]]
                if st.resuming() or st.placed_at(pos, seat):
                    yield from npe_fight(st, seat, pos, None, params, name)
                frame["i"] += 1
        frame.update(spot=frame["spot"] + 1, order=st.order(), i=0)
    st.leave()


def hunt(
    st: MotoraState, frame: dict[str, Any], seat: int, params: dict[str, Any], name: str
) -> Flow:
    """One of the tribe's stage-1 members, picked by die (kept in ``frame``), meets an NPE."""
    if not st.resuming():
        member = pick_stage_one(st, seat, name)
        frame["target"] = member.id if member is not None and member.pos is not None else None
    if frame["target"] is not None:
        member = st.members[frame["target"]]
        assert member.pos is not None
        yield from npe_fight(st, seat, member.pos, member, params, name)
    frame["target"] = None


def card_hunts(st: MotoraState) -> Flow:
    """RULES.md 7.10: after the event step, each Hunting Horn played this turn starts a hunt."""
    frame = st.enter("card_hunts", order=st.order(), i=0, k=0, target=None)
    while frame["i"] < len(frame["order"]):
        hunts = st.tribes[frame["order"][frame["i"]]].hunts
        while frame["k"] < len(hunts):
            card = CARDS[hunts[frame["k"]]]
            yield from hunt(st, frame, frame["order"][frame["i"]], card.params, card.name)
            frame["k"] += 1
            check(st)
        frame.update(i=frame["i"] + 1, k=0)
    st.leave()


def pick_stage_one(st: MotoraState, seat: int, why: str) -> Member | None:
    """RULES.md 7.8: one of the tribe's stage-1 members still placed (d6 between two)."""
    found = [m for m in st.own(seat, (PLACED,)) if m.stage == 1]
    found.sort(key=lambda m: m.placed_index)
    if len(found) >= 2:
        return found[0] if st.d6(why, seat) <= 3 else found[1]
    return found[0] if found else None


def select(st: MotoraState, group: str, for_restriction: bool) -> str | None:
    """RULES.md 7.2: roll a d6 against the group's numbers until an eligible tile is hit."""
    spots = [st.pos_of_tile[t] for t in BOARD.group_tiles[group]]

    def eligible(pos: str) -> bool:
        return not st.destroyed[pos] and not (for_restriction and st.restricted[pos])

    if not any(eligible(p) for p in spots):
        st.emit({"type": "no_eligible_tile", "group": group})
        return None
    while True:
        pos = st.pos_of_tile[BOARD.groups[group][st.d6("select_" + group)]]
        if eligible(pos):
            return pos


def destroy(st: MotoraState, pos: str, why: str) -> None:
    """RULES.md 7.4: a tile holding an idol survives; otherwise members there go to RETURNED."""
    if any(i.pos == pos for i in st.idols):
        st.emit({"type": "destruction_prevented", "position": pos, "why": why})
        return
    st.destroyed[pos] = True
    st.emit({"type": "tile_destroyed", "position": pos, "why": why})
    for m in st.placed_at(pos):
        st.leave_board(m, RETURNED, why)


def restrict(st: MotoraState, pos: str, why: str) -> None:
    """RULES.md 7.3: no placement there this turn; members there go to RETURNED."""
    st.restricted[pos] = True
    st.emit({"type": "tile_restricted", "position": pos, "why": why})
    for m in st.placed_at(pos):
        st.leave_board(m, RETURNED, why)
