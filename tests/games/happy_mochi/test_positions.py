"""Positions (README.md "Positions"): write, load, continue identically; refusals; determinize."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from arena.games.base import PositionError
from arena.games.happy_mochi import GAME
from arena.games.happy_mochi import choices as ch
from arena.games.happy_mochi.sampling import Tracker
from arena.games.happy_mochi.state import MochiState

from .helpers import assert_conserved, c, decision, events, pick

SHORT_ROUNDS = {"max_turns_per_round": 30}
GAMES = [(2, 1), (3, 2), (4, 3), (5, 4), (6, 5)]  # (players, seed)


def pending_of(state: MochiState) -> list[tuple[int, str, Any]]:
    return [(d.seat, d.kind, d.options) for d in state.pending()]


def random_game(players: int, seed: int, options: dict | None = SHORT_ROUNDS):
    """Yield (state, rng) before every answer of a random game; the caller's answer is next."""
    state = GAME.new(players, seed, options)
    rng = random.Random(seed)
    while state.pending():
        yield state, rng
        pending = state.pending()
        d = pending[rng.randrange(len(pending))]
        state.act(d.seat, rng.randrange(len(d.options)))


def play_out(state: MochiState, rng: random.Random, steps: int) -> list[tuple[int, int]]:
    """Random answers (at most ``steps``) applied to ``state``; the answers given."""
    answers = []
    while steps and (pending := state.pending()):
        d = pending[rng.randrange(len(pending))]
        answers.append((d.seat, rng.randrange(len(d.options))))
        state.act(*answers[-1])
        steps -= 1
    return answers


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_loaded_position_continues_identically(players: int, seed: int) -> None:
    """At every decision: JSON round trip, same pending, same events for the next answers."""
    checked = 0
    for state, _ in random_game(players, seed):
        position = state.position()
        text = json.dumps(position)
        loaded = GAME.load(json.loads(text))
        assert json.dumps(loaded.position()) == text
        assert pending_of(loaded) == pending_of(state)
        assert loaded.view(0) == state.view(0)
        twin = state.clone()
        start = twin.event_count()
        answers = play_out(twin, random.Random(checked), 3)
        for seat, choice in answers:
            loaded.act(seat, choice)
        assert loaded.event_log() == twin.event_log()[start:]
        assert pending_of(loaded) == pending_of(twin)
        checked += 1
    assert checked > 30


@pytest.mark.parametrize(("players", "seed"), GAMES[:3])
def test_loaded_position_reaches_the_same_outcome(players: int, seed: int) -> None:
    """From positions taken along a game, the same answers give the same events and outcome."""
    original = GAME.new(players, seed, SHORT_ROUNDS)
    answers = play_out(original.clone(), random.Random(seed), 100_000)
    for cut in range(0, len(answers), max(1, len(answers) // 6)):
        state = GAME.new(players, seed, SHORT_ROUNDS)
        for seat, choice in answers[:cut]:
            state.act(seat, choice)
        start = state.event_count()
        loaded = GAME.load(json.loads(json.dumps(state.position())))
        for seat, choice in answers[cut:]:
            state.act(seat, choice)
            loaded.act(seat, choice)
        assert loaded.event_log() == state.event_log()[start:]
        assert loaded.outcome() == state.outcome()
        assert not loaded.pending()


def test_clone_is_an_independent_position_copy() -> None:
    """clone() copies every zone: playing on the copy leaves the original's position as it was."""
    for step, (state, _) in enumerate(random_game(4, 9)):
        if step % 25:
            continue
        before = state.position()
        twin = state.clone()
        assert twin.position() == before
        play_out(twin, random.Random(step), 40)
        assert state.position() == before


def test_simultaneous_answers_are_part_of_the_position() -> None:
    """A buffered pass_card answer survives a round trip, and stays hidden from the views."""
    for state, _ in (step for seed in range(20) for step in random_game(3, seed)):
        if state.phase == ch.PASS_CARD and len(state.pending()) == 3:
            break
    else:
        pytest.fail("no pass_card reached in 20 random games")
    state.act(1, 0)
    position = state.position()
    assert position["answers"] == [None, 0, None]
    loaded = GAME.load(position)
    assert [d.seat for d in loaded.pending()] == [0, 2]
    for seat, choice in ((0, 0), (2, 0)):
        state.act(seat, choice)
        loaded.act(seat, choice)
    assert state.position() == loaded.position()


# --- refusals ----------------------------------------------------------------------------


def mid_game() -> dict[str, Any]:
    for step, (state, _) in enumerate(random_game(3, 4)):
        if step == 40 and state.phase == ch.TURN:
            return state.position()
    state = GAME.new(3, 4)
    return state.position()


def broken(**changes: Any) -> dict[str, Any]:
    position = mid_game()
    for key, value in changes.items():
        position[key] = value(position) if callable(value) else value
    return position


def two_copies(p: dict[str, Any]) -> list[list[int]]:
    return [p["hands"][0] + [p["T"][-1]], *p["hands"][1:]]


def without_one(p: dict[str, Any]) -> list[list[int]]:
    return [p["hands"][0][1:], *p["hands"][1:]]


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"hands": two_copies}, "T[", "also in hands[0]"),
        ({"hands": without_one}, "cards", "in no zone"),
        ({"hands": lambda p: [[*p["hands"][0], 70], *p["hands"][1:]]}, "hands[0][", "card id"),
        ({"active": 3}, "active", "0..2"),
        ({"target": 7}, "target", "0..2"),
        ({"passes": -1}, "passes", "0..3"),
        ({"direction": "up"}, "direction", "'+' or '-'"),
        ({"phase": "dance"}, "phase", "must be one of"),
        ({"phase": "insert"}, "holding", "exactly one seat"),
        ({"phase": "effect_order"}, "effects", "two different"),
        ({"effects": ["jump"]}, "effects", "at most two"),
        ({"reserves": [[], []]}, "reserves", "3 entries"),
        ({"totals": [0, -4, 0]}, "totals[1]", "non-negative"),
        ({"round_winners": [1]}, "round_winners", "one seat or null"),
        ({"answers": [0, None, None]}, "answers[0]", "no simultaneous decision"),
        ({"rng": [1, 2, 3]}, "rng", 'must be {"key"'),
        ({"rng": [5] * 625}, "rng", "Mersenne Twister state"),
        ({"rng": {"key": "ab", "drawn": 0}}, "rng.key", "64 lowercase hex"),
        ({"rng": {"key": "0" * 64, "drawn": -1}}, "rng.drawn", "integer from 0"),
        ({"end_reason": "threshold"}, "end_reason", "null while playing"),
        ({"colour": "pink"}, "colour", "not a Happy Mochi position field"),
        ({"players": 7}, "options", "2 to 6 players"),
        ({"game": "mottainai"}, "game", "expected 'happy_mochi'"),
    ],
)
def test_invalid_positions_are_refused_naming_the_field(
    changes: dict[str, Any], field: str, words: str
) -> None:
    with pytest.raises(PositionError) as error:
        GAME.load(broken(**changes))
    assert str(error.value).startswith(field), str(error.value)
    assert words in str(error.value)


# --- short form --------------------------------------------------------------------------


def test_short_form_fills_defaults_and_reads_card_names() -> None:
    """README.md "Short form": names, defaults, cards nowhere set aside, seeded generator."""
    short = {
        "form": "short",
        "game": "happy_mochi",
        "hands": [["blue 4", "blue 5"], ["yellow 0"]],
        "T": ["pink 0"],
        "U": ["purple 1"],
        "draw": ["green 3", "green 2"],
    }
    full = GAME.expand(short)
    assert full["hands"] == [[c("blue", 4), c("blue", 5)], [c("yellow", 0)]]
    assert full["draw"] == [c("green", 3), c("green", 2)]  # bottom to top
    assert (full["round"], full["active"], full["starter"], full["direction"]) == (1, 0, 0, "+")
    assert len(full["aside"]) == 70 - 7 and full["totals"] == [0, 0]
    state = GAME.load(short)
    assert_conserved(state)
    assert decision(state).kind == ch.TURN and state.view(0)["draw_size"] == 2
    with pytest.raises(PositionError, match=r"^hands\[1\]\[0\]: unknown card 'teal 3'"):
        GAME.load({**short, "hands": [["blue 4"], ["teal 3"]]})
    with pytest.raises(PositionError, match=r"^T: the short form needs"):
        GAME.load({key: value for key, value in short.items() if key != "T"})


def test_short_form_scenario_force_draw_from_the_pile() -> None:
    """RULES.md 5.3 as a puzzle: seat 0 plays a force_draw duo, seat 1 must draw the pile top."""
    force = c("pink", 5, "force_draw")
    state = GAME.load(
        {
            "form": "short",
            "game": "happy_mochi",
            "hands": [[force, "pink 8", "blue 2"], ["yellow 0", "yellow 9"]],
            "T": ["brown 1"],
            "U": ["brown 2"],
            "draw": ["green 3"],
        }
    )
    pick(state, ch.TURN, action="play", index=0)
    pick(state, ch.FORCE_DRAW_TARGET, seat=1)
    pick(state, ch.FORCE_DRAW_SOURCE, source="pile")
    assert state.view(1)["holding"] == c("green", 3)
    pick(state, ch.INSERT, index=1)
    assert state.hands[1] == [c("yellow", 0), c("green", 3), c("yellow", 9)]
    assert [e["type"] for e in events(state, 0)][-3:] == ["force_draw_target", "draw", "insert"]


def test_short_form_starts_mid_effect() -> None:
    """A position can start at any sub-step: here seat 0 is asked whether to use its reserve."""
    state = GAME.load(
        {
            "form": "short",
            "game": "happy_mochi",
            "hands": [["blue 4", "blue 9"], ["yellow 0"]],
            "T": ["pink 0", "pink 5"],
            "U": ["purple 1", "purple 6"],
            "phase": "use_reserve",
        }
    )
    pick(state, ch.USE_RESERVE, use=True)
    pick(state, ch.RESERVE_CARD, index=1)
    assert state.reserves[0] == [c("blue", 9)]
    assert decision(state).seat == 1 and decision(state).kind == ch.TURN


# --- determinize -------------------------------------------------------------------------


def sent_events(state: MochiState, seat: int) -> list[dict[str, Any]]:
    return state.events_since(seat, 0)[0]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_determinize_matches_the_decision_and_the_view(players: int) -> None:
    """The sample asks the same seat the same decision, and that seat sees the same view."""
    sampled = 0
    for state, rng in (step for seed in range(4) for step in random_game(players, seed)):
        for d in state.pending():
            view = state.view(d.seat)
            sample = GAME.determinize(
                players, SHORT_ROUNDS, d.seat, view, sent_events(state, d.seat), rng
            )
            assert_conserved(sample)
            assert [o for o in sample.pending() if o.seat == d.seat] == [d]
            assert sample.view(d.seat) == view
            sampled += 1
    assert sampled > 100


def test_determinize_keeps_what_the_seat_saw_and_varies_the_rest() -> None:
    """A main-duo card an opponent drew stays in its hand at its index; other cards vary."""
    state = GAME.load(
        {
            "form": "short",
            "game": "happy_mochi",
            "seed": 3,
            "hands": [["blue 4", "blue 9", "green 1"], ["yellow 0", "orange 5"]],
            "T": ["pink 0", "pink 5"],
            "U": ["purple 1", "purple 6"],
            "draw": ["brown 3", "brown 2"],
            "reserves": [[], ["orange 7"]],
            "active": 1,
        }
    )
    pick(state, ch.TURN, source="T")
    pick(state, ch.INSERT, index=1)
    pick(state, ch.TURN, source="pile")  # seat 0 now waits for its insert
    seen = [{"type": "round_start", "hand_sizes": [3, 2]}, *sent_events(state, 0)]  # the deal
    hands, reserves = set(), set()
    for k in range(20):
        sample = GAME.determinize(2, {}, 0, state.view(0), seen, random.Random(k))
        assert sample.hands[1][1] == c("pink", 5)
        hands.add((sample.hands[1][0], sample.hands[1][2]))
        reserves.add(sample.reserves[1][0])
    assert len(hands) > 1 and len(reserves) > 1


def test_tracker_follows_a_card_passed_left() -> None:
    """The card a seat passed left is known in its neighbour's hand, where it was inserted."""
    tracker = Tracker(3, 0)
    tracker.see({"type": "round_start", "hand_sizes": [2, 2, 2]})
    tracker.see({"type": "pass_left", "indices": [1, 0, 0], "gave": 42, "received": 5})
    tracker.see({"type": "insert_received", "seat": 1, "index": 0})
    assert tracker.slots[1] == [42, None]
    tracker.see({"type": "reserve", "seat": 1, "index": 0})
    assert tracker.slots[1] == [None] and tracker.reserved[1] == [42]
