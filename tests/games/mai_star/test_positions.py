"""Positions (README.md "Positions"): load(position()) continues exactly, bad positions are
refused with the field named, the short form reads like the rulebook, and determinize samples
states the deciding seat cannot tell from the real one."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from arena.games.base import PositionError, State
from arena.games.mai_star import GAME, MaiStarState

from .helpers import answer, hand, kind

GAMES = [
    (3, 1, {}),
    (4, 2, {"management_mode": True}),
    (5, 3, {"limited_guests": "reaches"}),
    (6, 4, {"longer_six_player": True, "limited_guests": "exceeds"}),
]


def play_out(state: State, rng: random.Random) -> list[int]:
    """Random answers to the end; the answers given."""
    answers = []
    while pending := state.pending():
        choice = rng.randrange(len(pending[0].options))
        state.act(pending[0].seat, choice)
        answers.append(choice)
    return answers


def log_from(state: State, start: int) -> list[dict[str, Any]]:
    return state.event_log()[start:]


@pytest.mark.parametrize(("players", "seed", "options"), GAMES)
def test_load_continues_identically(players: int, seed: int, options: dict) -> None:
    """At every decision of a random game the position survives JSON and loads into a state
    with the same decision; at every 15th, both play on with the same answers to the same
    events and outcome."""
    state = GAME.new(players, seed, options)
    rng = random.Random(seed)
    step = 0
    while pending := state.pending():
        position = state.position()
        text = json.dumps(position)
        loaded = GAME.load(json.loads(text))
        assert loaded.pending() == pending
        assert json.dumps(loaded.position()) == text
        if step % 15 == 0:
            start = state.event_count()
            original = copy.deepcopy(state)
            answers = play_out(original, random.Random(step))
            replayed = play_out(loaded, random.Random(step))
            assert replayed == answers
            assert log_from(original, start) == loaded.event_log()
            assert loaded.outcome() == original.outcome()
        state.act(pending[0].seat, rng.randrange(len(pending[0].options)))
        step += 1
    assert GAME.load(state.position()).outcome() == state.outcome()


def test_clone_is_independent() -> None:
    state = GAME.new(4, 8)
    for _ in range(60):
        state.act(state.pending()[0].seat, 0)
    before = state.position()
    twin = state.clone()
    assert twin.position() == before
    assert twin.event_count() == 0  # the copy's log starts empty, whatever came before
    play_out(twin, random.Random(1))
    assert state.position() == before


def mid_game() -> dict[str, Any]:
    state = GAME.new(4, 11)
    rng = random.Random(3)
    for _ in range(40):
        state.act(state.pending()[0].seat, rng.randrange(len(state.pending()[0].options)))
    return state.position()


def broken(change: Any) -> str:
    """The field a PositionError names once ``change`` edited a valid position."""
    position = mid_game()
    change(position)
    with pytest.raises(PositionError) as caught:
        GAME.load(position)
    return caught.value.where


def test_bad_positions_are_refused_with_the_field_named() -> None:
    def duplicate(p: dict) -> None:
        p["seats"][3]["advertisers"].append(p["deck"][0])

    def drop(p: dict) -> None:
        p["deck"].pop()

    def unknown_card(p: dict) -> None:
        p["seats"][1]["hand"][0] = "ninja_red"

    def set_path(*path: Any, value: Any) -> Any:
        def change(p: dict) -> None:
            target = p
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value

        return change

    assert broken(duplicate) == "seats[3].advertisers"
    assert broken(drop) == "cards"
    assert broken(unknown_card) == "seats[1].hand[0]"
    assert broken(set_path("active", value=4)) == "active"
    assert broken(set_path("decision", "seat", value=-1)) == "decision.seat"
    assert broken(set_path("round", value=4)) == "round"
    assert broken(set_path("turn", "natsumi_uses", value=3)) == "turn.natsumi_uses"
    assert broken(set_path("seats", 2, "extra_turns", value=-1)) == "seats[2].extra_turns"
    assert broken(set_path("seats", 0, "total", value=5)) == "seats[0].total"
    assert broken(set_path("seats", 1, "geisha", value="Kiku")) == "seats[1].geisha"
    assert broken(set_path("deck_bottom_known", value=99)) == "deck_bottom_known"
    assert broken(set_path("stack", 0, value=["teleport", 0])) == "stack[0]"
    assert broken(set_path("decision", "handler", value=["turn", 0, False])) == "decision.handler"
    assert broken(set_path("rng", value=[1, 2, 3])) == "rng"
    assert broken(set_path("players", value=5)) == "seats"
    assert broken(set_path("colour", value="red")) == "colour"
    assert broken(set_path("game", value="motora")) == "game"

    def same_geisha(p: dict) -> None:
        p["seats"][1]["geisha"] = p["seats"][0]["geisha"]

    assert broken(same_geisha) == "seats"


# ----- the short form ------------------------------------------------------------------------


def test_short_form_reads_like_the_rulebook() -> None:
    """RULES.md 8 (Samurai), R25: the newest guest of the target moves to the player's row."""
    state = GAME.load(
        {
            "form": "short",
            "geishas": ["Momiji", "Oboro", "Natsumi"],
            "hands": {"0": ["samurai_red", "actor_green"], "1": ["actor_red"], "2": ["monk_black"]},
            "guests": {"1": ["actor_blue", "doctor_green"]},
            "advertisers": {"0": ["okaasan_red", "okaasan_red"]},
            "deck": ["scholar_green", "yakuza_green", "thief_green"],
        }
    )
    assert isinstance(state, MaiStarState)
    assert kind(state) == "action" and state.active == 0
    answer(state, "action", action="guest", card="samurai_red")
    answer(state, "effect", action="target", target=1)
    position = state.position()
    assert position["seats"][0]["guests"] == ["samurai_red", "doctor_green"]
    assert position["seats"][1]["guests"] == ["actor_blue"]
    assert hand(state, 0) == ["actor_green"]
    assert len(position["discard"]) == 75 - 4 - 2 - 2 - 3  # the rest is discarded


def test_short_form_defaults_and_rest_in_the_deck() -> None:
    state = GAME.load(
        {
            "form": "short",
            "geishas": ["Oboro", "Suzune", "Harukaze", "Akenohoshi"],
            "hands": [["actor_red"], ["actor_blue"], ["actor_green"], ["monk_black"]],
            "deck": ["doctor_green"],
            "rest": "deck",
            "round": 2,
            "scores": [[4], [7], [0], [2]],
            "active": 2,
            "seed": 5,
        }
    )
    position = state.position()
    assert position["deck"][0] == "doctor_green" and len(position["deck"]) == 71
    assert position["discard"] == [] and position["round"] == 2
    assert [s["total"] for s in position["seats"]] == [4, 7, 0, 2]
    assert state.pending()[0].seat == 2


@pytest.mark.parametrize(
    ("short", "where"),
    [
        ({"geishas": ["Oboro", "Momiji", "Kiku"]}, "geishas"),
        ({"geishas": ["Oboro", "Momiji", "Natsumi"], "hands": [["ninja"]]}, "hands.0[0]"),
        ({"geishas": ["Oboro", "Momiji", "Natsumi"], "hands": {"5": []}}, "hands.5"),
        ({"geishas": ["Oboro", "Momiji", "Natsumi"], "deck": ["monk_black"] * 3}, "deck"),
        ({"geishas": ["Oboro", "Momiji", "Natsumi"], "hand": []}, "hand"),
        ({"geishas": ["Oboro", "Oboro", "Natsumi"]}, "seats"),
        ({"geishas": ["Oboro", "Momiji", "Natsumi"], "round": 4}, "round"),
        ({"geishas": ["Oboro", "Momiji", "Natsumi"], "active": 3}, "active"),
        ({"geishas": ["Oboro", "Momiji", "Natsumi"], "round": 2, "scores": [4]}, "scores.0"),
    ],
)
def test_bad_short_forms_are_refused(short: dict, where: str) -> None:
    with pytest.raises(PositionError) as caught:
        GAME.load({"form": "short", **short})
    assert caught.value.where == where


# ----- determinize ---------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "seed", "options"), GAMES)
def test_determinize_matches_the_deciding_seat_knowledge(
    players: int, seed: int, options: dict
) -> None:
    """At every decision the sample has the same decision and gives the deciding seat the same
    view; hidden hands differ between samples; some samples are played to the end."""
    state = GAME.new(players, seed, options)
    resolved = GAME.resolve_options(options, players)
    rng = random.Random(seed)
    events: list[list[dict]] = [[] for _ in range(players)]
    cursors = [0] * players
    varied = 0
    step = 0
    while pending := state.pending():
        decision = pending[0]
        seat = decision.seat
        new, cursors[seat] = state.events_since(seat, cursors[seat])
        events[seat] += new
        view = state.view(seat)
        hidden = [p["hand"] for p in state.position()["seats"]]
        sample = GAME.determinize(players, resolved, seat, view, events[seat], rng)
        assert sample.pending() == pending, step
        assert sample.view(seat) == view, step
        sampled = [p["hand"] for p in sample.position()["seats"]]
        varied += sampled != hidden
        if step % 40 == 0:
            play_out(sample, random.Random(step))
        state.act(seat, rng.randrange(len(decision.options)))
        step += 1
    assert varied > step // 2


def test_determinize_keeps_a_hand_seen_with_the_sumo_wrestler() -> None:
    """RULES.md 8 (Sumo Wrestler): the player saw the target's hand, so samples keep it."""
    state = GAME.load(
        {
            "form": "short",
            "geishas": ["Oboro", "Momiji", "Natsumi"],
            "hands": [
                ["sumo_wrestler_blue", "actor_red"],
                ["monk_black", "doctor_green"],
                ["actor_red"],
            ],
            "advertisers": {"0": ["okaasan_blue", "okaasan_blue"]},
            "deck": ["scholar_green", "thief_green", "yakuza_green"],
            "rest": "deck",
        }
    )
    answer(state, "action", action="guest", card="sumo_wrestler_blue")
    answer(state, "effect", action="target", target=1)
    assert kind(state) == "sumo_discard"
    events, _ = state.events_since(0, 0)
    rng = random.Random(0)
    for _ in range(5):
        sample = GAME.determinize(3, state.options, 0, state.view(0), events, rng)
        assert hand(sample, 1) == ["doctor_green", "monk_black"]  # type: ignore[arg-type]
        assert sample.pending() == state.pending()


def test_determinize_from_a_loaded_position_without_events() -> None:
    """A match started from a position sends no earlier events: the view alone must do, even
    for a Sumo Wrestler's choice (its options name the target's cards) and round-end hands."""
    state = GAME.load(
        {
            "form": "short",
            "geishas": ["Oboro", "Momiji", "Natsumi"],
            "hands": [["sumo_wrestler_blue", "actor_red"], ["monk_black", "doctor_green"]],
            "advertisers": {"0": ["okaasan_blue", "okaasan_blue"]},
            "deck": ["scholar_green", "thief_green", "yakuza_green"],
            "rest": "deck",
            "round": 3,
            "scores": [[3, 8], [0, 12], [5, 5]],
        }
    )
    answer(state, "action", action="guest", card="sumo_wrestler_blue")
    answer(state, "effect", action="target", target=1)
    loaded = GAME.load(state.position())
    rng = random.Random(2)
    for _ in range(5):
        sample = GAME.determinize(3, loaded.options, 0, loaded.view(0), [], rng)
        assert sample.pending() == loaded.pending()
        assert sample.view(0) == loaded.view(0)
        play_out(sample, rng)
