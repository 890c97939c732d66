"""Properties over many seeded random games (2-6 players): card conservation (RULES.md 1-2),
the main duo always has two cards (R3), outcome shape (8), illegal answers rejected (12),
determinism across processes, and no hidden-information leak (11)."""

from __future__ import annotations

import random

import pytest

from arena.games.base import IllegalChoice, State
from arena.games.happy_mochi import GAME
from arena.games.happy_mochi import choices as ch
from arena.games.happy_mochi.cards import NUMBER
from arena.games.happy_mochi.state import OVER, MochiState
from tests.games.engine_checks import (
    check_cross_process_determinism,
    check_illegal_answers_rejected,
    check_no_leak,
    check_outcome,
    random_answers,
)

from .helpers import assert_conserved

PLAYERS = [2, 3, 4, 5, 6]
GAMES_PER_COUNT = 200
SHORT_ROUNDS = {"max_turns_per_round": 30}  # many rounds: reserves, deals, turn caps


def invariants(state: State) -> None:
    """Checked after every answer of every random game."""
    assert_conserved(state)  # type: ignore[arg-type]
    phase = state.phase  # type: ignore[attr-defined]
    if phase != OVER:
        assert state.tens and state.units  # type: ignore[attr-defined]  # R3: two cards
    if phase == ch.PASS_CARD:  # 4.3: everyone holds a card when passing
        assert all(state.hands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize(
    "options",
    [None, SHORT_ROUNDS, {"max_turns_per_round": 60, "max_rounds": 1, "first_seat": 1}],
    ids=["default", "short_rounds", "one_round_first_seat"],
)
def test_random_games_conserve_cards(players: int, options: dict | None) -> None:
    """RULES.md 1-2: all 70 cards are always in exactly one place; every game ends."""
    games = GAMES_PER_COUNT if options is None else GAMES_PER_COUNT // 4
    for seed in range(games):
        state, _ = random_answers(GAME, players, seed, options, on_step=invariants)
        check_outcome(state, players)
        outcome = state.outcome()
        totals = outcome.details["totals"]
        assert list(outcome.scores) == [-t for t in totals]
        assert sum(map(sum, outcome.details["round_scores"])) == sum(totals)
        assert state.end_reason in ("threshold", "max_rounds", "deck_too_small")
        if state.end_reason == "threshold":
            assert max(totals) >= 30


def test_random_games_reach_every_decision_kind() -> None:
    """RULES.md 12: random play reaches all of D1-D11 (the property runs cover every rule)."""
    seen: set[str] = set()
    for seed in range(40):
        state = GAME.new(3, seed, SHORT_ROUNDS)
        rng = random.Random(seed)
        while pending := state.pending():
            d = pending[rng.randrange(len(pending))]
            seen.add(d.kind)
            state.act(d.seat, rng.randrange(len(d.options)))
    assert seen == {
        ch.TURN, ch.INSERT, ch.EFFECT_ORDER, ch.FORCE_DRAW_TARGET, ch.FORCE_DRAW_SOURCE,
        ch.USE_PASS_LEFT, ch.PASS_CARD, ch.INSERT_RECEIVED, ch.USE_RESERVE, ch.RESERVE_CARD,
        ch.ROUND_RESERVE,
    }  # fmt: skip


@pytest.mark.parametrize("players", PLAYERS)
def test_illegal_answers_rejected(players: int) -> None:
    """RULES.md 12, R34: bad indices, wrong seats and non-int choices raise IllegalChoice.

    What happens next (e.g. the first option instead) is the runner's policy (R34)."""

    def probe(state: State) -> None:
        probe.steps += 1  # type: ignore[attr-defined]
        if probe.steps % 37 == 0:  # type: ignore[attr-defined]
            check_illegal_answers_rejected(state, players)
            pending = state.pending()
            if pending:
                for bad in (True, 1.0, "0", None):
                    with pytest.raises(IllegalChoice):
                        state.clone().act(pending[0].seat, bad)  # type: ignore[arg-type]

    probe.steps = 0  # type: ignore[attr-defined]
    for seed in range(5):
        random_answers(GAME, players, seed, SHORT_ROUNDS, on_step=probe)


def test_simultaneous_answer_twice_rejected() -> None:
    """RULES.md 5.4 / D7: a seat that already answered a simultaneous choice cannot answer again."""
    for seed in range(20):  # random games until one reaches a simultaneous choice
        state = GAME.new(3, seed)
        rng = random.Random(seed)
        while state.pending() and state.phase not in ch.SIMULTANEOUS:
            d = state.pending()[0]
            state.act(d.seat, rng.randrange(len(d.options)))
        if state.phase in ch.SIMULTANEOUS:
            break
    else:
        pytest.fail("no simultaneous choice in 20 random games")
    first = state.pending()[0]
    state.act(first.seat, 0)
    with pytest.raises(IllegalChoice):
        state.act(first.seat, 0)


@pytest.mark.parametrize("players", PLAYERS)
def test_cross_process_determinism(players: int) -> None:
    """Contract: same seed and answers give the same event log in every process."""
    check_cross_process_determinism(GAME, players, 100 + players)
    check_cross_process_determinism(GAME, players, 200 + players, SHORT_ROUNDS)


def test_same_seed_same_deal_different_seed_differs() -> None:
    """RULES.md 3.1 step 2: the shuffle comes from the seed only."""
    assert GAME.new(4, 1).hands == GAME.new(4, 1).hands
    assert GAME.new(4, 1).hands != GAME.new(4, 2).hands


def test_clone_and_snapshot_are_independent() -> None:
    """Contract: clone() and snapshot() copy everything, the RNG included.

    A clone is a position copy: its log starts empty, then holds exactly what follows.
    """
    state, answers = random_answers(GAME, 4, 3, SHORT_ROUNDS)
    base = GAME.new(4, 3, SHORT_ROUNDS)
    for seat, choice in answers[:150]:
        base.act(seat, choice)
    split = base.event_count()
    twin, restored = base.clone(), GAME.restore(base.snapshot())
    for seat, choice in answers[150:]:
        for s in (base, twin, restored):
            s.act(seat, choice)
    assert base.event_log() == restored.event_log() == state.event_log()
    assert twin.event_log() == state.event_log()[split:]


def permute_hidden(state: State, observer: int, actor: int, rng: random.Random) -> State:
    """Shuffle cards the observer cannot see, keeping everything the next answer could reveal.

    The draw pile is shuffled, except its top when a Note A refill may show it. Cards are also
    swapped with cards of the same number (a round end reveals hand sums) among the draw pile
    and the hands, reserves and held cards of seats other than observer and actor. Kept as they
    are: the right neighbour's hand while passing (the observer receives from it), all hands
    when at most one card can still be supplied (R5 passes reveal stuck hands), and everything
    but the draw order during the end-of-round reserve (the next deal depends on which cards
    stay unreserved).
    """
    assert isinstance(state, MochiState)
    if state.phase == ch.ROUND_RESERVE:
        rng.shuffle(state.draw)
        return state
    # Note A can show the draw pile's top card, only when a one-card pile may be drawn from.
    may_refill = (
        state.phase in (ch.TURN, ch.FORCE_DRAW_SOURCE)
        and min(len(state.tens), len(state.units)) == 1
    )
    hidden = len(state.draw) - 1 if may_refill else len(state.draw)
    shuffled = state.draw[:hidden]
    rng.shuffle(shuffled)
    state.draw[:hidden] = shuffled
    slots: list[tuple[list, int]] = [(state.draw, i) for i in range(hidden)]
    supply = len(state.draw) + len(state.tens) + len(state.units) - 2
    for seat in range(state.n):
        if seat in (observer, actor):
            continue
        passing_to_observer = state.phase == ch.PASS_CARD and seat == (observer - 1) % state.n
        if supply > 1 and not passing_to_observer:
            slots.extend((state.hands[seat], i) for i in range(len(state.hands[seat])))
        slots.extend((state.reserves[seat], i) for i in range(len(state.reserves[seat])))
        if state.holding[seat] is not None:
            slots.append((state.holding, seat))
    by_number: dict[int, list[tuple[list, int]]] = {}
    for slot in slots:
        by_number.setdefault(NUMBER[slot[0][slot[1]]], []).append(slot)
    for group in by_number.values():
        cards = [place[i] for place, i in group]
        rng.shuffle(cards)
        for (place, i), card in zip(group, cards, strict=True):
            place[i] = card
    for reserve in state.reserves:
        reserve.sort()
    return state


@pytest.mark.parametrize("players", PLAYERS)
def test_no_leak(players: int) -> None:
    """RULES.md 11: a seat's view and events never depend on cards hidden from it."""
    compared = 0
    for seed in range(3):
        compared += check_no_leak(GAME, players, seed, permute_hidden, every=7)
    compared += check_no_leak(GAME, players, 50 + players, permute_hidden, SHORT_ROUNDS, every=5)
    assert compared > 100


@pytest.mark.parametrize("players", PLAYERS)
def test_view_shows_only_own_cards(players: int) -> None:
    """RULES.md 11: the view holds the seat's own hand and reserve; others only as counts."""
    state = GAME.new(players, 7)
    for seat in range(players):
        view = state.view(seat)
        assert view["hand"] == state.hands[seat] and view["reserve"] == state.reserves[seat]
        assert view["hand_sizes"] == [len(h) for h in state.hands]
        others = {c for s, h in enumerate(state.hands) if s != seat for c in h}
        flat = repr({k: v for k, v in view.items() if k != "cards"})
        assert "hands" not in view and "draw" not in view
        assert all(c not in view["T"] + view["U"] for c in others)
        assert flat  # the view is plain data
