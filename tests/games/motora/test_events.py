"""Events EV01-EV26 and the event step (RULES.md 7; rulings 17.19-17.27, 17.72, 17.73)."""

from __future__ import annotations

import pytest

from arena.games.motora import events
from arena.games.motora.board import BOARD
from arena.games.motora.model import NEXT_INJURED, NEXT_SERIOUS, PLACED, REMOVED, RETURNED
from arena.games.motora.state import GameOver
from tests.games.motora.helpers import Dice, fresh, give, index, put, run, uid
from tests.games.motora.helpers import events as logged


def _resolve(st, card_id: str, answer=None) -> None:
    run(events.resolve(st, uid(card_id)), answer or (lambda d: 0))


def _pos(st, tile_id: str) -> str:
    return st.pos_of_tile[tile_id]


@pytest.mark.parametrize(
    ("card", "group"),
    [
        ("EV01", "water"),
        ("EV02", "plant"),
        ("EV03", "wood"),
        ("EV04", "stone"),
        ("EV05", "meat"),
        ("EV07", "choice"),
        ("EV08", "hut"),
    ],
)
def test_destroy_random_tile_cards(card: str, group: str) -> None:
    """EV01-05, EV07, EV08; RULES.md 7.2, 7.4, 17.19, 17.21: d6 on the group, reroll destroyed."""
    st = fresh(2)
    first = _pos(st, BOARD.groups[group][6])
    second = _pos(st, BOARD.groups[group][1])
    st.destroyed[first] = True
    members = put(st, 0, second, 2)
    st.rng = Dice([6, 1])
    _resolve(st, card)
    assert st.destroyed[second]
    assert all(m.state == RETURNED and m.pos is None for m in members)
    assert [e["roll"] for e in logged(st, "die")] == [6, 1]


def test_destroy_fizzles_on_idol_without_reroll() -> None:
    """RULES.md 7.4, 17.20: a tile holding an idol is not destroyed and there is no reroll."""
    st = fresh(2)
    pos = _pos(st, "T11")
    st.idols[0].pos = pos
    st.rng = Dice([1, 2])
    _resolve(st, "EV01")
    assert not st.destroyed[pos]
    assert len(logged(st, "die")) == 1 and logged(st, "destruction_prevented")


def test_nothing_eligible_does_nothing() -> None:
    """RULES.md 7.2, 17.19: with every tile of the group destroyed no die is rolled."""
    st = fresh(2)
    for t in BOARD.group_tiles["hut"]:
        st.destroyed[_pos(st, t)] = True
    _resolve(st, "EV08")
    assert not logged(st, "die") and logged(st, "no_eligible_tile")


def test_destroyed_tile_still_usable_for_placement_and_paths() -> None:
    """RULES.md 7.4, 17.14: destroyed tiles can be placed on and crossed, but yield nothing."""
    from arena.games.motora.placement import legal_positions
    from arena.games.motora.resources import member_options

    st = fresh(2)
    pos = "r2c2"
    st.destroyed[pos] = True
    assert pos in {o["position"] for o in legal_positions(st, 0, None)}
    (m,) = put(st, 0, pos)
    assert [o["action"] for o in member_options(st, 0, m, {}, [])] == ["rest"]


def test_eruption_follows_sequence_skipping_idols_and_destroyed() -> None:
    """EV06; RULES.md 7.5: the next 2 positions of the sequence without idol or destruction."""
    st = fresh(2)
    seq = BOARD.eruption
    st.destroyed[seq[0]] = True
    st.idols[0].pos = seq[1]
    (m,) = put(st, 1, seq[3])
    _resolve(st, "EV06")
    assert st.destroyed[seq[2]] and st.destroyed[seq[3]] and not st.destroyed[seq[1]]
    assert not st.destroyed[seq[4]] and m.state == RETURNED


@pytest.mark.parametrize(
    ("card", "groups"), [("EV09", ("water", "plant")), ("EV11", ("meat", "wood"))]
)
def test_restrict_random_tiles(card: str, groups: tuple[str, str]) -> None:
    """EV09, EV11; RULES.md 7.3, 17.13, 17.20: restricted this turn, members there returned."""
    st = fresh(2)
    a = _pos(st, BOARD.groups[groups[0]][2])
    b = _pos(st, BOARD.groups[groups[1]][5])
    st.idols[0].pos = a  # idols do not protect against restriction
    (m,) = put(st, 0, a)
    st.rng = Dice([2, 5])
    _resolve(st, card)
    assert st.restricted[a] and st.restricted[b] and m.state == RETURNED
    assert not st.destroyed[a]


def test_restriction_rerolls_already_restricted() -> None:
    """RULES.md 7.2, 17.19: for a restriction an already restricted tile is rolled again."""
    st = fresh(2)
    a, b = _pos(st, BOARD.groups["water"][1]), _pos(st, BOARD.groups["water"][3])
    st.restricted[a] = True
    st.rng = Dice([1, 3, 4])
    _resolve(st, "EV09")
    assert st.restricted[b]


def test_sacred_ceremony_restricts_every_temple() -> None:
    """EV10: both temples restricted; a destroyed temple is left alone."""
    st = fresh(2)
    t1, t2 = _pos(st, "T31"), _pos(st, "T32")
    st.destroyed[t2] = True
    _resolve(st, "EV10")
    assert st.restricted[t1] and not st.restricted[t2]


def test_resource_events() -> None:
    """EV12-EV15; RULES.md 7.6, 17.24, 17.26: per-tribe d6 in turn order, never below zero."""
    st = fresh(3)
    st.first = 1
    st.tribes[0].food = 2
    st.rng = Dice([4, 5, 6])
    before = [t.food for t in st.tribes]
    _resolve(st, "EV12")
    assert [t.food for t in st.tribes] == [0, before[1] - 4, before[2] - 5]
    assert [e["seat"] for e in logged(st, "die")] == [1, 2, 0]
    _resolve(st, "EV13")
    _resolve(st, "EV14")
    assert st.tribes[0].food == 3
    st.tribes[1].shelter = 1
    _resolve(st, "EV15")
    assert st.tribes[1].shelter == 0 and all(len(st.own(s)) == 6 for s in range(3))


def test_each_tribe_effects_skip_eliminated() -> None:
    """RULES.md 7.1, 17.26: eliminated tribes take no part."""
    st = fresh(3)
    st.tribes[2].eliminated = True
    water = st.tribes[2].water
    _resolve(st, "EV13")
    assert st.tribes[2].water == water


@pytest.mark.parametrize(
    ("card", "resource", "amount"),
    [("EV16", "water", 2), ("EV17", "food", 2), ("EV18", "shelter", 1)],
)
def test_consumption_events_recorded(card: str, resource: str, amount: int) -> None:
    """EV16-EV18; RULES.md 7.7: added to this turn's needs in the consumption step."""
    from arena.games.motora.resources import consumption

    st = fresh(2)
    _resolve(st, card)
    assert st.need_mod == {resource: amount}
    run(consumption(st))
    need = logged(st, "consumption")[0]
    assert need[resource] == (1 if resource == "shelter" else 6) + amount


@pytest.mark.parametrize(
    ("card", "state"), [("EV19", NEXT_SERIOUS), ("EV20", NEXT_INJURED), ("EV21", RETURNED)]
)
def test_random_placed_member(card: str, state: str) -> None:
    """EV19-EV21; RULES.md 7.8, 17.22: d6 1-3 first stage-1 member, 4-6 second; one: no roll."""
    st = fresh(3)
    a, b = put(st, 0, "r2c2", stage=1)[0], put(st, 0, "r3c2", stage=1)[0]
    put(st, 0, "r2c3", stage=2)
    (c,) = put(st, 1, "r6c6", stage=1)
    st.rng = Dice([5])
    _resolve(st, card)
    assert b.state == state and a.state == PLACED and c.state == state
    assert len(logged(st, "die")) == 1  # seat 1 had one candidate, seat 2 none


def test_jaguar_win_and_loss() -> None:
    """EV22; RULES.md 7.9, 17.27: win gains 2 food; a loss hurts only the target; 9+ kills."""
    st = fresh(2)
    st.first = 0
    (t0,) = put(st, 0, "r2c2", stage=1)
    (other,) = put(st, 0, "r2c2", stage=2)
    (t1,) = put(st, 1, "r6c6", stage=1)
    food = st.tribes[0].food
    # seat 0: dice 6,6 vs jaguar 1,1 (+0) -> win; seat 1: 1,1 vs 6,6 -> diff 10 -> killed
    st.rng = Dice([6, 6, 1, 1, 1, 1, 6, 6])
    _resolve(st, "EV22")
    assert st.tribes[0].food == food + 2 and t0.state == PLACED and other.state == PLACED
    assert t1.state == REMOVED


def test_npe_uses_rerolls_and_modifiers() -> None:
    """RULES.md 7.9: rerolls = members - 1 (+clubs); home bonus and Death bonus apply (17.66)."""
    st = fresh(2)
    (t,) = put(st, 0, "r1c2", stage=1)
    put(st, 0, "r1c2", stage=2, gear="CR02")
    st.idols[0].owner, st.idols[0].shrine, st.idols[0].pos = 0, "death", None
    seen = []

    def answer(d):
        seen.append(d)
        if d.kind == "reroll" and any(o["action"] == "reroll" for o in d.options):
            return index(d, action="reroll", die=0)
        return 0

    # dice 1,1 vs NPE 4,1; two rerolls of die 0 -> 3 then 2; total 2+1 +1 home +1 death = 5 = 5 tie
    st.rng = Dice([1, 1, 4, 1, 3, 2, 6, 6, 1, 1])
    run(
        events.npe_event(
            st,
            {
                "targets": "random_placed_member",
                "npe_modifier": 0,
                "on_player_win": {"gain": {"food": 2}},
            },
            "Jaguar",
        ),
        answer,
    )
    totals = logged(st, "fight_totals")
    assert totals[0]["totals"] == [{"side": 0, "total": 5}, {"side": "npe", "total": 5}]
    assert logged(st, "fight_tie") and t.state == PLACED
    assert sum(1 for d in seen if len(d.options) > 1) == 2  # used rerolls stay used after a tie


def test_sea_raiders_extra_water_loss() -> None:
    """EV23: NPE +1; if it wins, the result and a separate d6 of water lost."""
    st = fresh(2)
    (t,) = put(st, 0, "r2c2", stage=1)
    water = st.tribes[0].water
    st.rng = Dice([2, 2, 2, 2, 3])  # 4 vs 4+1 -> lose by 1; water -3
    _resolve(st, "EV23")
    assert t.state == RETURNED and st.tribes[0].water == water - 3


def test_crocodiles_order_and_owner_choice() -> None:
    """EV24; RULES.md 7.9, 17.72: water tiles in board order, tribes in turn order, owner picks."""
    st = fresh(2)
    w = sorted((_pos(st, t) for t in BOARD.group_tiles["water"]), key=BOARD.order.__getitem__)
    a = put(st, 0, w[1], 2)
    put(st, 1, w[1])
    put(st, 1, w[0])
    st.destroyed[w[2]] = True
    put(st, 0, w[2])
    asked = []

    def answer(d):
        asked.append(d.kind)
        if d.kind == "sufferer":
            return index(d, member=a[1].id)
        return 0

    st.rng = Dice([1, 1, 6, 6, 1, 2, 3, 3, 6, 6, 1, 1])
    _resolve(st, "EV24", answer)
    fights = [(e["seat"], e["site"]) for e in logged(st, "npe_fight")]
    assert fights == [(1, w[0]), (0, w[1]), (1, w[1])]
    assert a[1].state == NEXT_INJURED
    assert a[0].state == PLACED and "sufferer" in asked


def test_cursed_season_chains_and_calm() -> None:
    """EV25, EV26; RULES.md 7.1.4, 17.23: a Cursed Season draws another event; calm does nothing."""
    st = fresh(2)
    deck = st.decks["event"]
    first = [u for u in deck if st_id(u) == "EV25"]
    calm = [u for u in deck if st_id(u) == "EV26"]
    for u in first + calm:
        deck.remove(u)
    deck[:0] = [first[0], first[1], calm[0]]
    run(events.event_step(st))
    assert [e["card"]["card"] for e in logged(st, "event_revealed")] == ["EV25", "EV25", "EV26"]
    assert len(st.discard) == 3


def st_id(u: int) -> str:
    from arena.games.motora.cards import CARDS

    return CARDS[u].id


def test_appease_cancels_and_cursed_draws_nothing() -> None:
    """TE13; RULES.md 7.1: Appease the Gods discards the event; a cancelled Cursed Season stops."""
    st = fresh(2)
    card = give(st, 1, "TE13")
    deck = st.decks["event"]
    cursed = next(u for u in deck if st_id(u) == "EV25")
    deck.remove(cursed)
    deck.insert(0, cursed)

    def answer(d):
        return index(d, play=True) if d.kind == "appease" and d.seat == 1 else 0

    run(events.event_step(st), answer)
    assert len(logged(st, "event_revealed")) == 1 and logged(st, "event_cancelled")
    assert card not in st.tribes[1].hand and st.decks["temple"][-1] == card


def test_empty_event_deck_is_wrath() -> None:
    """RULES.md 7.1.5, 13.4, 17.25, 17.65: most idols, then most living members, else a draw."""
    st = fresh(3)
    st.decks["event"].clear()
    st.idols[0].pos, st.idols[0].owner, st.idols[0].shrine = None, 2, "life"
    with pytest.raises(GameOver) as over:
        run(events.event_step(st))
    assert over.value.reason == "wrath_of_the_gods" and over.value.winners == [2]
    st.idols[0].owner = None
    st.own(1)[0].state = REMOVED
    with pytest.raises(GameOver) as over:
        run(events.event_step(st))
    assert over.value.winners == [0, 2]


def test_wrath_off_reshuffles_discard() -> None:
    """RULES.md 13.4: with wrath_of_the_gods off the discard pile becomes the deck."""
    st = fresh(2, wrath_of_the_gods=False, turn_limit=50)
    st.discard = list(st.decks["event"])
    st.decks["event"].clear()
    run(events.event_step(st))
    assert logged(st, "event_deck_reshuffled")


def test_hunting_horn_hunt_after_event_step() -> None:
    """CR17; RULES.md 7.10, 17.73: the hunt picks a stage-1 member and fights; win gains 5 food."""
    st = fresh(2)
    horn = give(st, 0, "CR17")
    st.tribes[0].hand.remove(horn)
    st.tribes[0].hunts.append(horn)
    (m,) = put(st, 0, "r2c2", stage=1)
    food = st.tribes[0].food
    st.rng = Dice([6, 6, 1, 1])
    run(events.card_hunts(st))
    assert st.tribes[0].food == food + 5 and m.state == PLACED
    st2 = fresh(2)
    st2.tribes[0].hunts.append(horn)
    run(events.card_hunts(st2))  # no stage-1 member: nothing happens
    assert not logged(st2, "npe_fight")
