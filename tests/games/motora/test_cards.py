"""Single-use cards in their windows and Poisoned Darts (RULES.md 5, 15; rulings 17.67-17.71)."""

from __future__ import annotations

import re
from pathlib import Path

from arena.games.motora import combat, equipment, resources
from arena.games.motora.cards import CARDS
from arena.games.motora.model import ACTIVE, INJURED, PLACED, SERIOUS
from arena.games.motora.views import MEMBER_FIELDS, TRIBE_FIELDS
from tests.games.motora.helpers import Dice, events, fresh, give, index, put, run

HERE = Path(__file__).parent
FACE_DOWN = TRIBE_FIELDS.index("face_down_craftsmen")
RULES = Path(combat.__file__).with_name("RULES.md")  # the packaged rules


def _play(st, seat: int, window: str, **fields):
    """Run a window in which ``seat`` plays the matching option once; everyone else passes."""
    offered = []

    def answer(d):
        if d.seat == seat and not offered:
            offered.append(d.options)
            return index(d, action="play", **fields)
        return 0

    run(equipment.window(st, window), answer)
    return offered[0]


def test_played_single_use_goes_to_bottom_and_is_public() -> None:
    """RULES.md 5, 15, 17.67: a played card is public and goes to the bottom of its deck."""
    st = fresh(2)
    card = give(st, 0, "CR15")
    shelter = st.tribes[0].shelter
    _play(st, 0, "start_of_turn", card=card)
    assert st.tribes[0].shelter == shelter + 3 and st.decks["craftsmen"][-1] == card
    played = events(st, "card_played")[0]
    assert played["card"]["card"] == "CR15"
    assert any(e["type"] == "card_played" for e in st.events_since(1, 0)[0])


def test_copies_of_a_single_use_card_make_one_option() -> None:
    """README (window options: one per playable card design and target): two Blessings of
    Renewal (TE05) with one destroyed tile are one option, not two."""
    st = fresh(2)
    st.destroyed["r3c4"] = True
    first, second = give(st, 0, "TE05"), give(st, 0, "TE05")
    offered = equipment.card_options(st, 0, "start_of_turn")
    assert len(offered) == 1 and offered[0]["card"] in (first, second)
    assert offered[0]["target"] == "r3c4"


def test_before_consumption_cards() -> None:
    """CR13, CR14, CR15; RULES.md 11.4: food, water and shelter cards in the window before it."""
    st = fresh(2)
    meat, jar, timber = give(st, 0, "CR13"), give(st, 0, "CR14"), give(st, 0, "CR15")
    food, water, shelter = st.tribes[0].food, st.tribes[0].water, st.tribes[0].shelter
    for card in (meat, jar, timber):
        _play(st, 0, "before_consumption", card=card)
    t = st.tribes[0]
    assert (t.food, t.water, t.shelter) == (food + 4, water + 4, shelter + 3)
    st2 = fresh(2)
    give(st2, 0, "CR13")
    offered = [o for o in equipment.card_options(st2, 0, "start_of_turn")]
    assert offered == []  # Smoked Meat is not a start-of-turn card


def test_heal_cards() -> None:
    """CR16, TE11: one member (chosen by section) or all of them back to Active."""
    st = fresh(2)
    a, b, c = st.own(0)[:3]
    a.state, b.state, c.state = INJURED, SERIOUS, SERIOUS
    poultice = give(st, 0, "CR16")
    options = _play(st, 0, "start_of_turn", card=poultice, target=SERIOUS)
    assert {o.get("target") for o in options if o["action"] == "play"} == {INJURED, SERIOUS}
    assert b.state == ACTIVE and c.state == SERIOUS and a.state == INJURED
    _play(st, 0, "start_of_turn", card=give(st, 0, "TE11"))
    assert a.state == ACTIVE and c.state == ACTIVE


def test_hunting_horn_play_schedules_hunt() -> None:
    """CR17; RULES.md 7.10: played at the start of the turn, resolved after the event step."""
    st = fresh(2)
    horn = give(st, 0, "CR17")
    _play(st, 0, "start_of_turn", card=horn)
    assert st.tribes[0].hunts == [horn]


def test_poisoned_dart() -> None:
    """TE02; RULES.md 8.3, 17.30: -2 to an opponent (or the NPE) for the rest of the fight."""
    st = fresh(2)
    put(st, 0, "r3c3")
    put(st, 1, "r3c3")
    dart = give(st, 1, "TE02")
    played = []

    def answer(d):
        if d.kind == "reroll" and d.seat == 1 and not played:
            played.append(d.options)
            return index(d, action="dart", target=0)
        return 0

    st.rng = Dice([4, 4, 3, 3, 2, 2, 3, 3])  # 8-2=6 vs 6 tie; then 4-2=2 vs 6
    run(combat.combat_phase(st), answer)
    totals = events(st, "fight_totals")
    assert totals[0]["totals"][0]["total"] == 6 and totals[1]["totals"][0]["total"] == 2
    assert dart in st.decks["temple"] and dart not in st.tribes[1].hand
    st2 = fresh(2)
    put(st2, 0, "r3c3", stage=1)
    give(st2, 0, "TE02")
    from arena.games.motora import events as ev

    seen = []

    def answer2(d):
        if d.kind == "reroll" and not seen:
            seen.append(d.options)
            return index(d, action="dart", target="npe")
        return 0

    st2.rng = Dice([3, 3, 3, 3])
    run(ev.npe_event(st2, {"targets": "random_placed_member", "npe_modifier": 0}, "x"), answer2)
    assert events(st2, "fight_totals")[0]["totals"][1] == {"side": "npe", "total": 4}


def test_poisoned_well_and_curse_of_desolation() -> None:
    """TE03, TE04: a chosen water tile is restricted; a chosen tile without idol destroyed."""
    st = fresh(2)
    well = give(st, 0, "TE03")
    water = st.pos_of_tile["T12"]
    options = _play(st, 0, "start_of_turn", card=well, target=water)
    assert len([o for o in options if o.get("card") == well]) == 6
    assert st.restricted[water]
    curse = give(st, 0, "TE04")
    st.idols[0].pos = "r2c2"
    options = _play(st, 0, "start_of_turn", card=curse, target="r3c3")
    targets = {o["target"] for o in options if o.get("card") == curse}
    assert "r2c2" not in targets and "r1c2" not in targets and len(targets) == 31
    assert st.destroyed["r3c3"]


def test_blessing_of_renewal_restores_any_destroyed_tile() -> None:
    """TE05, 17.69: a destroyed tile (even by eruption) is restored and may be destroyed again."""
    st = fresh(2)
    st.destroyed["r3c4"] = True
    _play(st, 0, "start_of_turn", card=give(st, 0, "TE05"), target="r3c4")
    assert not st.destroyed["r3c4"]
    assert equipment.card_options(st, 0, "start_of_turn") == []


def test_blessings_and_curses() -> None:
    """TE06-TE10, TE14, TE15, 17.71: blessings help their owner, curses target another tribe."""
    st = fresh(3)
    cards = {c: give(st, 0, c) for c in ("TE06", "TE07", "TE08", "TE09", "TE10", "TE14", "TE15")}
    curse_targets = [
        o["target"]
        for o in equipment.card_options(st, 0, "start_of_turn")
        if o["card"] == cards["TE08"]
    ]
    assert curse_targets == [1, 2]
    _play(st, 0, "start_of_turn", card=cards["TE06"])
    _play(st, 0, "start_of_turn", card=cards["TE07"])
    _play(st, 0, "start_of_turn", card=cards["TE08"], target=2)
    _play(st, 0, "start_of_turn", card=cards["TE09"], target=1)
    _play(st, 0, "start_of_turn", card=cards["TE10"], target=1)
    _play(st, 0, "start_of_turn", card=cards["TE14"])
    _play(st, 0, "start_of_turn", card=cards["TE15"])
    t0, t1, t2 = st.tribes
    assert (t0.plenty, t0.combat_mod, t2.combat_mod, t0.ward, t0.procession) == (1, 1, -1, True, 2)
    assert t1.need_mod == {"food": 2, "water": 2} and t0.need_mod == {}
    run(resources.consumption(st))
    needs = {e["seat"]: e for e in events(st, "consumption")}
    assert (needs[1]["food"], needs[1]["water"]) == (8, 8) and needs[0]["food"] == 6


def test_fertility_rite() -> None:
    """TE12: a new Active member, exempt from consumption this turn, never above 8."""
    st = fresh(2)
    _play(st, 0, "start_of_turn", card=give(st, 0, "TE12"))
    new = st.own(0)[-1]
    assert len(st.own(0)) == 7 and new.state == ACTIVE and new.new_this_turn
    st.new_member(0, ACTIVE)
    give(st, 0, "TE12")
    assert equipment.card_options(st, 0, "start_of_turn") == []


def test_window_closes_after_a_round_of_passes() -> None:
    """RULES.md 5, 17.46: every tribe is asked in turn order until a full round of passes."""
    st = fresh(3)
    st.first = 2
    asked = []

    def answer(d):
        asked.append(d.seat)
        return 0

    run(equipment.window(st, "start_of_turn"), answer)
    assert asked == [2, 0, 1]


def test_gear_not_playable_and_carried_gear_hidden_from_others() -> None:
    """RULES.md 15, 18: gear is never played in a window; hand identities are private."""
    st = fresh(2)
    blade = give(st, 0, "CR01")
    assert equipment.card_options(st, 0, "start_of_turn") == []
    assert st.view(0)["hand"][0]["card"] == "CR01"
    assert st.view(1)["hand"] == [] and st.view(1)["tribes"][0][FACE_DOWN] == 1
    (m,) = put(st, 0, "r2c2")
    m.gear = blade
    seen = st.view(1)
    carried = seen["members"][m.id][MEMBER_FIELDS.index("gear")]
    assert CARDS[carried].id == "CR01" and seen["tribes"][0][FACE_DOWN] == 0
    assert m.state == PLACED


def test_every_card_and_ruling_is_tested() -> None:
    """Every card design of cards.json and every numbered ruling of RULES.md 17 is cited here."""
    text = "".join(p.read_text() for p in sorted(HERE.glob("test_*.py")))
    missing = sorted({c.id for c in CARDS if c.id not in text})
    assert not missing, missing
    rulings = re.findall(r"^(17\.\d+) ", RULES.read_text(), flags=re.M)
    assert len(rulings) == 73
    cited = set(re.findall(r"17\.\d+", text))
    assert not [r for r in rulings if r not in cited], [r for r in rulings if r not in cited]
