"""Contract properties over seeded random games (RULES 16 invariants after every answer)."""

from __future__ import annotations

import random

import pytest

from arena.games.base import State
from arena.games.mottainai import GAME
from arena.games.mottainai.state import MottainaiState
from tests.games.engine_checks import (
    check_cross_process_determinism,
    check_illegal_answers_rejected,
    check_no_leak,
    check_outcome,
    random_answers,
)

from .helpers import check_invariants

GAMES = 200
CONFIGS = [
    (2, {}),
    (3, {}),
    (4, {}),
    (5, {}),
    (2, {"extended": True}),
    (3, {"two_decks": True}),
    (4, {"extended": False}),
    (4, {"teams": True}),
]


def _every(n: int) -> int:
    return 1 if n % 7 == 0 else 0


@pytest.mark.parametrize(("players", "options"), CONFIGS)
def test_random_games_keep_invariants(players: int, options: dict) -> None:
    """RULES 16 after every answer; every offered option is accepted; games end; outcome shape."""
    lengths = []
    for seed in range(GAMES):
        checks = check_invariants if _every(seed) else None
        state, answers = random_answers(
            GAME, players, seed, options, policy_seed=seed, on_step=checks
        )
        check_outcome(state, players)
        check_invariants(state)
        lengths.append(len(answers))
    assert min(lengths) > 0


@pytest.mark.parametrize(("players", "options"), CONFIGS)
def test_illegal_answers_rejected(players: int, options: dict) -> None:
    state = GAME.new(players, 11, options)
    rng = random.Random(11)
    step = 0
    while state.pending():
        if step % 37 == 0:
            check_illegal_answers_rejected(state, players)
        dec = state.pending()[0]
        state.act(dec.seat, rng.randrange(len(dec.options)))
        step += 1


@pytest.mark.parametrize(
    ("players", "options"), [(2, {}), (3, {}), (4, {}), (5, {}), (4, {"teams": True})]
)
def test_cross_process_determinism(players: int, options: dict) -> None:
    for seed in (1, 2):
        check_cross_process_determinism(GAME, players, seed, options)


def _hidden_slots(
    s: MottainaiState, observer: int, actor: int, keep_top: int, setup_cards: bool, hands: bool
) -> list[tuple[object, object]]:
    """(container, key) slots whose cards ``observer`` cannot see and the answer cannot show."""
    slots: list[tuple[object, object]] = [(s.deck, i) for i in range(len(s.deck) - keep_top)]
    for q, pl in enumerate(s.players):
        if hands and q not in (observer, actor):
            slots += [(pl.hand, i) for i in range(len(pl.hand))]
        slots += [(pl.waiting, i) for i, c in enumerate(pl.waiting) if c not in pl.waiting_known]
        if setup_cards and pl.task is not None and pl.task_down:
            slots.append((pl, "task"))
    return slots


def _get(slot: tuple[object, object]) -> int:
    box, key = slot
    return getattr(box, key) if isinstance(key, str) else box[key]  # type: ignore[index]


def _set(slot: tuple[object, object], value: int) -> None:
    box, key = slot
    if isinstance(key, str):
        setattr(box, key, value)
    else:
        box[key] = value  # type: ignore[index]


def permute(state: State, observer: int, actor: int, rng: random.Random) -> State:
    """Shuffle the cards hidden from ``observer`` that the next answer cannot reveal.

    Each option of the pending decision is tried on a copy: if one ends the game (scoring shows
    every hand) nothing is shuffled; the deck keeps fixed as many top cards as one answer can
    take or show, plus three (Fan); setup cards stay if an answer could turn one up; hands stay
    for Jar (its counts per material are public).
    """
    s = state
    assert isinstance(s, MottainaiState)
    dec = s.pending()[0]
    keep_top, setup_cards = 3, True
    for i in range(len(dec.options)):
        probe = s.clone()
        before = len(probe.log)
        probe.act(dec.seat, i)
        if not probe.pending():
            return s
        new = [e["event"] for e in probe.event_log()[before:]]
        taken = sum(1 for e in new if e.get("src") == "deck" or e["type"] == "draw")
        taken += sum(len(e.get("cards", [])) for e in new if e["type"] == "deck_reveal")
        keep_top = max(keep_top, taken + 3)
        if any(e["type"] == "move" and e.get("src") == "task" for e in new):
            setup_cards = False
    slots = _hidden_slots(
        s, observer, actor, keep_top, setup_cards, hands=dec.kind != "jar_material"
    )
    values = [_get(slot) for slot in slots]
    rng.shuffle(values)
    for slot, value in zip(slots, values, strict=False):
        _set(slot, value)
    return s


@pytest.mark.parametrize(
    ("players", "options"), [(2, {}), (3, {}), (4, {}), (5, {}), (4, {"teams": True})]
)
def test_no_leak(players: int, options: dict) -> None:
    """A seat's view and events do not change when only cards hidden from it are permuted."""
    compared = 0
    for seed in (3, 4):
        compared += check_no_leak(GAME, players, seed, permute, options, every=120)
    assert compared > 0
