"""Combat, raids and prisoners (RULES.md 8, 9, 10; rulings 17.28-17.49)."""

from __future__ import annotations

import pytest

from arena.games.motora import combat, equipment, resources
from arena.games.motora.model import (
    ACTIVE,
    NEXT_INJURED,
    NEXT_SERIOUS,
    PLACED,
    PRISONER,
    REMOVED,
    RETURNED,
    SHRINE,
)
from arena.games.motora.state import GameOver
from arena.games.motora.victory import check
from tests.games.motora.helpers import Dice, events, fresh, give, index, put, run, uid


def _combat(st, answer=lambda d: 0) -> None:
    run(combat.combat_phase(st), answer)


@pytest.mark.parametrize(
    ("dice", "result"),
    [
        ([6, 5, 5, 5], RETURNED),
        ([6, 6, 5, 5], RETURNED),
        ([6, 6, 4, 5], NEXT_INJURED),
        ([6, 6, 2, 4], NEXT_SERIOUS),
        ([6, 6, 1, 3], REMOVED),
        ([6, 6, 1, 2], PRISONER),
    ],
)
def test_result_table(dice: list[int], result: str) -> None:
    """RULES.md 8.5, 17.35: 1-2 returned, 3-4 injured, 5-6 serious, 7-8 killed, 9+ captured."""
    st = fresh(2)
    put(st, 0, "r3c3")
    (loser,) = put(st, 1, "r3c3")
    st.rng = Dice(dice)
    _combat(st)
    assert loser.state == result
    assert not st.dead_on(1, "life") and not st.dead_on(1, "death")
    if result == PRISONER:
        assert loser.captor == 0 and loser.captured_this_turn


def test_winner_stays_losers_leave_and_sufferer_chosen() -> None:
    """RULES.md 8.3, 8.5, 8.6, 17.34, 17.39: the loser picks who suffers; the rest are returned."""
    st = fresh(2)
    (w,) = put(st, 0, "r3c3")
    a, b = put(st, 1, "r3c3", 2)
    st.rng = Dice([6, 6, 3, 3])

    def answer(d):
        return index(d, member=b.id) if d.kind == "sufferer" else 0

    _combat(st, answer)
    assert (a.state, b.state, w.state) == (RETURNED, NEXT_SERIOUS, PLACED)


def test_tie_rerolls_everything_and_used_rerolls_stay_used() -> None:
    """RULES.md 8.3, 17.30, 17.31: a tie for the top restarts; rerolls already used are gone."""
    st = fresh(2)
    put(st, 0, "r3c3", 2)
    put(st, 1, "r3c3")
    offers = []

    def answer(d):
        if d.kind == "reroll" and d.seat == 0:
            offers.append(len(d.options))
            if len(d.options) > 1:
                return index(d, action="reroll", die=0)
        return 0

    st.rng = Dice([1, 3, 2, 2, 1, 6, 6, 1, 1])  # 4 vs 4, reroll die0 -> 1: 4 vs 4 tie
    _combat(st, answer)
    assert events(st, "fight_tie")
    assert offers[0] == 3 and offers[-1] == 1


def test_modifiers_home_death_blade_blessing_curse() -> None:
    """RULES.md 8.4: +1 home, +K, +1 per Warrior Blade, +1 blessing, -1 curse of weakness."""
    st = fresh(2)
    put(st, 0, "r1c2", gear="CR01")
    put(st, 1, "r1c2")
    idol = st.idols[0]
    idol.pos, idol.owner, idol.shrine = None, 0, "death"
    st.tribes[0].combat_mod = 1
    st.tribes[1].combat_mod = -1
    st.rng = Dice([1, 1, 1, 1])
    _combat(st)
    totals = events(st, "fight_totals")[0]["totals"]
    assert totals == [{"side": 0, "total": 2 + 1 + 1 + 1 + 1}, {"side": 1, "total": 1}]


def test_clubs_add_rerolls_and_shields_cut_difference() -> None:
    """CR02, CR03: a Hardwood Club adds a reroll; a Hide Shield cuts the difference by 2 (min 1)."""
    st = fresh(2)
    put(st, 0, "r3c3")
    (s,) = put(st, 1, "r3c3", gear="CR03")
    put(st, 1, "r4c3", gear="CR02")
    put(st, 0, "r4c3")
    offers = []

    def answer(d):
        if d.kind == "reroll" and d.seat == 1:
            offers.append(len(d.options))
        return 0

    st.rng = Dice([6, 6, 3, 4, 1, 1, 1, 2])
    _combat(st, answer)
    assert s.state == NEXT_INJURED  # 12 - 7 = 5, less 2 for the shield
    assert offers[1] == 3


def test_three_tribe_fight_uses_largest_difference() -> None:
    """RULES.md 8.3, 17.32: one winner; every loser suffers the largest difference."""
    st = fresh(3)
    put(st, 0, "r3c3")
    (b,) = put(st, 1, "r3c3")
    (c,) = put(st, 2, "r3c3")
    st.rng = Dice([6, 6, 5, 5, 2, 2])  # 12, 10, 4 -> D = 8 for both losers
    _combat(st)
    assert b.state == REMOVED and c.state == REMOVED


def test_only_top_tie_matters() -> None:
    """RULES.md 8.3, 17.31: a tie among losers does not force a reroll."""
    st = fresh(3)
    put(st, 0, "r3c3")
    put(st, 1, "r3c3")
    put(st, 2, "r3c3")
    st.rng = Dice([6, 6, 2, 2, 2, 2])
    _combat(st)
    assert not events(st, "fight_tie")


def test_capture_passes_gear_to_captor() -> None:
    """RULES.md 8.5, 17.33, 17.36: 9+ captures; carried gear goes to the captor, kills return it."""
    st = fresh(2)
    put(st, 0, "r3c3", gear="CR01")
    (m,) = put(st, 1, "r3c3", gear="CR05")
    spear = m.gear
    st.rng = Dice([6, 6, 1, 1])  # 13 vs 2: over 10 counts as capture
    _combat(st)
    assert m.state == PRISONER and spear in st.tribes[0].hand and spear not in st.tribes[1].hand
    st2 = fresh(2)
    put(st2, 0, "r3c3")
    (k,) = put(st2, 1, "r3c3", gear="CR05")
    spear2 = k.gear
    st2.rng = Dice([6, 6, 2, 3])
    _combat(st2)
    assert k.state == REMOVED and spear2 in st2.tribes[1].hand


def test_combat_order_turn_order_then_board_order() -> None:
    """RULES.md 8.2, 17.29: sites of the first tribe in turn order, each in board order."""
    st = fresh(3)
    st.first = 1
    put(st, 0, "r2c2")
    put(st, 2, "r2c2")
    put(st, 1, "r5c5")
    put(st, 0, "r5c5")
    put(st, 1, "r3c3")
    put(st, 2, "r3c3")
    st.rng = Dice([6, 6, 1, 1] * 3)
    _combat(st)
    assert [e["site"] for e in events(st, "combat")] == ["r3c3", "r5c5", "r2c2"]


def test_raid_on_empty_village_and_options() -> None:
    """RULES.md 8.1b, 9, 17.37, 17.40: a lone raider raids; food steal is min(d6, stock)."""
    st = fresh(2)
    raiders = put(st, 0, "r7c6", 2)
    st.tribes[1].food = 2
    food0 = st.tribes[0].food
    seen = []

    def answer(d):
        seen.append(d)
        return index(d, option="steal_food") if d.kind == "raid" else 0

    st.rng = Dice([5])
    _combat(st, answer)
    raid = next(d for d in seen if d.kind == "raid")
    assert [o["option"] for o in raid.options] == [
        "steal_food",
        "steal_water",
        "destroy_shelter",
        "decline",
    ]
    assert st.tribes[1].food == 0 and st.tribes[0].food == food0 + 2
    assert all(m.state == RETURNED for m in raiders)


def test_raid_decline_and_shelter() -> None:
    """RULES.md 9, 17.40: declining still returns the raiders; destroy shelter takes a d6."""
    st = fresh(2)
    (m,) = put(st, 0, "r7c6")
    stock = (st.tribes[1].food, st.tribes[1].water, st.tribes[1].shelter)
    _combat(st, lambda d: index(d, option="decline") if d.kind == "raid" else 0)
    assert m.state == RETURNED and stock == (
        st.tribes[1].food,
        st.tribes[1].water,
        st.tribes[1].shelter,
    )
    st2 = fresh(2)
    put(st2, 0, "r7c6")
    st2.tribes[1].shelter = 9
    st2.rng = Dice([4])
    _combat(st2, lambda d: index(d, option="destroy_shelter") if d.kind == "raid" else 0)
    assert st2.tribes[1].shelter == 5


def test_owner_defends_and_stays() -> None:
    """RULES.md 8.3, 8.4: the owner gets +1 at home and, if it wins, stays to act; no raid."""
    st = fresh(2)
    (o,) = put(st, 1, "r7c6")
    (r,) = put(st, 0, "r7c6")
    st.rng = Dice([3, 3, 3, 3])
    _combat(st)
    assert o.state == PLACED and r.state == RETURNED and not events(st, "raid")


def test_several_attackers_fight_then_winner_raids() -> None:
    """RULES.md 17.38: attackers at an absent owner's village fight; the winner raids."""
    st = fresh(3)
    put(st, 0, "r4c1")
    put(st, 1, "r4c1")
    st.rng = Dice([6, 6, 1, 1, 3])
    _combat(st, lambda d: index(d, option="steal_water") if d.kind == "raid" else 0)
    assert events(st, "raid")[0]["seat"] == 0


def test_ruined_village_fight_has_no_home_bonus_and_no_raid() -> None:
    """RULES.md 17.37, 3.5: at a ruined village it is a normal fight."""
    st = fresh(2)
    put(st, 0, "r1c4")
    put(st, 1, "r1c4")
    st.rng = Dice([2, 2, 3, 3])
    _combat(st)
    assert events(st, "fight_totals")[0]["totals"][0]["total"] == 4 and not events(st, "raid")


def test_raid_rescue_prisoners() -> None:
    """RULES.md 9, 10.5, 17.43: rescue frees every captive of the raider's tribe there."""
    st = fresh(2)
    pris = st.own(0)[4:]
    for m in pris:
        m.state, m.captor = PRISONER, 1
    put(st, 0, "r7c6")
    _combat(st, lambda d: index(d, option="rescue") if d.kind == "raid" else 0)
    assert all(m.state == RETURNED and m.captor is None for m in pris)


def test_raid_idol_transport_and_procession() -> None:
    """RULES.md 9, 17.41: the idol leaves the shrine, moves 1-2 steps (more with Procession),
    never back into the victim's village, and lands on a claimed village's shrine."""
    st = fresh(2, villages=("r1c2", "r1c4"))
    idol = next(i for i in st.idols if i.pos is not None)
    idol.pos, idol.owner, idol.shrine = None, 1, "life"
    st.tribes[0].procession = 2
    put(st, 0, "r1c4", 2)
    steps = []

    def answer(d):
        if d.kind == "raid":
            return index(d, option="idol", shrine="life")
        if d.kind == "idol_step":
            assert all(o["position"] != "r1c4" for o in d.options)
            path = ["r2c4", "r2c3", "r2c2", "r1c2"]
            steps.append(d.options)
            return index(d, position=path[len(steps) - 1])
        return 0

    _combat(st, answer)
    assert len(steps) == 4 and steps[1][0] == {"position": None}  # may stop after one step
    assert idol.owner == 0 and idol.shrine == "life" and st.idols_of(1) == 0
    stolen = {"type": "idol_stolen", "idol": idol.id, "seat": 0, "victim": 1}
    assert all(stolen in st.events_since(seat, 0)[0] for seat in (0, 1))  # public (RULES.md 18)


def test_raid_steal_gear_random_unused_only() -> None:
    """RULES.md 9, 17.42: unused gear only (carried gear is safe, the Knife always counts)."""
    st = fresh(2)
    knife = give(st, 1, "TE01")
    put(st, 1, "r2c2", gear="CR01")
    give(st, 1, "CR13")  # single-use: not gear
    put(st, 0, "r7c6")
    _combat(st, lambda d: index(d, option="steal_gear") if d.kind == "raid" else 0)
    assert knife in st.tribes[0].hand
    stolen = events(st, "gear_stolen")[0]
    assert "card" not in stolen
    seen = st.events_since(0, 0)[0]
    assert next(e for e in seen if e["type"] == "gear_stolen")["card"]["card"] == "TE01"


def test_prisoner_upkeep_and_never_a_victim() -> None:
    """RULES.md 10.2, 17.44, 17.45, 11.4: upkeep from the next turn; the captor's own dies."""
    st = fresh(2)
    (p,) = st.own(1)[:1]
    p.state, p.captor, p.captured_this_turn = PRISONER, 0, True
    run(resources.consumption(st))
    assert events(st, "consumption")[0]["food"] == 6
    p.captured_this_turn = False
    st.tribes[0].food = 0
    victims = []

    def answer(d):
        if d.kind == "victim":
            victims.extend(o["member"] for o in d.options)
        return 0

    run(resources.consumption(st), answer)
    assert events(st, "consumption")[2]["food"] == 7
    assert p.id not in victims and p.state == PRISONER


def test_cannibalise_and_sacrifice() -> None:
    """RULES.md 10.3, 10.4, 17.46, 17.47, TE01: in the windows only; d6 food or a shrine dead."""
    st = fresh(2)
    a, b = st.own(1)[:2]
    for m in (a, b):
        m.state, m.captor = PRISONER, 0
    give(st, 0, "TE01")
    food = st.tribes[0].food
    st.rng = Dice([4])
    picks = iter(
        [
            lambda d: index(d, action="cannibalise", member=a.id),
            lambda d: index(d, action="sacrifice", member=b.id, shrine="death"),
        ]
    )

    def answer(d):
        if d.seat == 0:
            return next(picks, lambda d: 0)(d)
        return 0

    run(equipment.window(st, "start_of_turn"), answer)
    assert a.state == REMOVED and st.tribes[0].food == food + 4
    assert b.state == SHRINE and st.dead_on(0, "death") == 1 and st.dead_on(1, "death") == 0
    assert uid("TE01") in st.tribes[0].hand  # the Knife is gear and stays


def test_prisoners_count_towards_size_and_all_prisoners_eliminates() -> None:
    """RULES.md 10.1, 17.48, 13.1, 17.49: size includes prisoners; a tribe with only prisoners
    left is eliminated; its captor's elimination frees or removes prisoners."""
    st = fresh(3)
    for m in st.own(1):
        m.state, m.captor = PRISONER, 0
    assert st.tribe_size(1) == 6 and not st.own(1)
    (q,) = st.own(2)[:1]
    q.state, q.captor = PRISONER, 0
    check(st)
    assert st.tribes[1].eliminated and not st.tribes[0].eliminated
    for m in st.own(0):
        m.state = REMOVED
    with pytest.raises(GameOver) as over:
        check(st)
    assert over.value.reason == "last_tribe" and over.value.winners == [2]
    assert q.state == RETURNED and all(m.state == REMOVED for m in st.members if m.tribe == 1)


def test_window_after_active_members() -> None:
    """RULES.md 5: healed members from the window can be placed (Herbal Poultice, CR16)."""
    st = fresh(2)
    m = st.own(0)[0]
    m.state = "injured"
    give(st, 0, "CR16")
    run(
        equipment.window(st, "start_of_turn"),
        lambda d: index(d, action="play") if d.seat == 0 and len(d.options) > 1 else 0,
    )
    assert m.state == ACTIVE
