"""Hidden information scenarios: RULES.md 11 (who sees which card), R29, R35."""

from __future__ import annotations

from arena.games.happy_mochi import GAME
from arena.games.happy_mochi.cards import EFFECT, EFFECTS
from arena.games.happy_mochi.scenario import build_state

from .helpers import c, events, pick

TOPS = ([c("pink", 0, None)], [c("purple", 1, None)])
B4, B5, Y0, Y2 = c("blue", 4), c("blue", 5), c("yellow", 0), c("yellow", 2)


def test_deal_is_private() -> None:
    """RULES.md 11: each seat sees only its own dealt hand; tops and sizes are public."""
    state = GAME.new(3, 4)
    for seat in range(3):
        (start,) = events(state, seat, "round_start")
        assert start["hand"] == state.hands[seat]
        assert start["T"] == state.tens and start["hand_sizes"] == [7, 7, 7]


def test_pile_and_reserve_draws_are_private_main_duo_draws_public() -> None:
    """RULES.md 11: identity of own pile/reserve draws is private; a main-duo card is public."""
    state = build_state([[B4], [Y0]], *TOPS, [c("green", 2), c("green", 3)], [[], [c("green", 8)]])
    pick(state, "turn", action="draw", source="pile")
    assert "holding" in state.view(0) and "holding" not in state.view(1)
    pick(state, "insert", index=1)
    assert events(state, 0, "draw")[-1]["card"] == c("green", 2)
    assert "card" not in events(state, 1, "draw")[-1]
    assert events(state, 1, "insert")[-1] == {"type": "insert", "seat": 0, "index": 1}
    pick(state, "turn", who=1, action="draw", source="reserve")
    assert "card" not in events(state, 0, "draw")[-1]
    assert events(state, 1, "draw")[-1]["card"] == c("green", 8)
    pick(state, "insert", who=1, index=0)
    pick(state, "turn", who=0, action="draw", source="T")
    assert events(state, 1, "draw")[-1]["card"] == TOPS[0][0]


def test_pass_left_cards_known_only_to_giver_and_receiver() -> None:
    """RULES.md 11, R35: indices are public; a passed card is known to its giver and receiver."""
    pass_left = c("pink", 6, "pass_left")
    hands = [[pass_left, c("pink", 8), B4, B5], [Y0, Y2], [c("yellow", 3)]]
    state = build_state(hands, *TOPS, [c("green", 2)])
    pick(state, "turn", action="play", index=0)
    pick(state, "use_pass_left", use=True)
    for seat, index in ((0, 0), (1, 1), (2, 0)):
        pick(state, "pass_card", who=seat, index=index)
    seen = {seat: events(state, seat, "pass_left")[0] for seat in range(3)}
    assert seen[0] == {
        "type": "pass_left",
        "indices": [0, 1, 0],
        "gave": B4,
        "received": c("yellow", 3),
    }
    assert seen[1]["received"] == B4 and seen[1]["gave"] == Y2
    assert B4 not in (seen[2]["gave"], seen[2]["received"])


def test_reserved_card_private_index_public() -> None:
    """RULES.md 11: the reserve effect's card stays private; only its index is public."""
    reserve = c("pink", 7, "reserve")
    state = build_state([[reserve, c("pink", 8), B4, B5], [Y0]], *TOPS, [c("green", 2)])
    pick(state, "turn", action="play", index=0)
    pick(state, "use_reserve", use=True)
    pick(state, "reserve_card", index=0)
    assert events(state, 1, "reserve") == [{"type": "reserve", "seat": 0, "index": 0}]
    assert state.view(1)["reserve_sizes"] == [1, 0] and state.view(1)["reserve"] == []
    assert state.view(0)["reserve"] == [B4]


def test_effect_ids_are_the_four_rulebook_effects() -> None:
    """RULES.md 1, R29: four effects, whatever glyph the rulebook prints; 7 cards each."""
    assert set(EFFECT) == {None, *EFFECTS}
    assert all(EFFECT.count(effect) == 7 for effect in EFFECTS)
