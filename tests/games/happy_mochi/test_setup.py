"""Setup and next-round scenarios: RULES.md 3.1, 3.2 (incl. step 5), 7, R23-R27, R30."""

from __future__ import annotations

import pytest

from arena.games.base import OptionError
from arena.games.happy_mochi import GAME
from arena.games.happy_mochi.cards import CARD_COUNT, COLOUR, COLOURS, HAND_SIZE, NUMBER, card_id
from arena.games.happy_mochi.scenario import build_state
from arena.games.rng import KeyedRandom

from .helpers import assert_conserved, c, decision, events, pick


def test_seventy_cards_one_per_number_and_colour() -> None:
    """RULES.md 1: 70 cards, numbers 0-9 in 7 colours, each pair once; a face that is not in
    the game has no card."""
    faces = [(NUMBER[card], COLOURS[COLOUR[card]]) for card in range(CARD_COUNT)]
    assert CARD_COUNT == 70 and len(COLOURS) == 7 and len(set(faces)) == 70
    assert {number for number, _ in faces} == set(range(10))
    assert [card_id(number, colour) for number, colour in faces] == list(range(CARD_COUNT))
    for number, colour in ((10, COLOURS[0]), (3, "grey")):
        with pytest.raises(ValueError, match="no Happy Mochi card"):
            card_id(number, colour)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_first_round_setup(players: int) -> None:
    """RULES.md 3.1 steps 1-5: '+', empty reserves, 7 cards each, 1 card per pile, rest in pile."""
    state = GAME.new(players, 11)
    assert state.direction == 1 and state.totals == [0] * players
    assert state.reserves == [[] for _ in range(players)]
    assert [len(h) for h in state.hands] == [HAND_SIZE] * players
    assert len(state.tens) == len(state.units) == 1
    assert len(state.draw) == CARD_COUNT - HAND_SIZE * players - 2
    assert_conserved(state)
    assert decision(state).kind == "turn" and decision(state).seat == state.starter


@pytest.mark.parametrize("players", [2, 6])
def test_first_round_is_round_one(players: int) -> None:
    """RULES.md 3.1, R33: a new game starts in round 1, so ``max_rounds`` N allows N rounds
    (rounds are counted in the state, the round_start event and every view)."""
    state = GAME.new(players, 3, {"max_rounds": 2})
    assert state.round == 1
    assert [e["round"] for e in events(state, 0, "round_start")] == [1]
    assert {state.view(seat)["round"] for seat in range(players)} == {1}


def test_hand_order_is_deal_order() -> None:
    """RULES.md 3.1 step 3, R30: hands keep the order cards came off the shuffled deck."""
    seed, players = 5, 4
    state = GAME.new(players, seed, {"first_seat": 2})
    deck = list(range(CARD_COUNT))
    KeyedRandom(seed).shuffle(deck)  # the engine's generator
    for seat in range(players):
        assert state.hands[seat] == deck[seat * 7 : seat * 7 + 7]
    assert state.tens == [deck[28]] and state.units == [deck[29]]
    assert state.draw[-1] == deck[30]  # the draw pile's top card is the next one of the deck


def test_first_starter_is_seeded_random() -> None:
    """RULES.md 3.1 step 6, R25: a seeded random seat, or the runner's explicit first_seat."""
    starters = {GAME.new(4, seed).starter for seed in range(60)}
    assert starters == {0, 1, 2, 3}
    assert GAME.new(4, 9).starter == GAME.new(4, 9).starter
    assert GAME.new(4, 9, {"first_seat": 3}).starter == 3
    assert GAME.new(6, 9, {"first_seat": 5}).starter == 5  # any seat of the largest table
    for players, first in ((3, 3), (6, 6)):
        with pytest.raises(OptionError):
            GAME.new(players, 9, {"first_seat": first})


def _end_round_by(winner_plays: list[int], loser_hand: list[int], **kwargs: object):
    """2 players: seat 0 holds one playable duo and ends the round with it."""
    state = build_state([winner_plays, loser_hand], [c("pink", 0)], [c("purple", 1)], **kwargs)
    pick(state, "turn", action="play", index=0)
    return state


def test_next_round_keeps_direction_and_reserves() -> None:
    """RULES.md 3.2 steps 1-3, 7, R23, R24: direction stays; reserves kept and not dealt."""
    kept = [c("blue", 9), c("green", 9)]
    state = _end_round_by(
        [c("blue", 6, None), c("purple", 6, None)],
        [c("yellow", 5), c("yellow", 8)],
        reserves=[kept, []],
        direction="-",
        draw=[c("brown", 7)],
    )
    pick(state, "round_reserve", who=1, index=1)
    assert state.round == 2
    assert state.direction == -1  # R24: not reset to '+'
    assert state.reserves[0] == sorted(kept)
    assert state.reserves[1] == [c("yellow", 8)]
    dealt = {x for h in state.hands for x in h} | set(state.tens + state.units + state.draw)
    assert dealt.isdisjoint(set(kept) | {c("yellow", 8)})
    assert len(dealt) == CARD_COUNT - 3
    assert [len(h) for h in state.hands] == [7, 7]
    assert_conserved(state)


def test_next_starter_is_winners_left_neighbour() -> None:
    """RULES.md 3.2 step 4, R26: the winner's left neighbour starts the next round."""
    hands = [
        [c("pink", 8)],
        [c("blue", 2)],
        [c("blue", 6, None), c("purple", 6, None)],
        [c("green", 7)],
    ]
    state = build_state(hands, [c("pink", 0)], [c("purple", 1)], active=2, draw=[c("brown", 7)])
    pick(state, "turn", action="play", index=0)
    for seat in (0, 1, 3):
        pick(state, "round_reserve", who=seat, index=0)
    assert state.starter == 3 and decision(state).seat == 3
    assert events(state, 0, "round_start")[-1]["starter"] == 3


def test_deck_too_small_deals_one_at_a_time() -> None:
    """RULES.md 3.2 step 5, R27: main duo first, then one card at a time from the starter."""
    # 59 cards reserved by seat 0, seat 1 reserves one more at round end: 10 left to deal.
    winner = [c("blue", 6, None), c("purple", 6, None)]
    loser = [c("yellow", 5)]
    tops = [c("pink", 0), c("purple", 1)]
    reserve = [x for x in range(CARD_COUNT) if x not in (*winner, *loser, *tops)][:59]
    state = _end_round_by(winner, loser, reserves=[reserve, []])
    pick(state, "round_reserve", who=1, index=0)
    assert state.round == 2 and state.starter == 1
    assert [len(h) for h in state.hands] == [4, 4] and state.draw == []
    assert len(state.tens) == len(state.units) == 1
    start = events(state, 1, "round_start")[-1]
    assert start["hand_sizes"] == [4, 4] and start["draw_size"] == 0
    assert_conserved(state)


def test_deck_too_small_uneven_deal() -> None:
    """RULES.md 3.2 step 5: 9 cards: the duo, then the starter (seat 1) gets the odd card."""
    winner = [c("blue", 6, None), c("purple", 6, None)]
    loser = [c("yellow", 5)]
    tops = [c("pink", 0), c("purple", 1)]
    reserve = [x for x in range(CARD_COUNT) if x not in (*winner, *loser, *tops)][:60]
    state = _end_round_by(winner, loser, reserves=[reserve, []])
    pick(state, "round_reserve", who=1, index=0)
    assert [len(h) for h in state.hands] == [3, 4]


def test_deck_of_two_plus_one_card_each_is_still_dealt() -> None:
    """RULES.md 3.2 step 5: with exactly n cards after the main duo every player gets one card
    and the round is played (the game ends only with fewer)."""
    winner = [c("blue", 6, None), c("purple", 6, None)]
    loser = [c("yellow", 5)]
    tops = [c("pink", 0), c("purple", 1)]
    reserve = [x for x in range(CARD_COUNT) if x not in (*winner, *loser, *tops)]
    state = _end_round_by(winner, loser, reserves=[reserve, []])
    pick(state, "round_reserve", who=1, index=0)
    assert not state.is_over() and state.round == 2
    assert [len(h) for h in state.hands] == [1, 1] and len(state.tens) == len(state.units) == 1


def test_deck_too_small_for_everyone_ends_game() -> None:
    """RULES.md 3.2 step 5: fewer than n cards after the duo: the game ends with current totals."""
    # 3 players; only the two tops and the winning duo are unreserved: 4 - 2 < 3.
    winner = [c("blue", 6, None), c("purple", 6, None)]
    losers = [[c("yellow", 5)], [c("yellow", 1)]]
    tops = [c("pink", 0), c("purple", 1)]
    reserve = [x for x in range(CARD_COUNT) if x not in (*winner, *losers[0], *losers[1], *tops)]
    hands = [winner, *losers]
    state = build_state(hands, tops[:1], tops[1:], reserves=[reserve, [], []], totals=[3, 4, 0])
    pick(state, "turn", action="play", index=0)
    pick(state, "round_reserve", who=1, index=0)
    assert not state.is_over()  # waiting for seat 2; answers are buffered
    pick(state, "round_reserve", who=2, index=0)
    assert state.is_over() and state.end_reason == "deck_too_small"
    assert state.totals == [3, 9, 1]
    assert state.outcome().ranks == (1, 2, 0)
    assert_conserved(state)
