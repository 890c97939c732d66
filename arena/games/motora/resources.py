"""The action-resource phase: healing, actions, consumption and shortages (RULES.md 11)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .board import BOARD
from .cards import CARDS
from .model import ACTIVE, INJURED, NEXT_INJURED, PLACED, SERIOUS, Member
from .raids import move_idol, transport_steps
from .victory import check

if TYPE_CHECKING:
    from .state import Flow, MotoraState

DRAW_DECK = {"craftsmen_hut": "craftsmen", "temple": "temple"}


def action_phase(st: MotoraState) -> Flow:
    """RULES.md 11.1-11.3: healing, then each tribe's actions in turn order."""
    fresh = not st.resuming()
    frame = st.enter("actions", order=st.order(), i=0)
    if fresh:
        heal(st)
    while frame["i"] < len(frame["order"]):
        yield from tribe_actions(st, frame["order"][frame["i"]])
        frame["i"] += 1
    st.leave()


def consumption_step(st: MotoraState) -> Flow:
    """RULES.md 11.4-11.6: consumption and shortages, then the optional stockpile cap."""
    yield from consumption(st)
    cap = st.options["stockpile_cap"]
    if cap:
        for seat in st.order():
            for resource in ("food", "water", "shelter"):
                if getattr(st.tribes[seat], resource) > cap:
                    st.gain(seat, resource, cap - getattr(st.tribes[seat], resource), "cap")


def heal(st: MotoraState) -> None:
    """RULES.md 11.1: seriously injured -> injured -> active; this turn's injuries wait."""
    for m in st.members:
        if m.state == SERIOUS:
            m.state = INJURED
        elif m.state == INJURED:
            m.state = ACTIVE
        else:
            continue
        st.emit({"type": "member", "seat": m.tribe, "member": m.id, "to": m.state, "why": "heal"})


def gear_bonus(member: Member, action: str, option: dict[str, Any] | None) -> int:
    """Bonus of the member's gear for a gather option (subtype or resource) or for fishing."""
    if member.gear is None:
        return 0
    params = CARDS[member.gear].params
    if params.get("type") != "action_bonus" or params.get("action") != action:
        return 0
    if option is not None:
        if "subtype" in params and params["subtype"] != option.get("subtype"):
            return 0
        if "resource" in params and params["resource"] != option.get("resource"):
            return 0
    return int(params["amount"])


def member_options(
    st: MotoraState, seat: int, m: Member, plan: dict[int, dict[str, Any]], undecided: list[Member]
) -> list[dict[str, Any]]:
    """RULES.md 11.2: the legal actions of one placed member, given the tribe's plan so far."""
    assert m.pos is not None
    pos, tribe = m.pos, st.tribes[seat]
    planned = list(plan.values())
    life = st.bonus(seat, "life")
    options: list[dict[str, Any]] = [{"action": "rest"}]
    taken = st.gathered.get(pos) or any(
        p["action"] == "gather" and p["position"] == pos for p in planned
    )
    if not st.is_village(pos) and not st.destroyed[pos] and not taken:
        tile = st.tile(pos)
        deck = DRAW_DECK.get(str(tile.special))
        if deck is not None and st.decks[deck]:
            options.append({"action": "gather", "position": pos, "draw": deck})
        for i, opt in enumerate(tile.gather):
            amount = opt["amount"] + life + gear_bonus(m, "gather", opt) + tribe.plenty
            options.append(
                {
                    "action": "gather",
                    "position": pos,
                    "option": i,
                    "resource": opt["resource"],
                    "amount": amount,
                    "risky": tile.special == "wild_boars",
                }
            )
    for spot in BOARD.fishing_near[pos]:
        used = st.fished.get((spot, pos)) or any(
            p["action"] == "fish" and p["spot"] == spot and p["position"] == pos for p in planned
        )
        if not used:
            amount = BOARD.fishing[spot].food + life + gear_bonus(m, "fish", None) + tribe.plenty
            options.append({"action": "fish", "position": pos, "spot": spot, "amount": amount})
    for idol in st.idols:
        if idol.pos == pos and not idol.moved:
            options.append({"action": "transport", "position": pos, "idol": idol.id})
    recruiting = any(p["action"] == "recruit" for p in planned)
    if (
        pos == tribe.village
        and not tribe.recruited
        and not recruiting
        and st.tribe_size(seat) < int(BOARD.constants["max_tribe_size"])
    ):
        partner = next((o for o in undecided if o.pos == pos and o is not m), None)
        if partner is not None:
            options.append({"action": "recruit", "position": pos, "partner": partner.id})
    return options


def tribe_actions(st: MotoraState, seat: int) -> Flow:
    """RULES.md 11.2-11.3: one ``action`` decision per placed member, then carry them out.

    The frame holds the members in decision order, the plan (the option chosen for each, null
    while undecided) and, once carried out, the idols to move.
    """
    members = sorted(
        st.own(seat, (PLACED,)), key=lambda m: (BOARD.order[str(m.pos)], m.placed_index)
    )
    frame = st.enter(
        "tribe_actions",
        members=[m.id for m in members],
        plan=[None] * len(members),
        idols=None,
        k=0,
    )
    members = [st.members[i] for i in frame["members"]]
    plan: list[dict[str, Any] | None] = frame["plan"]
    if frame["idols"] is None:
        for k, m in enumerate(members):
            if plan[k] is not None:
                continue
            chosen = {o.id: p for o, p in zip(members, plan, strict=True) if p is not None}
            undecided = [o for o in members if o.id not in chosen and o is not m]
            options = member_options(st, seat, m, chosen, undecided)
            pick = yield from st.ask(
                seat, "action", options, f"Action for member {m.id} at {m.pos}?"
            )
            plan[k] = pick
            if pick["action"] == "recruit":
                plan[frame["members"].index(pick["partner"])] = pick
        for m, act in zip(members, plan, strict=True):
            assert act is not None
            if act["action"] == "gather":
                gather(st, seat, m, act)
            elif act["action"] == "fish":
                fish(st, seat, m, act["spot"])
        moved = {p["idol"] for p in plan if p is not None and p["action"] == "transport"}
        frame["idols"] = sorted(moved, key=lambda i: (BOARD.order[str(st.idols[i].pos)], i))
    while frame["k"] < len(frame["idols"]):
        idol = st.idols[frame["idols"][frame["k"]]]
        movers = [
            m
            for m, p in zip(members, plan, strict=True)
            if p is not None and p["action"] == "transport" and p["idol"] == idol.id
        ]
        if not st.resuming():
            idol.moved = True
        yield from move_idol(st, idol, transport_steps(st, seat, movers), seat, None)
        frame["k"] += 1
    st.leave()
    if any(p is not None and p["action"] == "recruit" for p in plan):
        st.tribes[seat].recruited = True
        st.new_member(seat, ACTIVE).new_this_turn = True
        st.emit({"type": "member_gained", "seat": seat, "why": "recruit"})


def gather(st: MotoraState, seat: int, m: Member, pick: dict[str, Any]) -> None:
    """One Gather (RULES.md 11.2): a card draw, or a resource with bonuses; boars may bite."""
    assert m.pos is not None
    st.gathered[m.pos] = True
    tile = st.tile(m.pos)
    if "draw" in pick:
        deck = st.decks[pick["draw"]]
        if deck:
            uid = deck.pop(0)
            st.tribes[seat].hand.append(uid)
            st.emit(
                {"type": "card_drawn", "seat": seat, "deck": pick["draw"]},
                private={
                    seat: {
                        "card": {
                            "uid": uid,
                            "card": CARDS[uid].id,
                            "name": CARDS[uid].name,
                            "kind": CARDS[uid].kind,
                        }
                    }
                },
            )
        return
    opt = tile.gather[pick["option"]]
    if tile.special == "wild_boars" and st.d6("wild_boars", seat) == 1:
        immune = m.gear is not None and CARDS[m.gear].params.get("boar_injury_immunity", False)
        st.emit({"type": "boar_attack", "seat": seat, "member": m.id, "injured": not immune})
        if not immune:
            st.leave_board(m, NEXT_INJURED, "wild_boars")
        return
    amount = opt["amount"] + st.bonus(seat, "life") + gear_bonus(m, "gather", opt)
    st.gain(seat, opt["resource"], amount + st.tribes[seat].plenty, "gather")


def fish(st: MotoraState, seat: int, m: Member, spot: str) -> None:
    assert m.pos is not None
    st.fished[(spot, m.pos)] = True
    amount = BOARD.fishing[spot].food + st.bonus(seat, "life") + gear_bonus(m, "fish", None)
    st.gain(seat, "food", amount + st.tribes[seat].plenty, "fish")


def consumption(st: MotoraState) -> Flow:
    """RULES.md 11.4-11.5: needs from a snapshot; food, water, shelter; checks once at the end.

    The frame holds the needs per tribe in turn order and which resource is being paid.
    """
    order = st.order()
    frame = st.enter("consumption", order=order, needs=[needs(st, s) for s in order], i=0, r=0)
    while frame["i"] < len(frame["order"]):
        seat, need = frame["order"][frame["i"]], frame["needs"][frame["i"]]
        tribe = st.tribes[seat]
        if frame["r"] == 0 and not st.resuming():
            st.emit({"type": "consumption", "seat": seat, **need})
        while frame["r"] < 2:
            resource = ("food", "water")[frame["r"]]
            if not st.resuming():
                have = getattr(tribe, resource)
                if have >= need[resource]:
                    st.gain(seat, resource, -need[resource], "consumption")
                    frame["r"] += 1
                    continue
                st.gain(seat, resource, -have, "consumption")
            yield from shortage_death(st, seat, resource)
            frame["r"] += 1
        if tribe.shelter >= need["shelter"]:
            st.gain(seat, "shelter", -need["shelter"], "consumption")
        else:
            collapse(st, seat)
        frame.update(i=frame["i"] + 1, r=0)
    st.leave()
    check(st)


def needs(st: MotoraState, seat: int) -> dict[str, int]:
    """What the tribe consumes this turn (RULES.md 11.4): members fed, prisoners held, mods."""
    own = [m for m in st.own(seat) if not m.new_this_turn and not m.home_first]
    held = [m for m in st.prisoners_of(seat) if not m.captured_this_turn]
    base = len(own) + len(held)
    mods = {
        r: st.need_mod.get(r, 0) + st.tribes[seat].need_mod.get(r, 0)
        for r in ("food", "water", "shelter")
    }
    return {
        "food": base + mods["food"],
        "water": base + mods["water"],
        "shelter": 1 + mods["shelter"],
    }


def shortage_death(st: MotoraState, seat: int, resource: str) -> Flow:
    """RULES.md 11.5: the tribe picks one own living member (never a prisoner) and its shrine."""
    fresh = not st.resuming()
    frame = st.enter("shortage", victim=None)
    if fresh:
        st.emit({"type": "shortage", "seat": seat, "resource": resource})
    victims = st.own(seat)
    if frame["victim"] is None:
        if not victims:
            st.leave()
            return
        options = [{"member": m.id, "state": m.state, "position": m.pos} for m in victims]
        pick = yield from st.ask(seat, "victim", options, f"Short of {resource}: who dies?")
        frame["victim"] = pick["member"]
    shrine = yield from st.choose_shrine(seat, "dead_shrine", "Which shrine receives the dead?")
    st.leave()
    st.shrine_dead(st.members[frame["victim"]], seat, shrine, "shortage_" + resource)


def collapse(st: MotoraState, seat: int) -> None:
    """RULES.md 11.4 step 3: stocks wiped, every equipment card discarded (carried gear too)."""
    tribe = st.tribes[seat]
    for resource in ("food", "water", "shelter"):
        setattr(tribe, resource, 0)
    for m in st.own(seat, (PLACED,)):
        m.gear = None
    for uid in tribe.hand:
        st.to_bottom(uid)
    st.emit({"type": "shelter_collapse", "seat": seat, "cards_lost": len(tribe.hand)})
    tribe.hand = []
