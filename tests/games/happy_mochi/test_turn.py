"""Turn scenarios: RULES.md 4.1, 4.2, 4.3, 12 (D1, D2), R1-R12, R31-R33, R35."""

from __future__ import annotations

import random

import pytest

from arena.games.base import OptionError
from arena.games.happy_mochi import GAME
from arena.games.happy_mochi.cards import CARD_COUNT, COLOUR, NUMBER
from arena.games.happy_mochi.rules import legal_duo_starts
from arena.games.happy_mochi.scenario import build_state

from .helpers import c, decision, events, pick


def n(colour: str, number: int) -> int:
    """A card without effect (asserted against cards.json)."""
    return c(colour, number, None)


FILLER = [n("brown", 0)]  # a harmless hand for seats that do not matter


def play_starts(state) -> list[int]:
    return [o["index"] for o in decision(state).options if o["action"] == "play"]


# --- 4.1 DRAW -------------------------------------------------------------------------


def test_d1_options_in_canonical_order() -> None:
    """RULES.md 12 D1, R7: plays by ascending index, then T, U, pile, each own reserved card."""
    hand = [n("blue", 5), n("blue", 6), n("pink", 1)]
    reserve = [n("brown", 8), n("green", 7)]
    state = build_state(
        [hand, FILLER], [n("pink", 0)], [n("purple", 1)], [n("orange", 4)], [reserve, []]
    )
    got = [
        (o["action"], o.get("index"), o.get("source"), o.get("card"))
        for o in decision(state).options
    ]
    assert got == [
        ("play", 0, None, None),
        ("play", 1, None, None),
        ("draw", None, "T", n("pink", 0)),
        ("draw", None, "U", n("purple", 1)),
        ("draw", None, "pile", None),
        ("draw", None, "reserve", n("green", 7)),
        ("draw", None, "reserve", n("brown", 8)),
    ]


def test_draw_main_duo_card_uncovers_without_effect() -> None:
    """RULES.md 4.1(a), R1, R2, Note B: the card beneath shows; its flip icon does nothing."""
    flip = c("yellow", 6, "flip")
    state = build_state(
        [[n("blue", 4), n("blue", 9)], FILLER],
        [flip, n("pink", 8)],
        [n("brown", 1)],
        [n("pink", 2)],
    )
    pick(state, "turn", action="draw", source="T")
    assert decision(state).kind == "insert" and state.view(0)["holding"] == n("pink", 8)
    assert [o["index"] for o in decision(state).options] == [0, 1, 2]
    pick(state, "insert", index=1)
    assert state.hands[0] == [n("blue", 4), n("pink", 8), n("blue", 9)]
    assert state.tens == [flip] and state.direction == 1
    assert state.view(1)["main_duo"] == {"value": 61, "same_colour": False}
    assert decision(state).seat == 1  # 4.3: next seat


def test_note_a_refills_empty_pile_from_draw_pile() -> None:
    """RULES.md 4.1 Note A, R3: the draw pile's top fills the emptied position; no effect."""
    flip = c("blue", 0, "flip")
    state = build_state(
        [[n("blue", 4)], FILLER], [n("pink", 8)], [n("brown", 1)], [flip, n("pink", 2)]
    )
    pick(state, "turn", action="draw", source="T")
    assert state.tens == [flip] and state.direction == 1 and state.draw == [n("pink", 2)]
    assert events(state, 1, "refill") == [{"type": "refill", "pile": "T", "card": flip}]


def test_draw_from_pile_card_seen_before_inserting() -> None:
    """RULES.md 4.1(b): the drawer sees the card, then picks any index 0..len(hand)."""
    state = build_state(
        [[n("blue", 4), n("blue", 9)], FILLER], [n("pink", 8)], [n("brown", 1)], [n("green", 2)]
    )
    pick(state, "turn", action="draw", source="pile")
    assert state.view(0)["holding"] == n("green", 2)
    pick(state, "insert", index=0)
    assert state.hands[0] == [n("green", 2), n("blue", 4), n("blue", 9)]
    assert state.draw == []


def test_draw_own_reserved_card() -> None:
    """RULES.md 4.1(c), R17: any one own reserved card may be drawn back."""
    reserve = [n("green", 7), n("brown", 8)]
    state = build_state(
        [[n("blue", 4)], FILLER], [n("pink", 8)], [n("brown", 1)], [], [reserve, []]
    )
    pick(state, "turn", action="draw", source="reserve", card=n("brown", 8))
    pick(state, "insert", index=1)
    assert state.hands[0] == [n("blue", 4), n("brown", 8)] and state.reserves[0] == [n("green", 7)]


def test_source_legality_without_cards_to_supply() -> None:
    """RULES.md 4.1 legality, R4: single-card piles and the pile need a card to supply."""
    state = build_state(
        [[n("blue", 4)], FILLER], [n("pink", 8)], [n("brown", 1)], [], [[n("green", 7)], []]
    )
    assert [o["source"] for o in decision(state).options] == ["reserve"]
    state = build_state([[n("blue", 4)], FILLER], [n("pink", 8)], [n("blue", 9), n("brown", 1)])
    assert [o["source"] for o in decision(state).options] == ["T", "U", "pile"]


def test_r4_lazy_reshuffle_of_covered_cards() -> None:
    """R4: only when a card is needed, the covered cards become the new draw pile."""
    tens = [n("pink", 2), n("pink", 3), n("pink", 8)]
    units = [n("blue", 5), n("brown", 1)]
    state = build_state([[n("blue", 4)], FILLER], tens, units)
    assert state.draw == [] and len(state.tens) == 3  # nothing happens before a draw
    pick(state, "turn", action="draw", source="pile")
    covered = sorted([n("pink", 2), n("pink", 3), n("blue", 5)])
    (shuffle,) = events(state, 1, "reshuffle")
    assert shuffle["cards"] == covered and shuffle["draw_size"] == 3
    assert state.tens == [n("pink", 8)] and state.units == [n("brown", 1)]
    assert sorted([*state.draw, state.holding[0]]) == covered


def test_r4_reshuffle_supplies_note_a_refill() -> None:
    """R4 with Note A: taking a single-card pile's card refills it from the covered cards."""
    state = build_state([[n("blue", 4)], FILLER], [n("pink", 8)], [n("blue", 5), n("brown", 1)])
    pick(state, "turn", action="draw", source="T")
    assert state.tens == [n("blue", 5)] and state.units == [n("brown", 1)] and state.draw == []


# --- 4.2 PLAY A DUO ---------------------------------------------------------------------


def test_value_condition_is_strict() -> None:
    """RULES.md 4.2 step 3, R11: '+' needs v > M, '-' needs v < M; equal is illegal."""
    hand = [n("yellow", 5), n("brown", 7), n("pink", 8), n("pink", 2), n("purple", 3)]
    tops = ([n("purple", 5)], [n("orange", 7)])  # 57, mixed; pairs 57, 78, 82, 23
    assert play_starts(build_state([hand, FILLER], *tops, [n("pink", 0)])) == [1, 2]
    state = build_state([hand, FILLER], *tops, [n("pink", 0)], direction="-")
    assert play_starts(state) == [3]


def test_rulebook_equal_value_example() -> None:
    """RULES.md 4.2 step 3: a blue 5 next to a green 7 (57) cannot be played on a pink 57."""
    hand = [c("blue", 5), c("green", 7)]
    for direction in "+-":
        state = build_state(
            [hand, FILLER], [c("pink", 5)], [c("pink", 7)], [n("pink", 0)], direction=direction
        )
        assert play_starts(state) == []


def test_colour_condition_any_single_colour() -> None:
    """RULES.md 4.2 step 3, R12: on a same-coloured main duo the duo must be one colour, any."""
    hand = [n("blue", 5), n("blue", 6), n("orange", 3), n("yellow", 4), n("green", 8)]
    state = build_state([hand, FILLER], [n("pink", 2)], [n("pink", 0)], [n("pink", 1)])
    assert play_starts(state) == [0]  # 56 blue; 63, 34, 48 are mixed


def test_mixed_main_duo_has_no_colour_condition() -> None:
    """RULES.md 4.2 step 3, R12: on a mixed main duo, mixed and same-coloured duos both pass."""
    hand = [n("blue", 5), n("blue", 6), n("orange", 3), n("yellow", 4), n("green", 8)]
    state = build_state([hand, FILLER], [n("pink", 2)], [n("purple", 1)], [n("pink", 1)])
    assert play_starts(state) == [0, 1, 2, 3]


def test_happy_mochi_ignores_both_conditions() -> None:
    """RULES.md 4.2 step 3, R9: a Happy Mochi is legal on 99 under '+', 00 under '-', any colour."""
    mochi = [n("yellow", 3), n("orange", 3)]
    high = build_state([mochi, FILLER], [n("pink", 9)], [n("blue", 9)], [n("pink", 0)])
    assert play_starts(high) == [0]
    assert decision(high).options[0]["happy_mochi"] is True
    low = build_state(
        [mochi, FILLER], [n("pink", 0)], [n("green", 0)], [n("pink", 2)], direction="-"
    )
    assert play_starts(low) == [0]
    same = build_state([mochi, FILLER], [n("pink", 8)], [n("pink", 9)], [n("pink", 2)])
    assert play_starts(same) == [0]


def test_happy_mochi_in_centre_is_mixed() -> None:
    """R9: a played Happy Mochi is the main duo and, being two colours, sets no colour condition."""
    mochi = [n("yellow", 3), n("orange", 3)]
    state = build_state(
        [[*mochi, n("green", 9)], [n("purple", 4), n("blue", 6)]],
        [n("pink", 8)],
        [n("pink", 9)],
        [n("pink", 2)],
    )
    pick(state, "turn", action="play", index=0)
    assert state.view(1)["main_duo"] == {"value": 33, "same_colour": False}
    assert play_starts(state) == [0]  # 46 mixed on 33


def test_leading_zero_values() -> None:
    """R10: '0X' is worth X; '00' is 0."""
    hand = [n("pink", 0), n("yellow", 5), n("pink", 1)]
    state = build_state([hand, FILLER], [n("green", 0)], [n("yellow", 4)], [n("pink", 2)])
    assert [o["value"] for o in decision(state).options if o["action"] == "play"] == [5, 51]
    state = build_state(
        [hand, FILLER], [n("green", 0)], [n("yellow", 4)], [n("pink", 2)], direction="-"
    )
    assert play_starts(state) == []  # 05 and 51 are not below 04


def test_duo_order_cannot_be_swapped() -> None:
    """RULES.md 4.2 step 1, R31: left card = tens; only adjacent pairs, never reversed."""
    tops = ([n("blue", 5)], [n("green", 0)])  # 50
    state = build_state(
        [[n("purple", 3), n("pink", 8)], FILLER], *tops, [n("pink", 2)], direction="-"
    )
    assert play_starts(state) == [0]  # 38 < 50
    state = build_state(
        [[n("pink", 8), n("purple", 3)], FILLER], *tops, [n("pink", 2)], direction="-"
    )
    assert play_starts(state) == []  # 83
    apart = [n("pink", 8), n("blue", 9), n("purple", 3)]  # 3 and 8 are not adjacent
    state = build_state([apart, FILLER], *tops, [n("pink", 2)], direction="-")
    assert play_starts(state) == []


def test_play_places_duo_on_piles_and_closes_hand() -> None:
    """RULES.md 4.2 step 4, R1, R32: L on T, R on U; covered cards stay; the hand closes up."""
    hand = [n("pink", 9), n("blue", 5), n("blue", 6), n("green", 1)]
    state = build_state([hand, FILLER], [n("pink", 2)], [n("purple", 1)], [n("pink", 3)])
    pick(state, "turn", action="play", index=1)
    assert state.hands[0] == [n("pink", 9), n("green", 1)]
    assert state.tens == [n("pink", 2), n("blue", 5)]
    assert state.units == [n("purple", 1), n("blue", 6)]
    (play,) = events(state, 1, "play")
    assert play["cards"] == [n("blue", 5), n("blue", 6)] and play["value"] == 56
    assert decision(state).seat == 1


def test_legality_matches_section_13_pseudocode() -> None:
    """RULES.md 13: the engine's duo test equals the reference pseudocode on random layouts."""
    rng = random.Random(13)
    for _ in range(2000):
        cards = rng.sample(range(CARD_COUNT), 10)
        hand, top_t, top_u = cards[:8], cards[8], cards[9]
        direction = rng.choice((1, -1))
        expected = []
        for i in range(len(hand) - 1):
            left, right = hand[i], hand[i + 1]
            hm = NUMBER[left] == NUMBER[right]
            v = 10 * NUMBER[left] + NUMBER[right]
            m = 10 * NUMBER[top_t] + NUMBER[top_u]
            ok_v = v > m if direction == 1 else v < m
            ok_c = COLOUR[top_t] != COLOUR[top_u] or COLOUR[left] == COLOUR[right]
            if hm or (ok_v and ok_c):
                expected.append(i)
        assert legal_duo_starts(hand, top_t, top_u, direction) == expected


def test_one_card_cannot_play() -> None:
    """RULES.md 4 and R8: with one hand card only draws are offered."""
    state = build_state([[n("pink", 9)], FILLER], [n("pink", 2)], [n("purple", 1)], [n("pink", 3)])
    assert {o["action"] for o in decision(state).options} == {"draw"}


# --- 4.3, R5, R6, R33 -------------------------------------------------------------------


def stuck_layout(hand1: list[int], reserve1: list[int]):
    """Draw pile and covered cards exhausted, both piles single: seat 0 (one card) is stuck."""
    return build_state(
        [[n("pink", 9)], hand1], [n("pink", 2)], [n("purple", 1)], [], [[], reserve1]
    )


def test_r5_stuck_player_passes() -> None:
    """R5: no legal duo and no legal source: the turn is a pass, play moves on."""
    state = stuck_layout([n("blue", 4)], [n("green", 7)])
    assert events(state, 1, "pass") == [{"type": "pass", "seat": 0}]
    assert decision(state).seat == 1 and state.passes == 1


def test_r5_a_pass_hands_the_turn_to_the_left_neighbour() -> None:
    """R5, RULES.md 2 and 4.3: after a pass, play goes on with (active+1) mod n, as after any
    turn (three players, so left and right differ)."""
    state = build_state(
        [[n("pink", 9)], [n("blue", 4)], [n("green", 2)]],
        [n("pink", 2)],
        [n("purple", 1)],
        [],
        [[], [n("green", 7)], [n("yellow", 3)]],
    )
    assert events(state, 2, "pass") == [{"type": "pass", "seat": 0}]
    assert decision(state).seat == 1 and state.passes == 1


def test_r6_draw_resets_pass_count() -> None:
    """R6: any draw or play between passes resets the count."""
    state = stuck_layout([n("blue", 4)], [n("green", 7)])
    pick(state, "turn", action="draw", source="reserve")
    assert state.passes == 0
    pick(state, "insert", index=0)
    assert state.passes == 1  # seat 0 passed again
    assert decision(state).seat == 1 and not events(state, 1, "round_end")


def test_r6_stalemate_round() -> None:
    """R6: n passes in a row end the round with no winner; all score; next starter = starter+1."""
    state = stuck_layout([n("blue", 4)], [])
    (end,) = events(state, 0, "round_end")
    assert end["winner"] is None and end["reason"] == "stalemate"
    assert end["scores"] == [9, 4] and state.totals == [9, 4]
    assert {d.kind for d in state.pending()} == {"round_reserve"}
    pick(state, "round_reserve", who=0, index=0)
    pick(state, "round_reserve", who=1, index=0)
    assert state.round == 2 and state.starter == 1


def test_r6_pass_count_starts_again_each_round() -> None:
    """R6: only consecutive turns of one round count: after a stalemate round (n passes) the
    next round starts with no pass counted, in the state, every seat's view and the position."""
    state = stuck_layout([n("blue", 4)], [])
    assert events(state, 0, "round_end")[0]["reason"] == "stalemate"
    pick(state, "round_reserve", who=0, index=0)
    pick(state, "round_reserve", who=1, index=0)
    assert state.round == 2 and decision(state).kind == "turn"
    assert state.passes == 0
    assert [state.view(seat)["passes"] for seat in (0, 1)] == [0, 0]
    assert state.position()["passes"] == 0


def test_r33_turn_cap_ends_round_as_stalemate() -> None:
    """R33: after max_turns_per_round turns the round ends as a stalemate."""
    state = build_state(
        [[n("pink", 9)], [n("blue", 4)]],
        [n("pink", 2)],
        [n("purple", 1)],
        [n("pink", 3), n("green", 8), n("pink", 8)],
        options={"max_turns_per_round": 2},
    )
    for seat in (0, 1):
        pick(state, "turn", who=seat, action="draw", source="pile")
        pick(state, "insert", index=0)
    (end,) = events(state, 0, "round_end")
    assert end["reason"] == "turn_cap" and end["winner"] is None


def test_r33_turn_cap_counts_the_turns_of_this_round() -> None:
    """R33: max_turns_per_round N allows exactly N turns, counted from each round's start (a
    new game: nobody is stuck, so two draws from the pile are two turns)."""
    state = GAME.new(2, 5, {"max_turns_per_round": 2})
    assert state.turns == 0 and state.view(0)["turn"] == 0
    first = decision(state).seat
    pick(state, "turn", who=first, action="draw", source="pile")
    pick(state, "insert", index=0)
    assert not events(state, 0, "round_end") and state.view(0)["turn"] == 1
    pick(state, "turn", who=1 - first, action="draw", source="pile")
    pick(state, "insert", index=0)
    (end,) = events(state, 0, "round_end")
    assert end["reason"] == "turn_cap"


def test_r33_max_rounds_ends_game() -> None:
    """R33: the game ends after max_rounds rounds with the current totals."""
    state = build_state(
        [[n("blue", 6), n("purple", 6)], [n("blue", 4)]],
        [n("pink", 2)],
        [n("purple", 1)],
        [n("pink", 3)],
        options={"max_rounds": 1},
    )
    pick(state, "turn", action="play", index=0)
    assert state.is_over() and state.end_reason == "max_rounds" and state.totals == [0, 4]


def test_safety_cap_defaults_and_validation() -> None:
    """R33: caps are game options, 1000 turns and 100 rounds by default, validated."""
    assert GAME.resolve_options({}) == {
        "max_turns_per_round": 1000,
        "max_rounds": 100,
        "first_seat": -1,
    }
    for bad in ({"max_rounds": 0}, {"max_turns_per_round": "x"}, {"colour_rule": 1}):
        with pytest.raises(OptionError):
            GAME.resolve_options(bad)
