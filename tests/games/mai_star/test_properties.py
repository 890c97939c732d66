"""Contract properties over many seeded random games (common brief; RULES.md 1, 13, 17)."""

from __future__ import annotations

import random
from collections.abc import Callable

import msgpack
import pytest

from arena.games.base import State
from arena.games.mai_star import GAME
from tests.games.engine_checks import (
    check_cross_process_determinism,
    check_illegal_answers_rejected,
    check_no_leak,
    check_outcome,
    digest,
    random_answers,
    replay,
)

from .helpers import check_conservation, permute_hidden

PLAYERS = [3, 4, 5, 6]
OPTION_SETS = [
    {},
    {"management_mode": True},
    {"limited_guests": "exceeds"},
    {"limited_guests": "reaches"},
    {"longer_six_player": True},
]
COMBINED = [
    {"management_mode": True, "limited_guests": "exceeds"},
    {"longer_six_player": True, "limited_guests": "reaches"},
]
GAMES = 200


def every(period: int) -> Callable[[State], None]:
    """An ``on_step`` hook checking card conservation at every ``period``-th answer."""
    count = [0]

    def hook(state: State) -> None:
        count[0] += 1
        if count[0] % period == 0:
            check_conservation(state)

    return hook


@pytest.mark.parametrize("players", PLAYERS)
def test_random_games_keep_every_card_in_one_place(players: int) -> None:
    """Every offered option is accepted, games end, and the 75 cards are conserved (checked
    after every other answer)."""
    for seed in range(GAMES):
        state, _ = random_answers(GAME, players, seed, on_step=every(2))
        check_outcome(state, players)


@pytest.mark.parametrize("options", COMBINED, ids=lambda o: "-".join(map(str, o.values())))
@pytest.mark.parametrize("players", PLAYERS)
def test_random_games_with_each_option(players: int, options: dict) -> None:
    """The same with the optional rules (RULES.md 15): each option value is on in 200 games
    per player count (two options per run, to keep the suite fast); conservation is checked
    at every 5th answer."""
    for seed in range(GAMES):
        state, _ = random_answers(GAME, players, 1000 + seed, options, on_step=every(5))
        check_outcome(state, players)


@pytest.mark.parametrize("players", PLAYERS)
def test_illegal_answers_rejected(players: int) -> None:
    rng = random.Random(players)
    for seed in range(3):
        state = GAME.new(players, seed, OPTION_SETS[seed % len(OPTION_SETS)])
        while state.pending():
            if rng.random() < 0.1:
                check_illegal_answers_rejected(state, players)
            decision = state.pending()[0]
            state.act(decision.seat, rng.randrange(len(decision.options)))


@pytest.mark.parametrize("players", PLAYERS)
def test_replay_and_snapshot_are_identical(players: int) -> None:
    state, answers = random_answers(GAME, players, 77, {"management_mode": True})
    assert digest(replay(GAME, players, 77, answers, {"management_mode": True})) == digest(state)
    mid = GAME.new(players, 5)
    for _ in range(40):
        mid.act(mid.pending()[0].seat, 0)
    copy, restored = mid.clone(), GAME.restore(mid.snapshot())
    for twin in (copy, restored):
        while twin.pending():
            twin.act(twin.pending()[0].seat, len(twin.pending()[0].options) - 1)
    # a clone's log starts empty (a position copy): it holds the events from the copy on
    assert copy.event_log() == restored.event_log()[mid.event_count() :]
    assert copy.outcome() == restored.outcome()
    assert mid.pending()  # the original is untouched


@pytest.mark.parametrize("players", PLAYERS)
def test_cross_process_determinism(players: int) -> None:
    for seed, options in ((players, {}), (players + 10, {"longer_six_player": True})):
        check_cross_process_determinism(GAME, players, seed, options)


@pytest.mark.parametrize("players", PLAYERS)
def test_no_leak(players: int) -> None:
    """RULES.md 17: views and events do not depend on other hands or the deck order."""
    for seed, options in enumerate(OPTION_SETS):
        assert check_no_leak(GAME, players, seed, permute_hidden, options, every=5) > 0


def test_views_and_events_are_msgpack_plain() -> None:
    """Views and events use only str keys and msgpack types (no tuples)."""
    state, _ = random_answers(GAME, 4, 9)
    for seat in range(4):
        view = state.view(seat)
        assert msgpack.unpackb(msgpack.packb(view), strict_map_key=True) == view
        events, _ = state.events_since(seat, 0)
        assert msgpack.unpackb(msgpack.packb(events)) == events
    live = GAME.new(5, 2)
    while live.pending():
        decision = live.pending()[0]
        options = list(decision.options)
        assert msgpack.unpackb(msgpack.packb(options)) == options
        assert msgpack.unpackb(msgpack.packb(live.view(decision.seat))) == live.view(decision.seat)
        live.act(decision.seat, len(options) // 2)
