"""Placement phase and the turn skeleton (RULES.md 4, 6, 14; rulings 17.7, 17.10-17.18)."""

from __future__ import annotations

from arena.games.motora import placement, resources
from arena.games.motora.flow import end_of_turn
from arena.games.motora.model import (
    ACTIVE,
    INJURED,
    NEXT_INJURED,
    NEXT_SERIOUS,
    PLACED,
    RETURNED,
    SERIOUS,
)
from tests.games.motora.helpers import (
    default,
    drive,
    events,
    fresh,
    give,
    index,
    put,
    run,
    top_events,
)


def _to_placement(st) -> None:
    drive(st, until=lambda s: s.pending()[0].kind in ("place", "gear"))


def test_two_stages_around_the_event() -> None:
    """RULES.md 4, 6.1: two stage-1 rounds in turn order, the event, then stage 2 to the end."""
    st = fresh(3)
    top_events(st, "EV26")
    order = []
    drive(st, until=lambda s: s.phase == "combat" or s.turn > 1)
    log = st.event_log()
    for e in log:
        ev = e["event"]
        if ev["type"] == "placed":
            order.append((ev["seat"], ev["stage"]))
        if ev["type"] == "event_revealed":
            order.append(("event", 0))
    assert order[:7] == [(0, 1), (1, 1), (2, 1), (0, 1), (1, 1), (2, 1), ("event", 0)]
    assert order[7:10] == [(0, 2), (1, 2), (2, 2)]
    assert len(order) == 19  # 18 members, all placed (17.10)


def test_short_tribe_places_what_it_has() -> None:
    """RULES.md 6.1, 17.11: a tribe with one ACTIVE member places it in stage 1, then is skipped."""
    st = fresh(2)
    for m in st.own(1)[1:]:
        m.state = INJURED
    run(placement.stage_one(st))
    assert [m.stage for m in st.own(1, (PLACED,))] == [1]
    assert len(st.own(0, (PLACED,))) == 2
    run(placement.stage_two(st))
    assert len(st.own(0, (PLACED,))) == 6 and not st.own(1, (ACTIVE,))


def test_legal_positions_and_cost() -> None:
    """RULES.md 6.2, 17.12, 17.16: land only, 1 shelter per step beyond 5, limited by shelter."""
    st = fresh(2)
    st.tribes[0].shelter = 2
    spots = {o["position"]: o for o in placement.legal_positions(st, 0, None)}
    assert all(p in st.destroyed for p in spots)  # land positions only
    assert spots["r1c2"]["cost"] == 0
    assert spots["r3c6"]["distance"] == 6 and spots["r3c6"]["cost"] == 1
    assert spots["r4c6"]["cost"] == 2
    assert "r4c7" not in spots  # distance 8 costs 3 > 2 shelter
    st.tribes[0].shelter = 0
    spots = {o["position"] for o in placement.legal_positions(st, 0, None)}
    assert spots == {p for p, d in st.tile_at.items() if placement.BOARD.land_dist["r1c2"][p] <= 5}


def test_cost_paid_at_once_and_never_refunded() -> None:
    """RULES.md 6.2, 17.15: the shelter is paid on placement and kept even if the member leaves."""
    st = fresh(2)
    st.tribes[0].shelter = 5
    top_events(st, "EV21")  # Lost in the Jungle
    st.act(0, 0)
    st.act(1, 0)
    d = st.pending()[0]
    st.act(0, index(d, position="r4c6"))
    assert st.tribes[0].shelter == 3
    drive(st, until=lambda s: s.phase == "placement_stage_2")
    assert st.tribes[0].shelter == 3


def test_restricted_and_warded_positions_are_not_offered() -> None:
    """RULES.md 6.2, 17.13, 17.70: restricted tiles and a warded foreign village are illegal."""
    st = fresh(2)
    st.restricted["r2c2"] = True
    st.tribes[1].ward = True
    spots = {o["position"] for o in placement.legal_positions(st, 0, None)}
    assert "r2c2" not in spots and "r7c6" not in spots
    own = {o["position"] for o in placement.legal_positions(st, 1, None)}
    assert "r7c6" in own  # the ward never stops its owner


def test_any_number_of_members_anywhere() -> None:
    """RULES.md 6.2, 17.17: members never block; another tribe's village is legal."""
    st = fresh(2)
    st.tribes[0].shelter = 20
    put(st, 1, "r7c6", 3)
    spots = {o["position"] for o in placement.legal_positions(st, 0, None)}
    assert "r7c6" in spots


def test_gear_is_chosen_then_attached_publicly() -> None:
    """RULES.md 6.4, 17.18: a gear decision first, one card per member, attachment is public."""
    st = fresh(2)
    give(st, 0, "CR01")
    give(st, 0, "CR01")
    give(st, 0, "TE01")  # the Knife can never be assigned
    st.act(0, 0)
    st.act(1, 0)
    d = st.pending()[0]
    assert d.kind == "gear"
    assert [o.get("card") for o in d.options] == [None, "CR01"]
    st.act(0, 1)
    d = st.pending()[0]
    st.act(0, index(d, position="r2c2"))
    placed = events(st, "placed")[-1]
    assert placed["gear"]["card"] == "CR01"
    st.act(1, 0)
    d = st.pending()[0]
    assert d.kind == "gear" and len(d.options) == 2  # the second blade is still free


def test_sandals_and_canoe_change_range() -> None:
    """RULES.md 6.2, 6.4, CR10, CR11: Woven Sandals free range 7; the canoe crosses the ocean."""
    st = fresh(2)
    st.tribes[0].shelter = 0
    sandals = give(st, 0, "CR11")
    canoe = give(st, 0, "CR10")
    plain = {o["position"] for o in placement.legal_positions(st, 0, None)}
    far = {o["position"]: o["cost"] for o in placement.legal_positions(st, 0, sandals)}
    assert "r4c6" not in plain and far["r4c6"] == 0
    st.tribes[0].shelter = 1
    by_sea = {o["position"]: o["distance"] for o in placement.legal_positions(st, 0, canoe)}
    assert by_sea["r1c4"] == 2


def test_home_first_only_for_first_member_at_home() -> None:
    """RULES.md 6.1, 11.4: only the first member placed at home gets the exemption flag."""
    st = fresh(2)
    run(placement.stage_one(st), default)
    at_home = [m for m in st.own(0, (PLACED,)) if m.pos == "r1c2"]
    assert [m.home_first for m in at_home] == [True, False]


def test_end_of_turn_ends_this_turns_limits() -> None:
    """RULES.md 14 (this turn's effects end), 11.2 (recruit once per turn), 6.2 (the first
    member home each turn), 17.70 (Spirit Ward for one turn): after a turn in which tribe 0
    recruited and sent a member home first and tribe 1 warded its village, all three are new."""
    st = fresh(2)
    put(st, 0, "r1c2", 2)
    st.tribes[0].recruited = st.tribes[0].home_used = True
    st.tribes[1].ward = True
    st.tribes[0].shelter = 20  # enough to reach tribe 1's village
    end_of_turn(st)
    assert "r7c6" in {o["position"] for o in placement.legal_positions(st, 0, None)}

    def home(d):
        return index(d, position="r1c2")

    run(placement.place_one(st, 0, 1), home)
    first = next(m for m in st.own(0) if m.state == PLACED)
    assert first.home_first
    second = put(st, 0, "r1c2")[0]
    options = resources.member_options(st, 0, second, {}, [first])
    assert "recruit" in {o["action"] for o in options}


def test_end_of_turn_and_first_player_rotation() -> None:
    """RULES.md 14, 4.0, 17.7: members come back, injuries advance, the first player moves on."""
    st = fresh(3)
    a, b, c, d = st.own(0)[:4]
    a.state, b.state, c.state, d.state = RETURNED, NEXT_INJURED, NEXT_SERIOUS, PLACED
    d.pos = "r2c2"
    st.restricted["r2c2"] = True
    end_of_turn(st)
    assert (a.state, b.state, c.state, d.state) == (ACTIVE, INJURED, SERIOUS, ACTIVE)
    assert not st.restricted["r2c2"]
    st.tribes[1].eliminated = True
    for m in st.own(1):
        m.state = "removed"
    st.phase = "x"
    from arena.games.motora.flow import turn

    gen = turn(st)
    next(gen)
    assert st.first == 2  # seat 1 is skipped
    assert st.turn == 2
