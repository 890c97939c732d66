"""The placement phase: two stages, one member at a time, range and gear (RULES.md 6)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from .board import BOARD
from .cards import CARDS, public_card
from .model import ACTIVE, PLACED

if TYPE_CHECKING:
    from .state import Flow, MotoraState


def has_active(st: MotoraState, seat: int) -> bool:
    return any(st.members[i].state == ACTIVE for i in st.tribes[seat].members)


def stage_one(st: MotoraState) -> Flow:
    """RULES.md 6.1: two rounds, one member per tribe per round (fewer if it has fewer)."""
    frame = st.enter("stage_one", round=0, order=st.order(), i=0)
    while frame["round"] < 2:
        while frame["i"] < len(frame["order"]):
            seat = frame["order"][frame["i"]]
            if has_active(st, seat):
                yield from place_one(st, seat, 1)
            frame["i"] += 1
        frame.update(round=frame["round"] + 1, order=st.order(), i=0)
    st.leave()


def stage_two(st: MotoraState) -> Flow:
    """RULES.md 6.1: round after round until nobody has an ACTIVE member (placing is mandatory)."""
    frame = st.enter("stage_two", order=st.order(), i=0, placed=False)
    while True:
        while frame["i"] < len(frame["order"]):
            seat = frame["order"][frame["i"]]
            if has_active(st, seat):
                frame["placed"] = True
                yield from place_one(st, seat, 2)
            frame["i"] += 1
        if not frame["placed"]:
            break
        frame.update(order=st.order(), i=0, placed=False)
    st.leave()


def legal_positions(st: MotoraState, seat: int, gear: int | None) -> list[dict[str, Any]]:
    """RULES.md 6.2: every position the tribe may use now, with its distance and shelter cost."""
    tribe = st.tribes[seat]
    assert tribe.village is not None
    effect = CARDS[gear].params if gear is not None else {}
    kind = effect.get("type")
    by_sea = kind == "placement_path_may_cross_ocean"
    free = int(effect["value"]) if kind == "free_range" else int(BOARD.constants["free_range"])
    warded = [t.village for t in st.tribes if t.ward and t.seat != seat]
    restricted, shelter = st.restricted, tribe.shelter
    return [
        option
        for pos, cost, option in reach(tribe.village, by_sea, free)
        if cost <= shelter and not restricted[pos] and pos not in warded
    ]


@cache
def reach(village: str, by_sea: bool, free: int) -> tuple[tuple[str, int, dict[str, Any]], ...]:
    """(position, shelter cost, option) for every reachable position, in board order.

    The option maps are built once per village and card effect and shared by every placement
    decision (no code changes an option once it is offered).
    """
    dist = (BOARD.sea_dist if by_sea else BOARD.land_dist)[village]
    per = int(BOARD.constants["shelter_per_extra_tile"])
    costs = {pos: max(0, dist[pos] - free) * per for pos in BOARD.positions if pos in dist}
    return tuple(
        (pos, cost, {"position": pos, "distance": dist[pos], "cost": cost})
        for pos, cost in costs.items()
    )


def gear_options(st: MotoraState, seat: int) -> list[dict[str, Any]]:
    """Assignable gear not carried by anyone, one option per card design (6.4)."""
    seen: set[str] = set()
    out: list[dict[str, Any]] = [{"gear": None}]
    for uid in st.unattached(seat):
        card = CARDS[uid]
        if card.assignable and card.id not in seen:
            seen.add(card.id)
            out.append({"gear": uid, "card": card.id, "name": card.name})
    return out


def place_one(st: MotoraState, seat: int, stage: int) -> Flow:
    """Decisions ``gear`` (only when the tribe has free gear) then ``place``."""
    tribe = st.tribes[seat]
    frame = st.enter("place", step="gear", gear=None)
    if frame["step"] == "gear":
        gears = gear_options(st, seat)
        if len(gears) > 1:
            pick = yield from st.ask(seat, "gear", gears, "Attach a gear card to this member?")
            frame["gear"] = pick["gear"]
        frame["step"] = "place"
    gear = frame["gear"]
    spots = legal_positions(st, seat, gear)
    pick = yield from st.ask(seat, "place", spots, "Where do you place this member?")
    st.leave()
    member = next(st.members[i] for i in tribe.members if st.members[i].state == ACTIVE)
    pos = pick["position"]
    tribe.shelter -= pick["cost"]
    tribe.placed_count += 1
    member.state = PLACED
    member.pos = pos
    member.stage = stage
    member.placed_index = tribe.placed_count
    member.gear = gear
    if pos == tribe.village and not tribe.home_used:
        tribe.home_used = True
        member.home_first = True
    st.emit(
        {
            "type": "placed",
            "seat": seat,
            "member": member.id,
            "position": pos,
            "cost": pick["cost"],
            "stage": stage,
            "gear": public_card(gear) if gear is not None else None,
        }
    )
