"""Positions (README "Positions"): load(position()) continues exactly, bad positions are refused
with the field named, clones are independent, and determinize samples what the seat cannot see."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from arena.games.base import PositionError
from arena.games.mottainai import GAME
from arena.games.mottainai.state import MottainaiState

from .helpers import answer, kinds_until, names, start

CONFIGS = [(2, {}), (3, {}), (4, {"teams": True}), (5, {})]


def _answers(players: int, seed: int, options: dict[str, Any]) -> list[int]:
    """A random game's answers, in order."""
    state = GAME.new(players, seed, options)
    rng = random.Random(seed)
    out = []
    while pending := state.pending():
        out.append(rng.randrange(len(pending[0].options)))
        state.act(pending[0].seat, out[-1])
    return out


def _play(state: MottainaiState, answers: list[int]) -> None:
    for choice in answers:
        state.act(state.pending()[0].seat, choice)


@pytest.mark.parametrize(("players", "options"), CONFIGS)
def test_loaded_position_continues_identically(players: int, options: dict) -> None:
    """At every decision the position round-trips through JSON and loads to the same decision;
    every tenth one, played on with the same answers, gives the same events and outcome."""
    for seed in (1, 2)[: 3 - players // 2]:  # one game at 4-5 players, long enough
        answers = _answers(players, seed, options)
        final = GAME.new(players, seed, options)
        _play(final, answers)
        state = GAME.new(players, seed, options)
        for step, choice in enumerate(answers):
            position = state.position()
            text = json.dumps(position)
            loaded = GAME.load(json.loads(text))
            assert loaded.position() == position
            assert loaded.pending() == state.pending()
            seat = state.pending()[0].seat
            assert loaded.view(seat) == state.view(seat)
            if step % 10 == 0:
                _play(loaded, answers[step:])
                events = final.event_log()[state.event_count() :]
                assert loaded.event_log() == events, step
                assert loaded.outcome() == final.outcome()
            state.act(seat, choice)
        over = GAME.load(json.loads(json.dumps(state.position())))
        assert not over.pending() and over.outcome() == final.outcome()


def test_clone_is_independent_and_continues_identically() -> None:
    answers = _answers(3, 5, {})
    state = GAME.new(3, 5)
    _play(state, answers[:60])
    before = state.position()
    twin = state.clone()
    assert twin.position() == before and twin.pending() == state.pending()
    _play(twin, answers[60:70])
    assert state.position() == before
    _play(state, answers[60:])
    _play(twin, answers[70:])
    assert twin.outcome() == state.outcome()


def test_clone_replays_one_turn_at_most() -> None:
    """A clone replays the answers since the turn's checkpoint, never the whole game."""
    answers = _answers(2, 8, {})
    state = GAME.new(2, 8)
    for choice in answers[:-1]:
        state.act(state.pending()[0].seat, choice)
        turn = state.position()["turn"]
        assert len(state.position()["answers"]) < len(answers) // 3
        assert state.clone().position()["turn"] == turn


def _position() -> dict[str, Any]:
    state = GAME.new(3, 4)
    _play(state, _answers(3, 4, {})[:20])
    return json.loads(json.dumps(state.position()))


def _refused(position: dict[str, Any]) -> str:
    with pytest.raises(PositionError) as caught:
        GAME.load(position)
    return caught.value.where


def test_bad_positions_name_the_field() -> None:
    good = _position()
    GAME.load(good)
    p = _position()
    p["seats"][1]["hand"].append(p["floor"][0])  # a card in two zones: the second is named
    assert _refused(p) == "floor[0]"
    p = _position()
    p["deck"].pop()
    assert _refused(p) == "deck"
    p = _position()
    p["seats"][0]["bench"] = ["Teacup"]
    assert _refused(p) == "seats[0].bench[0]"
    p = _position()
    p["current"] = 3
    assert _refused(p) == "current"
    p = _position()
    p["seats"].pop()
    assert _refused(p) == "seats"
    p = _position()
    p["answers"].append(99)
    assert _refused(p) == f"answers[{len(p['answers']) - 1}]"
    p = _position()
    p["rng"] = [1, 2, 3]
    assert _refused(p) == "rng"
    p = _position()
    p["entry"] = "dusk"
    assert _refused(p) == "entry"
    p = _position()
    p["kite"] = [{"seat": 5, "copy_of": "Fan"}]
    assert _refused(p) == "kite[0].seat"
    p = _position()
    p["players"] = 7
    assert _refused(p) == "options"
    p = _position()
    del p["floor"]
    assert _refused(p) == "floor"


def test_bad_short_positions_name_the_field() -> None:
    short = {"form": "short", "game": "mottainai", "players": 2}
    assert _refused({**short, "seats": [{"hand": ["Nope"]}]}) == "seats[0].hand[0]"
    assert _refused({**short, "floor": ["Fan"], "deck": ["Fan"]}) == "deck[0]"
    assert _refused({**short, "seats": [{"waiting": ["Fan"]}, {}], "current": 1}) == (
        "seats[0].waiting"
    )
    assert _refused({**short, "seats": [{}, {"task_face_down": True}]}) == (
        "seats[1].task_face_down"
    )
    assert _refused({**short, "doll_task": True}) == "doll_task"
    assert _refused({**short, "colour": "red"}) == "colour"


def test_short_form_starts_at_noon() -> None:
    """A position can enter a turn at Noon: the first decision is the task's action."""
    s = start(
        {
            "entry": "noon",
            "seats": [{"task": "Bell", "helpers": ["Fan"], "hand": ["Crane"]}, {}],
            "floor": ["Bowl"],
        }
    )
    dec = s.pending()[0]
    assert (dec.kind, s.phase) == ("action", "noon")
    assert [o["action"] for o in dec.options] == ["task", "prayer"]
    assert s.view(0)["task"]["actions"] == 1
    assert not [e for e in s.event_log() if e["event"]["type"] == "turn"]


def test_short_form_kite_copy_and_doll_task() -> None:
    """A Kite copy and a task taken by Doll survive into the turn they were given in."""
    s = start(
        {
            "entry": "noon",
            "seats": [{"gallery": ["Kite"], "task": "Crane", "hand": ["Bell"]}, {}],
            "kite": [{"seat": 0, "copy_of": "Bell"}],
            "doll_task": True,
        }
    )
    assert s.view(0)["seats"][0]["gallery"][0]["copy_of"] == "Bell"
    assert s.pending()[0].kind == "action" and s.view(0)["task"]["actions"] == 2  # Doll: +1
    kinds_until(s, "clerk")
    answer(s, "clerk", source="bell")  # the Kite reads as Bell
    assert s.position()["kite"] == [{"seat": 0, "copy_of": "Bell"}]


def _determinize_checks(players: int, options: dict, seed: int, every: int) -> int:
    state = GAME.new(players, seed, options)
    rng = random.Random(seed)
    checked = 0
    step = 0
    while pending := state.pending():
        dec = pending[0]
        if step % every == 0:
            view = state.view(dec.seat)
            for k in range(2):
                sampled = GAME.determinize(
                    players, options, dec.seat, view, [], random.Random(step * 2 + k)
                )
                assert sampled.pending() == pending, (step, dec.kind)
                assert sampled.view(dec.seat) == view, (step, dec.kind)
            checked += 1
        state.act(dec.seat, rng.randrange(len(dec.options)))
        step += 1
    return checked


@pytest.mark.parametrize(("players", "options"), CONFIGS)
def test_determinize_keeps_decision_and_view(players: int, options: dict) -> None:
    checked = sum(_determinize_checks(players, options, seed, 4) for seed in range(3))
    assert checked > 100


def test_determinize_deals_only_unseen_cards() -> None:
    """Hidden cards vary between samples and never include a card the seat can see."""
    state = GAME.new(3, 9)
    _play(state, _answers(3, 9, {})[:40])
    seat = state.pending()[0].seat
    view = state.view(seat)
    visible = Counter(c["name"] for c in view["seats"][seat]["hand"])
    hands = set()
    for k in range(10):
        sampled = GAME.determinize(3, {}, seat, view, [], random.Random(k))
        assert isinstance(sampled, MottainaiState)
        other = (seat + 1) % 3
        hand = tuple(sorted(names(sampled.players[other].hand)))
        hands.add(hand)
        assert not Counter(hand) & visible
    assert len(hands) > 5


def test_short_position_with_bad_options_names_the_options() -> None:
    """README "Short form", RULES 1.2 and 12: options a game cannot have (teams at 3 players,
    one deck at 5) are refused as a position error on ``options``, with the reason."""
    for players, options, reason in (
        (3, {"teams": True}, "4 players"),
        (5, {"two_decks": False}, "needs two decks"),
    ):
        short = {"form": "short", "game": "mottainai", "players": players, "options": options}
        with pytest.raises(PositionError, match=reason) as caught:
            GAME.load({**short, "seats": [{} for _ in range(players)]})
        assert caught.value.where == "options"


def test_determinize_needs_the_current_players_view() -> None:
    state = GAME.new(2, 3)
    other = 1 - state.current
    with pytest.raises(PositionError) as caught:
        GAME.determinize(2, {}, other, state.view(other), [], random.Random(0))
    assert caught.value.where == "view.turn_start"


def _scribble(value: Any) -> None:
    """Change every list and map inside a view's ``turn_start`` in place, as a careless caller
    (a search bot sampling into it) might."""
    if isinstance(value, list):
        for item in value:
            _scribble(item)
        value.append("scribbled")
    elif isinstance(value, dict):
        for item in value.values():
            _scribble(item)
        value["scribbled"] = True


def test_turn_start_is_the_callers_to_change() -> None:
    """A checkpoint names its face-up zones and deck places once per turn (cached on the Mark);
    every ``turn_start`` gets its own lists, so changing one changes neither the next one nor
    what a state loaded from the position (with nothing cached) shows."""
    state = GAME.new(3, 8, {})
    rng = random.Random(8)
    compared = 0
    while (pending := state.pending()) and compared < 200:
        seat = pending[0].seat
        before = json.dumps(state.view(seat)["turn_start"])
        _scribble(state.view(seat)["turn_start"])
        assert json.dumps(state.view(seat)["turn_start"]) == before
        loaded = GAME.load(json.loads(json.dumps(state.position())))
        assert json.dumps(loaded.view(seat)["turn_start"]) == before
        compared += 1
        state.act(seat, rng.randrange(len(pending[0].options)))
    assert compared == 200


def test_snapshot_holds_no_cached_names() -> None:
    """Building a view names the checkpoint's cards once (cached on it); a snapshot taken after
    is byte for byte the one taken before, and restores to the same view."""
    state = GAME.new(2, 5, {})
    _play(state, _answers(2, 5, {})[:40])
    before = state.snapshot()
    view = state.view(state.pending()[0].seat)
    assert state.snapshot() == before
    assert GAME.restore(before).view(state.pending()[0].seat) == view
