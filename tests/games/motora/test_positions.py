"""Motora positions: load(position()) continues exactly, JSON round trips, clones are independent,
broken positions are refused by field, the short form, and determinize for search bots."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from arena.games.base import PositionError
from arena.games.motora import GAME
from arena.games.motora.model import INJURED, PLACED
from arena.games.motora.state import MotoraState
from tests.games.motora.helpers import index, short

GAMES = [(2, 1), (3, 2), (4, 3), (6, 4)]  # (players, seed)


def random_game(players: int, seed: int, on_decision: Callable[[MotoraState, int], None]) -> None:
    """Play a random game, calling ``on_decision(state, n)`` before the n-th answer."""
    st = GAME.new(players, seed)
    rng = random.Random(seed)
    n = 0
    while st.pending():
        on_decision(st, n)
        d = st.pending()[0]
        st.act(d.seat, rng.randrange(len(d.options)))
        n += 1


def same_future(a: MotoraState, b: MotoraState, seed: int, steps: int) -> None:
    """Both states answer the same ``steps`` random answers: same options, events and outcome."""
    start_a, start_b = a.event_count(), b.event_count()
    rng = random.Random(seed)
    for _ in range(steps):
        if not a.pending():
            break
        da, db = a.pending()[0], b.pending()[0]
        assert (da.seat, da.kind, da.options) == (db.seat, db.kind, db.options)
        choice = rng.randrange(len(da.options))
        a.act(da.seat, choice)
        b.act(db.seat, choice)
    assert a.event_log()[start_a:] == b.event_log()[start_b:]
    assert a.position() == b.position()
    if not a.pending():
        assert not b.pending() and a.outcome() == b.outcome()


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_load_continues_identically(players: int, seed: int) -> None:
    """At every decision the position survives JSON, and loading it continues the same game."""

    def check(st: MotoraState, n: int) -> None:
        position = st.position()
        text = json.dumps(position)
        assert json.loads(text) == position
        if n % 9:
            return
        loaded = GAME.load(json.loads(text))
        assert loaded.position() == position
        same_future(st.clone(), loaded, n, 40)

    random_game(players, seed, check)


def test_loaded_game_reaches_the_same_outcome() -> None:
    """A position loaded mid-game and played to the end with the same answers ends the same."""
    original = GAME.new(3, 7)
    rng = random.Random(7)
    for _ in range(150):
        d = original.pending()[0]
        original.act(d.seat, rng.randrange(len(d.options)))
    same_future(original, GAME.load(original.position()), 8, 100_000)
    assert not original.pending()


def test_clone_is_independent_and_cheap() -> None:
    """A clone is a position copy: answering it leaves the original untouched, and its log is
    empty (its cost does not grow with the game)."""

    def check(st: MotoraState, n: int) -> None:
        if n % 13:
            return
        before = st.position()
        twin = st.clone()
        assert twin.event_count() == 0 and twin.position() == before
        d = twin.pending()[0]
        twin.act(d.seat, len(d.options) - 1)
        assert st.position() == before

    random_game(3, 5, check)


def mid_game() -> dict[str, Any]:
    """A position in a fight: members placed, cards dealt, a stack several frames deep."""
    st = GAME.load(
        short(
            players=2,
            at="combat",
            placed=[{"seat": 0, "position": "r3c3"}, {"seat": 1, "position": "r3c3"}],
            tribes=[{"hand": ["Poisoned Dart", "Warrior Blade"]}, {}],
        )
    )
    assert st.pending()[0].kind == "reroll"
    return json.loads(json.dumps(st.position()))


def _dup_card(p: dict[str, Any]) -> None:
    p["decks"]["temple"].append(p["tribes"][0]["hand"][0])


def _lose_card(p: dict[str, Any]) -> None:
    p["decks"]["craftsmen"].pop()


def _event_in_hand(p: dict[str, Any]) -> None:
    p["tribes"][1]["hand"].append(p["decks"]["event"].pop())


def _nine_members(p: dict[str, Any]) -> None:
    p["members"] += [dict(p["members"][-1], state="active", position=None)] * 3


BROKEN: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("tribes[0].hand[0]", _dup_card),
    ("decks", _lose_card),
    ("tribes[1].hand[0]", _event_in_hand),
    ("members", _nine_members),
    ("first_player", lambda p: p.update(first_player=2)),
    ("members[0].tribe", lambda p: p["members"][0].update(tribe=5)),
    ("members[0].position", lambda p: p["members"][0].update(position=None)),
    ("members[1].gear", lambda p: p["members"][1].update(gear=40)),
    ("tribes[0].food", lambda p: p["tribes"][0].update(food=-1)),
    ("tribes[1].village", lambda p: p["tribes"][1].update(village="r3c3")),
    ("tiles", lambda p: p["tiles"].update(r3c3=p["tiles"]["r3c4"])),
    ("idols[0].shrine", lambda p: p["idols"][0].update(position=None, owner=0)),
    ("phase", lambda p: p.update(phase="lunch")),
    ("rng", lambda p: p.update(rng=[1, 2, 3])),
    ("stack", lambda p: p["stack"][1].update(proc="window")),
    ("pending", lambda p: p["pending"].update(kind="raid")),
    ("colour", lambda p: p.update(colour="red")),
]


@pytest.mark.parametrize(("field", "damage"), BROKEN, ids=[f for f, _ in BROKEN])
def test_broken_positions_are_refused_by_field(
    field: str, damage: Callable[[dict[str, Any]], None]
) -> None:
    position = mid_game()
    damage(position)
    with pytest.raises(PositionError) as err:
        GAME.load(position)
    assert str(err.value).startswith(field), str(err.value)


def test_short_form_errors_name_the_field() -> None:
    for bad, field in [
        ({"tribes": [{"hand": ["Golden Banana"]}, {}]}, "tribes[0].hand[0]"),
        ({"placed": [{"seat": 4, "position": "r3c3"}]}, "placed[0].seat"),
        ({"placed": [{"seat": 0, "position": "r4c4"}]}, "placed[0].position"),
        ({"villages": ["r1c2", "r3c3"]}, "villages[1]"),
        ({"at": "over"}, "at"),
        ({"tiles": {"r3c3": "T99"}}, "tiles.r3c3"),
    ]:
        with pytest.raises(PositionError) as err:
            GAME.load(short(players=2, **bad))
        assert str(err.value).startswith(field), str(err.value)


def test_short_form_defaults() -> None:
    """Six active members and the village's stock per tribe, idols on the unclaimed villages."""
    st = GAME.load(short(players=3, events=["EV26"]))
    assert st.turn == 1 and st.first == 0 and st.phase == "start_of_turn"
    assert [len(st.own(s)) for s in range(3)] == [6, 6, 6]
    start = st.tile(st.tribes[1].village).start
    assert (st.tribes[1].food, st.tribes[1].water, st.tribes[1].shelter) == (
        start["food"],
        start["water"],
        start["shelter"],
    )
    assert [i.pos for i in st.idols] == st.ruined == ["r1c4", "r2c7", "r4c7", "r6c1", "r7c4"]
    assert st.decks["event"][0] == 29  # Calm Season on top
    assert GAME.expand(short(players=3, events=["EV26"]))["decks"]["event"][0] == 29


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_determinize_matches_the_seat_view(players: int, seed: int) -> None:
    """The sample asks the same decision with the same options, and the seat's view of it is
    the real view, at many decisions of random games."""
    sent: list[list[dict[str, Any]]] = [[] for _ in range(players)]
    cursors = [0] * players

    def check(st: MotoraState, n: int) -> None:
        d = st.pending()[0]
        new, cursors[d.seat] = st.events_since(d.seat, cursors[d.seat])
        sent[d.seat] += new
        if n % 4:
            return
        view = st.view(d.seat)
        sample = GAME.determinize(players, {}, d.seat, view, sent[d.seat], random.Random(n))
        (asked,) = sample.pending()
        assert (asked.seat, asked.kind, asked.options) == (d.seat, d.kind, d.options)
        assert sample.view(d.seat) == view

    random_game(players, seed, check)


def test_determinize_deals_unseen_cards_at_random() -> None:
    """Other tribes' face-down cards differ between samples; the seat's own hand never does."""
    st = GAME.load(
        short(players=2, tribes=[{"hand": ["CR13"]}, {"hand": ["TE02", "TE13", "CR05"]}])
    )
    view = st.view(0)
    hands = set()
    for k in range(12):
        sample = GAME.determinize(2, {}, 0, view, [], random.Random(k))
        assert sample.tribes[0].hand == st.tribes[0].hand
        hands.add(tuple(sorted(sample.tribes[1].hand)))
    assert len(hands) > 1


# ---------------------------------------------------------------------------- scenarios
def test_scenario_short_tribe_places_what_it_has() -> None:
    """RULES.md 6.1, 17.11 from a short position: one ACTIVE member is placed in stage 1, then
    the tribe is skipped."""
    st = GAME.load(
        short(
            players=2,
            at="placement_stage_1",
            events=["EV26"],
            tribes=[{}, {"members": {"active": 1, INJURED: 5}}],
        )
    )
    kinds = []
    while st.phase == "placement_stage_1":
        d = st.pending()[0]
        kinds.append(d.seat)
        st.act(d.seat, 0)
    assert kinds == [0, 1, 0]
    assert [m.stage for m in st.own(1, (PLACED,))] == [1]


def test_scenario_placement_costs_from_short_position() -> None:
    """RULES.md 6.2, 17.12, 17.16: 1 shelter per step beyond 5, never more than the tribe has."""
    st = GAME.load(short(players=2, at="placement_stage_1", tribes=[{"shelter": 2}, {}]))
    d = st.pending()[0]
    assert (d.seat, d.kind) == (0, "place")
    spots = {o["position"]: o for o in d.options}
    assert spots["r1c2"]["cost"] == 0
    assert spots["r3c6"]["distance"] == 6 and spots["r3c6"]["cost"] == 1
    assert spots["r4c6"]["cost"] == 2
    assert "r4c7" not in spots  # distance 8 costs 3 > 2 shelter


def test_scenario_fight_from_short_position() -> None:
    """RULES.md 8.3, 7.1 from a short position: a fight at r3c3 offers the dart held, and the
    combat resolves to one winner on the site."""
    st = GAME.load(
        short(
            players=2,
            at="combat",
            placed=[{"seat": 0, "position": "r3c3"}, {"seat": 1, "position": "r3c3", "count": 2}],
            tribes=[{"hand": ["Poisoned Dart"]}, {}],
        )
    )
    d = st.pending()[0]
    assert d.kind == "reroll" and d.seat == 0
    st.act(0, index(d, action="dart", target=1))
    while st.phase == "combat":
        st.act(st.pending()[0].seat, 0)
    left = {m.tribe for m in st.members if m.state == PLACED and m.pos == "r3c3"}
    assert len(left) == 1
