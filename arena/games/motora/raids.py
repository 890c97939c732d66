"""Raids, idol movement and what captors do with prisoners (RULES.md 9, 10, 12.2)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .board import BOARD
from .cards import CARDS, public_card
from .model import REMOVED, RETURNED, SHRINES, Idol, Member

if TYPE_CHECKING:
    from .state import Flow, MotoraState


def unused_gear(st: MotoraState, seat: int) -> list[int]:
    """Gear cards not carried on the board right now; the Knife always counts (RULES.md 17.42)."""
    return [u for u in st.unattached(seat) if CARDS[u].kind == "gear"]


def transport_steps(st: MotoraState, seat: int, movers: list[Member]) -> int:
    """min(2, movers with Carrying Poles as 2) plus Sacred Procession (RULES.md 11.2, 9)."""
    weight = 0
    for m in movers:
        gear = CARDS[m.gear] if m.gear is not None else None
        weight += int(gear.params["value"]) if gear and gear.effect == "transport_counts_as" else 1
    cap = int(BOARD.constants["max_idol_steps_per_turn"])
    return min(cap, weight) + st.tribes[seat].procession


def raid_options(st: MotoraState, raider: int, owner: int) -> list[dict[str, Any]]:
    """RULES.md 9 and 17.40: only options that apply, plus decline."""
    victim = st.tribes[owner]
    options: list[dict[str, Any]] = [
        {"option": "steal_food", "available": victim.food},
        {"option": "steal_water", "available": victim.water},
        {"option": "destroy_shelter", "available": victim.shelter},
    ]
    mine = [m for m in st.prisoners_of(owner) if m.tribe == raider]
    if mine:
        options.append({"option": "rescue", "prisoners": len(mine)})
    for shrine in SHRINES:
        if st.idols_of(owner, shrine):
            options.append({"option": "idol", "shrine": shrine})
    gear = unused_gear(st, owner)
    if gear:
        options.append({"option": "steal_gear", "cards": len(gear)})
    options.append({"option": "decline"})
    return options


def raid(st: MotoraState, raider: int, owner: int, pos: str) -> Flow:
    """RULES.md 9: the raider picks one option (or declines); its members then go to RETURNED.

    The frame remembers a stolen idol while it is moved.
    """
    frame = st.enter("raid", idol=None)
    if frame["idol"] is None:
        options = raid_options(st, raider, owner)
        pick = yield from st.ask(raider, "raid", options, "Choose a raid option.")
        frame["idol"] = apply_raid(st, raider, owner, pos, pick)
    if frame["idol"] is not None:
        idol = st.idols[frame["idol"]]
        steps = transport_steps(st, raider, st.placed_at(pos, raider))
        yield from move_idol(st, idol, steps, raider, pos)
    st.leave()
    for m in st.placed_at(pos, raider):
        st.leave_board(m, RETURNED, "raided")


def apply_raid(
    st: MotoraState, raider: int, owner: int, pos: str, pick: dict[str, Any]
) -> int | None:
    """Carry out a raid option; returns the id of a stolen idol (which then moves)."""
    option = pick["option"]
    st.emit({"type": "raid", "seat": raider, "victim": owner, "site": pos, "option": option})
    victim = st.tribes[owner]
    if option in ("steal_food", "steal_water"):
        resource = option[len("steal_") :]
        taken = min(st.d6("raid", raider), getattr(victim, resource))
        st.gain(owner, resource, -taken, "raid")
        st.gain(raider, resource, taken, "raid")
    elif option == "destroy_shelter":
        st.gain(owner, "shelter", -min(st.d6("raid", raider), victim.shelter), "raid")
    elif option == "rescue":
        for m in st.prisoners_of(owner):
            if m.tribe == raider:
                st.free(m, "rescued")
    elif option == "idol":
        idol = next(i for i in st.idols if i.owner == owner and i.shrine == pick["shrine"])
        idol.owner = idol.shrine = None
        idol.pos = pos
        idol.moved = True
        st.emit({"type": "idol_stolen", "idol": idol.id, "seat": raider, "victim": owner})
        return idol.id
    elif option == "steal_gear":
        cards = unused_gear(st, owner)
        uid = cards[st.rng.randrange(len(cards))]
        victim.hand.remove(uid)
        st.tribes[raider].hand.append(uid)
        known = {"card": public_card(uid)}
        st.emit(
            {"type": "gear_stolen", "seat": raider, "victim": owner},
            private={raider: known, owner: known},
        )
    return None


def move_idol(st: MotoraState, idol: Idol, steps: int, seat: int, forbidden: str | None) -> Flow:
    """Move an idol 1..steps positions, one ``idol_step`` decision per step (RULES.md 11.2, 9).

    It never enters the volcano, the ocean or ``forbidden`` (the raided village) and stops in
    the first claimed village it enters, going onto that owner's shrine. The frame holds the
    steps allowed and the path so far.
    """
    frame = st.enter("idol_move", steps=steps, path=[], step="move")
    path = frame["path"]
    if frame["step"] == "move":
        while len(path) < frame["steps"]:
            assert idol.pos is not None
            options: list[dict[str, Any]] = [
                {"position": q} for q in BOARD.neighbours[idol.pos] if q != forbidden
            ]
            if path:
                options.insert(0, {"position": None})
            pick = yield from st.ask(seat, "idol_step", options, "Move the idol where (or stop)?")
            if pick["position"] is None:
                break
            idol.pos = pick["position"]
            path.append(idol.pos)
            if idol.pos in st.owner:
                break
        st.emit({"type": "idol_moved", "idol": idol.id, "seat": seat, "path": list(path)})
        frame["step"] = "arrive"
    if idol.pos in st.owner:
        yield from st.idol_arrives(idol, idol.pos)
    st.leave()


def prisoner_options(st: MotoraState, seat: int) -> list[dict[str, Any]]:
    """Cannibalise any held prisoner; sacrifice one with the Sacrificial Knife (RULES.md 10.3-4)."""
    prisoners = st.prisoners_of(seat)
    options: list[dict[str, Any]] = [
        {"action": "cannibalise", "member": m.id, "of": m.tribe} for m in prisoners
    ]
    knife = next((u for u in st.unattached(seat) if CARDS[u].effect == "sacrifice_prisoner"), None)
    if knife is not None:
        options += [
            {"action": "sacrifice", "member": m.id, "of": m.tribe, "shrine": s, "card": knife}
            for m in prisoners
            for s in SHRINES
        ]
    return options


def prisoner_action(st: MotoraState, seat: int, option: dict[str, Any]) -> None:
    member = st.members[option["member"]]
    member.captor = None
    if option["action"] == "cannibalise":
        roll = st.d6("cannibalise", seat)
        st.leave_board(member, REMOVED, "cannibalised")
        st.gain(seat, "food", roll, "cannibalise")
    else:
        st.shrine_dead(member, seat, option["shrine"], "sacrificed")
