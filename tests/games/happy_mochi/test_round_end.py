"""Round end, game end and the rulebook examples: RULES.md 6, 7, 8, 11 (round end), D11,
R19-R23, R28, R36."""

from __future__ import annotations

from arena.games.happy_mochi import choices as ch
from arena.games.happy_mochi.cards import COLOURS, EFFECT, card_id
from arena.games.happy_mochi.scenario import build_state

from .helpers import assert_conserved, c, decision, events, pick

TOPS = ([c("pink", 0, None)], [c("purple", 1, None)])  # main duo 01, mixed
MOCHI = [c("blue", 6, None), c("purple", 6, None)]  # a Happy Mochi without effects


def win_round(hands: list[list[int]], active: int = 0, **kwargs: object):
    """``active`` holds only MOCHI and plays it: the round ends with ``active`` as winner."""
    hands[active] = MOCHI
    state = build_state(hands, *TOPS, [c("brown", 7, None)], active=active, **kwargs)
    pick(state, "turn", action="play", index=0)
    return state


def test_round_scoring_counts_hand_cards_only() -> None:
    """RULES.md 6 step 1, R20, R23: winner 0; others sum their hands; reserves never count."""
    hand1 = [c("pink", 3), c("green", 7), c("pink", 2)]  # the rulebook's 3 + 7 + 2 = 12
    zeros = [c("yellow", 0), c("green", 0)]
    state = win_round([[], hand1, zeros], reserves=[[c("pink", 9)], [], [c("blue", 9)]])
    (end,) = events(state, 2, "round_end")
    assert end["winner"] == 0 and end["reason"] == "out_of_cards"
    assert end["scores"] == [0, 12, 0] and end["totals"] == [0, 12, 0]
    assert end["hand_sizes"] == [0, 3, 2]
    assert state.round_winners == [0]  # the seat with only zeros scored 0 but did not win


def test_round_end_reserve_mandatory_and_simultaneous() -> None:
    """RULES.md 6 step 3, D11, R21, R22: each player with cards must reserve exactly one."""
    hand1 = [c("pink", 3), c("green", 7), c("pink", 2)]
    state = win_round([[], hand1, [c("yellow", 0)]])
    pending = state.pending()
    assert [(d.seat, d.kind) for d in pending] == [(1, ch.ROUND_RESERVE), (2, ch.ROUND_RESERVE)]
    assert pending[0].options == tuple({"index": i, "card": x} for i, x in enumerate(hand1))
    cursor = state.events_since(0, 0)[1]
    pick(state, "round_reserve", who=1, index=1)
    assert state.events_since(0, cursor)[0] == []  # buffered until all have chosen
    pick(state, "round_reserve", who=2, index=0)
    public = [e for e in state.events_since(0, cursor)[0] if e["type"] == "round_reserve"]
    assert public == [
        {"type": "round_reserve", "seat": 1, "index": 1},
        {"type": "round_reserve", "seat": 2, "index": 0},
    ]
    assert events(state, 1, "round_reserve")[0]["card"] == c("green", 7)
    assert state.reserves[1] == [c("green", 7)]
    assert state.totals == [0, 12, 0]  # R21: the reserved 7 was counted


def test_round_end_hides_hands() -> None:
    """RULES.md 11 (at round end): only scores and hand sizes are announced."""
    state = win_round([[], [c("pink", 3)], [c("yellow", 0)]])
    (end,) = events(state, 0, "round_end")
    assert set(end) == {"type", "round", "winner", "reason", "scores", "hand_sizes", "totals"}


def test_discarded_cards_return_to_next_deal() -> None:
    """RULES.md 6 step 4, 7, 3.2 step 3: every unreserved card is reshuffled and dealt."""
    state = win_round([[], [c("pink", 3), c("pink", 2)]], reserves=[[c("blue", 9)], []])
    pick(state, "round_reserve", who=1, index=0)
    assert state.round == 2 and decision(state).kind == "turn"
    assert state.reserves == [[c("blue", 9)], [c("pink", 3)]]
    assert_conserved(state)


def test_effects_resolve_before_round_ends() -> None:
    """RULES.md 4.3, R19: the round ends at the end of the turn, after the effects."""
    flip = c("pink", 4, "flip")
    state = build_state([[flip, c("pink", 8, None)], [c("yellow", 0)]], *TOPS, [c("brown", 7)])
    pick(state, "turn", action="play", index=0)
    assert state.direction == -1 and events(state, 0, "round_end")[0]["winner"] == 0


def test_game_ends_at_thirty() -> None:
    """RULES.md 8, 6 step 2: 30 or more minus points ends the game; no end-of-round reserve."""
    state = win_round([[], [c("pink", 3), c("pink", 2)]], totals=[0, 25])
    assert state.is_over() and state.end_reason == "threshold" and state.totals == [0, 30]
    assert not state.pending() and not events(state, 1, "round_reserve")
    (end,) = events(state, 1, "game_end")
    assert end["ranks"] == [0, 1] and end["totals"] == [0, 30]


def test_game_goes_on_below_thirty() -> None:
    """RULES.md 8: 29 minus points do not end the game."""
    state = win_round([[], [c("pink", 3), c("pink", 1)]], totals=[0, 25])
    assert not state.is_over() and decision(state).kind == ch.ROUND_RESERVE


def test_ties_share_rank() -> None:
    """RULES.md 8, R28: equal totals share the win / rank; the next rank is skipped."""
    state = win_round(
        [[c("pink", 2)], [c("pink", 3), c("pink", 9)], []], active=2, totals=[0, 20, 2]
    )
    outcome = state.outcome()
    assert state.totals == [2, 32, 2]
    assert outcome.ranks == (0, 2, 0) and outcome.scores == (-2.0, -32.0, -2.0)


def test_rulebook_score_sheet_example() -> None:
    """RULES.md 8 example: Sophia 31, Ben 20, Vero 28 after three rounds: Ben wins."""
    sophia = [c("pink", 9), c("blue", 9), c("green", 1)]  # 19
    vero = [c("brown", 9), c("orange", 8), c("yellow", 6)]  # 23
    state = build_state(
        [sophia, MOCHI, vero], *TOPS, [c("brown", 7)], active=1, totals=[12, 20, 5], round_number=3
    )
    state.round_scores = [[12, 4, 0], [0, 16, 5]]
    state.round_winners = [2, 0]
    pick(state, "turn", action="play", index=0)
    outcome = state.outcome()
    assert state.is_over() and state.totals == [31, 20, 28]
    assert outcome.ranks == (2, 0, 1) and outcome.scores == (-31.0, -20.0, -28.0)
    assert outcome.details["round_scores"] == [[12, 4, 0], [0, 16, 5], [19, 0, 23]]
    assert outcome.details["round_winners"] == [2, 0, 1]


def test_rulebook_example_round_with_real_cards() -> None:
    """R36: the example round (direction '-', main duo 68) with card ids from cards.json."""
    fitting = [
        colour
        for colour in COLOURS
        if "force_draw" in (EFFECT[card_id(5, colour)], EFFECT[card_id(7, colour)])
    ]
    assert fitting == ["pink", "yellow"]
    for colour in fitting:
        assert "flip" not in (EFFECT[card_id(5, colour)], EFFECT[card_id(7, colour)])
    sophia = [c("pink", 5, "force_draw"), c("pink", 7, "reserve"), c("green", 8), c("blue", 4)]
    ben = [c("blue", 9), c("green", 3), c("orange", 8), c("brown", 1)]
    vero = [c("purple", 4, None), c("purple", 6, None), c("yellow", 1), c("green", 1)]
    state = build_state(
        [sophia, ben, vero],
        [c("orange", 6, None)],
        [c("brown", 8, None)],
        [c("pink", 2), c("pink", 3)],
        direction="-",
    )
    # Sophia plays the same-coloured 57 and draws herself a card from the pile.
    pick(state, "turn", action="play", index=0)
    pick(state, "effect_order", first="L")
    pick(state, "force_draw_target", seat=0)
    pick(state, "force_draw_source", source="pile")
    pick(state, "insert", index=2)
    pick(state, "use_reserve", use=False)  # reserve is optional; she may skip it
    # Ben faces a same-coloured 57 under '-': no smaller same-coloured duo, no Happy Mochi.
    assert state.view(1)["main_duo"] == {"value": 57, "same_colour": True}
    assert {o["action"] for o in decision(state).options} == {"draw"}
    pick(state, "turn", who=1, action="draw", source="pile")
    pick(state, "insert", who=1, index=0)
    # Vero may play her purple 46 or her Happy Mochi 11; she plays 46, nothing else happens.
    plays = [o for o in decision(state).options if o["action"] == "play"]
    assert [(o["index"], o["value"], o["happy_mochi"]) for o in plays] == [
        (0, 46, False),
        (2, 11, True),
    ]
    pick(state, "turn", who=2, action="play", index=0)
    assert decision(state).seat == 0 and decision(state).kind == "turn"
    assert state.hands[2] == [c("yellow", 1), c("green", 1)]
