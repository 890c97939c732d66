"""Action-resource phase, shrines and winning (RULES.md 11, 12, 13; rulings 17.50-17.66)."""

from __future__ import annotations

import pytest

from arena.games.motora import resources
from arena.games.motora.board import BOARD
from arena.games.motora.model import (
    ACTIVE,
    INJURED,
    NEXT_INJURED,
    NEXT_SERIOUS,
    PLACED,
    REMOVED,
    SERIOUS,
    SHRINE,
)
from arena.games.motora.state import GameOver
from arena.games.motora.victory import check
from tests.games.motora.helpers import Dice, drive, events, fresh, give, index, put, run


def _act(st, seat, picks):
    """Run a tribe's action batch; ``picks`` maps member id -> option fields."""
    asked = []

    def answer(d):
        asked.append(d)
        if d.kind == "action":
            member = int(d.prompt.split()[3])
            return index(d, **picks.get(member, {"action": "rest"}))
        return 0

    run(resources.tribe_actions(st, seat), answer)
    return asked


def _spot(st, tile_id: str) -> str:
    return st.pos_of_tile[tile_id]


def test_healing() -> None:
    """RULES.md 11.1, 17.50: serious -> injured -> active; this turn's injuries do not move."""
    st = fresh(2)
    a, b, c, d = st.own(0)[:4]
    a.state, b.state, c.state, d.state = SERIOUS, INJURED, NEXT_INJURED, NEXT_SERIOUS
    resources.heal(st)
    assert (a.state, b.state, c.state, d.state) == (INJURED, ACTIVE, NEXT_INJURED, NEXT_SERIOUS)


def test_gather_yield_with_life_bonus_gear_and_plenty() -> None:
    """RULES.md 11.2, 12.1, CR06, TE06: amount + L + gear + Blessing of Plenty."""
    st = fresh(2)
    pos = _spot(st, "T04")  # Banana Grove: 4 plant food
    (m,) = put(st, 0, pos, gear="CR06")
    st.idols[0].pos, st.idols[0].owner, st.idols[0].shrine = None, 0, "life"
    for dead in st.own(1)[:2]:
        st.shrine_dead(dead, 0, "life", "test")
    st.tribes[0].plenty = 1
    food = st.tribes[0].food
    _act(st, 0, {m.id: {"action": "gather", "option": 0}})
    assert st.tribes[0].food == food + 4 + 2 + 2 + 1


@pytest.mark.parametrize(
    ("tile", "gear", "resource", "bonus"),
    [
        ("T11", "CR07", "water", 2),
        ("T17", "CR08", "shelter", 2),
        ("T20", "CR09", "shelter", 2),
        ("T07", "CR05", "food", 2),
        ("T11", "CR06", "water", 0),
        ("T07", "CR06", "food", 0),
        ("T07", "CR07", "food", 0),
    ],
)
def test_gear_bonus_matches_subtype_or_resource(tile, gear, resource, bonus) -> None:
    """CR05-CR09: a tool adds 2 only to its own subtype or resource."""
    st = fresh(2)
    (m,) = put(st, 0, _spot(st, tile), gear=gear)
    before = getattr(st.tribes[0], resource)
    _act(st, 0, {m.id: {"action": "gather", "option": 0}})
    base = BOARD.tiles[tile].gather[0]["amount"]
    assert getattr(st.tribes[0], resource) == before + base + bonus


def test_one_gather_per_tile_and_choice_once() -> None:
    """RULES.md 11.2, 17.28, 17.54: one Gather per tile; a choice tile gives one option."""
    st = fresh(2)
    pos = _spot(st, "T23")
    a, _ = put(st, 0, pos, 2)
    asked = _act(st, 0, {a.id: {"action": "gather", "option": 1}})
    first, second = asked[0], asked[1]
    assert [o.get("option") for o in first.options if o["action"] == "gather"] == [0, 1]
    assert not [o for o in second.options if o["action"] == "gather"]
    st.gathered.clear()
    st.gathered[pos] = True
    assert not [o for o in resources.member_options(st, 0, a, {}, []) if o["action"] == "gather"]


def test_wild_boars() -> None:
    """RULES.md 11.2, 17.55, CR05: a 1 yields nothing and injures, unless a Hunting Spear."""
    st = fresh(2)
    (m,) = put(st, 0, _spot(st, "T09"))
    (s,) = put(st, 0, _spot(st, "T10"), gear="CR05")
    food = st.tribes[0].food
    st.rng = Dice([1, 1])
    _act(st, 0, {m.id: {"action": "gather", "option": 0}, s.id: {"action": "gather", "option": 0}})
    assert m.state == NEXT_INJURED and s.state == PLACED and st.tribes[0].food == food
    attacks = {e["member"]: e["injured"] for e in events(st, "boar_attack")}
    assert attacks == {m.id: True, s.id: False}
    st.rng = Dice([2])
    st.gathered.clear()
    _act(st, 0, {s.id: {"action": "gather", "option": 0}})
    assert st.tribes[0].food == food + 5 + 2


def test_hut_and_temple_draw_without_bonus() -> None:
    """RULES.md 11.2, 15, 17.68: draw one card, privately; an empty deck offers no draw."""
    st = fresh(2)
    (h,) = put(st, 0, _spot(st, "T29"))
    (t,) = put(st, 0, _spot(st, "T31"))
    top_c, top_t = st.decks["craftsmen"][0], st.decks["temple"][0]
    _act(
        st,
        0,
        {
            h.id: {"action": "gather", "draw": "craftsmen"},
            t.id: {"action": "gather", "draw": "temple"},
        },
    )
    in_board_order = BOARD.order[h.pos] < BOARD.order[t.pos]  # members act in board order
    assert st.tribes[0].hand == ([top_c, top_t] if in_board_order else [top_t, top_c])
    drawn = events(st, "card_drawn")
    assert all("card" not in e for e in drawn)
    assert all("card" in e for e in st.events_since(0, 0)[0] if e["type"] == "card_drawn")
    assert all("card" not in e for e in st.events_since(1, 0)[0] if e["type"] == "card_drawn")
    st.decks["craftsmen"].clear()
    st.gathered.clear()
    assert not [o for o in resources.member_options(st, 0, h, {}, []) if o["action"] == "gather"]


def test_fishing_pairs_bonus_and_any_position() -> None:
    """RULES.md 11.2, 17.53, 17.66, CR04: once per (spot, position); net +2; Life bonus applies."""
    st = fresh(2)
    (a,) = put(st, 0, "r1c2", gear="CR04")
    b, c = put(st, 0, "r1c2", 2)
    st.destroyed["r2c1"] = True
    (d,) = put(st, 0, "r2c1")
    food = st.tribes[0].food
    asked = _act(
        st,
        0,
        {
            a.id: {"action": "fish", "spot": "F1"},
            b.id: {"action": "fish", "spot": "F2"},
            d.id: {"action": "fish", "spot": "F1"},
        },
    )
    third = next(x for x in asked if f"member {c.id} " in x.prompt)
    assert not [o for o in third.options if o["action"] == "fish"]
    assert st.tribes[0].food == food + 4 + 2 + 2


def test_offered_amounts_are_what_the_action_yields() -> None:
    """README (D9: ``amount``, the expected yield), RULES.md 11.2, 12.1: with a Life bonus and a
    Fishing Net, the amount offered for fishing and for gathering is what the tribe gets."""
    st = fresh(2)
    st.idols[0].pos, st.idols[0].owner, st.idols[0].shrine = None, 0, "life"
    (fisher,) = put(st, 0, "r1c2", gear="CR04")
    (gatherer,) = put(st, 0, _spot(st, "T04"))
    fish = next(o for o in resources.member_options(st, 0, fisher, {}, []) if o["action"] == "fish")
    gather = next(
        o for o in resources.member_options(st, 0, gatherer, {}, []) if o["action"] == "gather"
    )
    assert fish["amount"] == BOARD.fishing[fish["spot"]].food + 1 + 2
    assert gather["amount"] == BOARD.tiles["T04"].gather[0]["amount"] + 1
    food = st.tribes[0].food
    _act(
        st,
        0,
        {
            fisher.id: {"action": "fish", "spot": fish["spot"]},
            gatherer.id: {"action": "gather", "option": 0},
        },
    )
    assert st.tribes[0].food == food + fish["amount"] + gather["amount"]


def test_transport_steps_poles_and_arrival() -> None:
    """RULES.md 11.2, 12.2, 17.56, CR12, D10: steps min(2, movers); poles count 2; stops at
    a claimed village and its owner picks the shrine."""
    st = fresh(2, villages=("r1c2", "r7c6"))
    idol = st.idols[0]
    assert idol.pos == "r1c4"
    (m,) = put(st, 0, "r1c4", gear="CR12")
    steps = []

    def answer(d):
        if d.kind == "action":
            return index(d, action="transport")
        if d.kind == "idol_step":
            steps.append(d)
            return index(d, position=["r2c4", "r2c3"][len(steps) - 1])
        if d.kind == "idol_shrine":
            return index(d, shrine="death")
        return 0

    run(resources.tribe_actions(st, 0), answer)
    assert len(steps) == 2 and idol.pos == "r2c3" and idol.moved
    assert not [o for o in resources.member_options(st, 0, m, {}, []) if o["action"] == "transport"]
    st2 = fresh(2, villages=("r1c2", "r7c6"))
    idol2 = st2.idols[0]
    idol2.pos = "r2c2"
    put(st2, 0, "r2c2")
    shrine = []

    def answer2(d):
        if d.kind == "action":
            return index(d, action="transport")
        if d.kind == "idol_step":
            return index(d, position="r1c2")
        shrine.append(d.kind)
        return index(d, shrine="death")

    run(resources.tribe_actions(st2, 0), answer2)
    assert shrine == ["idol_shrine"] and idol2.owner == 0 and idol2.shrine == "death"
    assert st2.bonus(0, "death") == 1


def test_idol_into_another_tribe_village_goes_to_it() -> None:
    """RULES.md 12.2, 17.57: only the village's owner can hold an idol there."""
    st = fresh(2, villages=("r1c2", "r1c4"))
    idol = st.idols[0]
    idol.pos = "r1c5"
    put(st, 0, "r1c5")

    def answer(d):
        if d.kind == "action":
            return index(d, action="transport")
        if d.kind == "idol_step":
            return index(d, position="r1c4")
        assert d.seat == 1
        return 0

    run(resources.tribe_actions(st, 0), answer)
    assert idol.owner == 1


def test_transported_idol_stops_in_the_first_claimed_village() -> None:
    """RULES.md 11.2, 12.2, 17.56: an idol that enters a claimed village stops there even with
    steps left (Carrying Poles allow two): no further step is asked, the owner picks a shrine."""
    st = fresh(2, villages=("r1c2", "r7c6"))
    idol = st.idols[0]
    idol.pos = "r2c2"
    put(st, 0, "r2c2", gear="CR12")
    asked = []

    def answer(d):
        asked.append(d.kind)
        if d.kind == "action":
            return index(d, action="transport")
        if d.kind == "idol_step" and asked.count("idol_step") == 1:
            return index(d, position="r1c2")
        if d.kind == "idol_shrine":
            return index(d, shrine="life")
        return 0

    run(resources.tribe_actions(st, 0), answer)
    assert asked.count("idol_step") == 1 and "idol_shrine" in asked
    assert events(st, "idol_moved")[-1]["path"] == ["r1c2"]
    assert idol.owner == 0 and idol.shrine == "life" and st.bonus(0, "life") == 1


def test_recruit() -> None:
    """RULES.md 11.2, 17.52: two members at home, once per turn, below 8; new member exempt."""
    st = fresh(2)
    a, b, c, _ = put(st, 0, "r1c2", 4)
    asked = _act(st, 0, {a.id: {"action": "recruit"}})
    assert [x.prompt for x in asked if f"member {b.id} " in x.prompt] == []
    third = next(x for x in asked if f"member {c.id} " in x.prompt)
    assert not [o for o in third.options if o["action"] == "recruit"]
    new = st.own(0)[-1]
    assert len(st.own(0)) == 7 and new.state == ACTIVE and new.new_this_turn
    st2 = fresh(2)
    for _ in range(2):
        st2.new_member(0, ACTIVE)
    e, f = put(st2, 0, "r1c2", 2)
    assert not [o for o in resources.member_options(st2, 0, e, {}, [f]) if o["action"] == "recruit"]


def test_tribes_act_in_turn_order_and_batch_order() -> None:
    """RULES.md 11.3, 17.8: tribes act one at a time in turn order; a batch carries out
    gathers and fishing first, then transports, then the recruit."""
    st = fresh(2, villages=("r1c2", "r1c4"))
    st.first = 1
    put(st, 0, "r2c2")
    put(st, 1, "r1c4", 2)
    (mover,) = put(st, 1, "r1c5")
    st.idols[0].pos = "r1c5"
    seats = []

    def answer(d):
        seats.append((d.seat, d.kind))
        if d.kind == "action" and d.seat == 1:
            for fields in ({"action": "transport"}, {"action": "recruit"}, {"action": "fish"}):
                try:
                    return index(d, **fields)
                except AssertionError:
                    continue
        if d.kind == "idol_step":
            return index(d, position="r1c4")
        return 0

    run(resources.action_phase(st), answer)
    assert [s for s, k in seats if k == "action"] == [1, 1, 0]  # the recruit pair asks once
    kinds = [e["event"]["type"] for e in st.event_log()]
    assert kinds.index("idol_moved") < kinds.index("member_gained")
    assert mover.state == PLACED and st.idols[0].owner == 1


def test_consumption_home_exemption_and_snapshot() -> None:
    """RULES.md 11.4, 17.51, 17.58: the home_first member does not eat even after leaving;
    needs are a snapshot; at most one death each for food and water."""
    st = fresh(2)
    members = st.own(0)
    members[0].home_first = True
    members[0].state = NEXT_INJURED
    st.tribes[0].food, st.tribes[0].water = 2, 0
    st.tribes[0].shelter = 3
    deaths = []

    def answer(d):
        if d.kind == "victim" and d.seat == 0:
            deaths.append(d)
            return index(d, state=NEXT_INJURED) if len(deaths) == 1 else 0
        return index(d, shrine="life") if d.kind == "dead_shrine" else 0

    run(resources.consumption(st), answer)
    need = events(st, "consumption")[0]
    assert (need["food"], need["water"], need["shelter"]) == (5, 5, 1)
    assert len(deaths) == 2 and len(st.own(0)) == 4
    assert st.dead_on(0, "life") == 2 and st.bonus(0, "life") == 1
    assert st.tribes[0].shelter == 2


def test_consumption_pays_exactly_what_is_needed() -> None:
    """RULES.md 11.4, 11.5: a stock equal to the need is paid in full with no shortage; a stock
    below it is paid to 0 and then one member dies."""
    st = fresh(2)
    need = resources.needs(st, 0)
    st.tribes[0].food, st.tribes[0].water, st.tribes[0].shelter = need["food"], 2, need["shelter"]
    asked = []

    def answer(d):
        asked.append((d.seat, d.kind))
        return 0

    run(resources.consumption(st), answer)
    assert (st.tribes[0].food, st.tribes[0].water, st.tribes[0].shelter) == (0, 0, 0)
    assert asked.count((0, "victim")) == 1  # for the water only
    paid = [(e["resource"], e["change"]) for e in events(st, "resource") if e["seat"] == 0]
    assert paid[:3] == [("food", -need["food"]), ("water", -2), ("shelter", -need["shelter"])]


def test_shortage_victim_any_state_and_death_needs_a_victim() -> None:
    """RULES.md 11.5, 17.61, 11.4: any own living member may die; no victim, no death."""
    st = fresh(3)
    only = st.own(0)[0]
    for m in st.own(0)[1:]:
        m.state = REMOVED
    only.state = SERIOUS
    st.tribes[0].food = st.tribes[0].water = 0
    asked = []

    def answer(d):
        asked.append(d.kind)
        return 0

    run(resources.consumption(st), answer)
    assert asked.count("victim") == 1 and only.state == SHRINE
    assert st.tribes[0].eliminated


def test_shelter_collapse() -> None:
    """RULES.md 11.4, 17.59: after food and water are paid, all stocks and all cards are lost."""
    st = fresh(2)
    st.tribes[0].shelter = 0
    (m,) = put(st, 0, "r2c2", gear="CR01")
    give(st, 0, "TE13")
    run(resources.consumption(st))
    t = st.tribes[0]
    assert (t.food, t.water, t.shelter, t.hand, m.gear) == (0, 0, 0, [], None)
    assert events(st, "resource")[0]["change"] == -6  # food was paid first


def test_stockpile_cap_variant() -> None:
    """RULES.md 11.6, 17.60: no cap by default; the option cuts stocks after consumption."""
    st = fresh(2, stockpile_cap=5)
    run(resources.consumption_step(st))
    assert all(max(t.food, t.water, t.shelter) <= 5 for t in st.tribes)
    st2 = fresh(2)
    st2.tribes[0].food = 50
    run(resources.consumption_step(st2))
    assert st2.tribes[0].food == 44
    st3 = fresh(2, stockpile_cap=5)  # a stock left exactly at the cap is not cut
    st3.tribes[0].food = resources.needs(st3, 0)["food"] + 5
    run(resources.consumption_step(st3))
    cuts = [e for e in events(st3, "resource") if e["why"] == "cap" and e["seat"] == 0]
    assert st3.tribes[0].food == 5 and "food" not in [e["resource"] for e in cuts]


def test_idol_win_counts_only_shrines() -> None:
    """RULES.md 13.2, 17.62: the moment enough idols are on a tribe's shrines it wins."""
    st = fresh(5)
    st.idols[0].pos, st.idols[0].owner, st.idols[0].shrine = None, 3, "life"
    check(st)
    st.idols[1].pos, st.idols[1].owner, st.idols[1].shrine = None, 3, "death"
    with pytest.raises(GameOver) as over:
        check(st)
    assert over.value.reason == "idols" and over.value.winners == [3]


def test_elimination_drops_idols_and_ruins_village() -> None:
    """RULES.md 13.1, 17.63: the village is ruined, idols drop there, cards go to the decks."""
    st = fresh(3)
    st.idols[0].pos, st.idols[0].owner, st.idols[0].shrine = None, 1, "life"
    card = give(st, 1, "CR01")
    for m in st.own(1):
        m.state = REMOVED
    check(st)
    assert st.tribes[1].eliminated and "r7c6" in st.ruined and "r7c6" not in st.owner
    assert st.idols[0].pos == "r7c6" and st.idols[0].owner is None
    assert st.decks["craftsmen"][-1] == card
    dropped = {"type": "idol_dropped", "idol": st.idols[0].id, "position": "r7c6"}
    assert all(dropped in st.events_since(seat, 0)[0] for seat in range(3))  # public (18)


def test_simultaneous_elimination() -> None:
    """RULES.md 13.3, 17.64: most idols among those eliminated together; ties draw."""
    st = fresh(3)
    st.idols[0].pos, st.idols[0].owner, st.idols[0].shrine = None, 2, "life"
    for m in st.members:
        m.state = REMOVED
    with pytest.raises(GameOver) as over:
        check(st)
    assert over.value.reason == "simultaneous_elimination" and over.value.winners == [2]
    st2 = fresh(2)
    for m in st2.members:
        m.state = REMOVED
    with pytest.raises(GameOver) as over:
        check(st2)
    assert over.value.winners == [0, 1]


def test_outcome_scores_and_ranks() -> None:
    """RULES.md 13.3: the last tribe standing wins; winners share rank 0, the others follow."""
    st = fresh(3)
    for m in st.own(1) + st.own(2):
        m.state = REMOVED
    drive(st)
    out = st.outcome()
    assert out.ranks == (0, 1, 1) and out.scores == (1.0, 0.0, 0.0)
    assert out.details["reason"] == "last_tribe" and out.details["winners"] == [0]
