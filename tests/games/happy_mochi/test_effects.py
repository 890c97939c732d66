"""Card effect scenarios: RULES.md 5.1-5.5, Notes C-E, 12 (D3-D10), R13-R18."""

from __future__ import annotations

from arena.games.happy_mochi import choices as ch
from arena.games.happy_mochi.scenario import build_state

from .helpers import c, decision, events, pick

TOPS = ([c("pink", 0, None)], [c("purple", 1, None)])  # main duo 01, mixed
DRAW = [c("brown", 9, None), c("brown", 8, None), c("brown", 7, None)]
B4, B5, B6 = c("blue", 4, None), c("blue", 5, None), c("blue", 6, None)
Y0, Y2, Y3 = c("yellow", 0, None), c("yellow", 2, None), c("yellow", 3, None)

FLIP = {"pink": 4, "purple": 7, "orange": 9, "yellow": 6}
FORCE = {"pink": 5, "green": 4, "purple": 8}
PASS = {"pink": 6, "orange": 1, "green": 5}
RESERVE = {"pink": 7, "green": 6}


def eff(kind: dict[str, int], colour: str, effect: str) -> int:
    return c(colour, kind[colour], effect)


def start(hands: list[list[int]], **kwargs: object):
    kwargs.setdefault("draw", DRAW)
    return build_state(hands, *TOPS, **kwargs)


# --- 5.1, 5.2 ---------------------------------------------------------------------------


def test_flip_turns_direction_without_decision() -> None:
    """RULES.md 5.2, 12: flip is mandatory and asks nothing."""
    state = start([[B4, eff(FLIP, "pink", "flip"), B6], [Y0]])
    pick(state, "turn", action="play", index=0)
    assert state.direction == -1 and decision(state).kind == "turn" and decision(state).seat == 1
    assert events(state, 1, "effect")[-1] == {
        "type": "effect",
        "seat": 0,
        "effect": "flip",
        "direction": "-",
    }


def test_two_flips_cancel_without_order_question() -> None:
    """RULES.md 5.1 Note C, 5.2, R18: identical effects need no order; two flips cancel."""
    state = start([[eff(FLIP, "purple", "flip"), eff(FLIP, "yellow", "flip"), B4], [Y0]])
    pick(state, "turn", action="play", index=0)
    assert state.direction == 1 and len(events(state, 0, "effect")) == 2
    assert decision(state).kind == "turn"


def test_happy_mochi_triggers_effects() -> None:
    """RULES.md 5.1, R9: a Happy Mochi's effects trigger normally."""
    state = start([[eff(FLIP, "orange", "flip"), c("pink", 9, None), B4], [Y0]])
    pick(state, "turn", action="play", index=0)
    assert state.direction == -1


def test_effect_order_asked_when_effects_differ() -> None:
    """RULES.md 5.1 Note C, D3: the active player orders two different effects."""
    state = start([[eff(FLIP, "pink", "flip"), eff(FORCE, "pink", "force_draw"), B4], [Y0]])
    pick(state, "turn", action="play", index=0)
    d = decision(state)
    assert d.kind == ch.EFFECT_ORDER and d.options == (
        {"first": "L", "effect": "flip"},
        {"first": "R", "effect": "force_draw"},
    )
    pick(state, "effect_order", first="R")
    assert decision(state).kind == ch.FORCE_DRAW_TARGET and state.direction == 1
    pick(state, "force_draw_target", seat=1)
    pick(state, "force_draw_source", source="pile")
    pick(state, "insert", index=0)
    assert state.direction == -1  # the flip resolved second
    assert decision(state).seat == 1 and decision(state).kind == "turn"


def test_effect_order_choice_is_public() -> None:
    """RULES.md 11 (public: the effect order chosen), D3: every seat is told the order."""
    state = start([[eff(FLIP, "pink", "flip"), eff(FORCE, "pink", "force_draw"), B4], [Y0], [Y2]])
    pick(state, "turn", action="play", index=0)
    pick(state, "effect_order", first="R")
    for seat in (0, 1, 2):
        assert events(state, seat, "effect_order") == [
            {"type": "effect_order", "seat": 0, "first": "R"}
        ]


# --- 5.3 force_draw -----------------------------------------------------------------------


def test_force_draw_target_chooses_source_and_position() -> None:
    """RULES.md 5.3 steps 1-2, D4, D5, R14: any seat; the target picks source (own reserve too)."""
    state = start(
        [[eff(FORCE, "green", "force_draw"), B5, B6], [Y0], [Y2]],
        reserves=[[c("orange", 5, None)], [c("orange", 6, None)], []],
    )
    pick(state, "turn", action="play", index=0)
    assert [o["seat"] for o in decision(state).options] == [0, 1, 2]
    pick(state, "force_draw_target", seat=1)
    d = decision(state)
    assert d.seat == 1 and d.kind == ch.FORCE_DRAW_SOURCE
    assert [(o["source"], o.get("card")) for o in d.options] == [
        ("T", c("green", 4)),
        ("U", B5),
        ("pile", None),
        ("reserve", c("orange", 6, None)),
    ]
    assert state.view(1)["force_draw_target"] == 1 and state.view(1)["force_draw_by"] == 0
    pick(state, "force_draw_source", source="reserve")
    pick(state, "insert", who=1, index=1)
    assert state.hands[1] == [Y0, c("orange", 6)] and state.reserves[1] == []
    assert decision(state).seat == 1 and decision(state).kind == "turn"


def test_force_draw_is_a_forced_draw_and_ends_with_the_effect() -> None:
    """README events (``draw``: ``forced``), RULES.md 5.3: the target's draw is marked forced,
    an ordinary draw is not; once the effect is over no target is left in the position."""
    state = start([[eff(FORCE, "green", "force_draw"), B5, B6], [Y0]])
    pick(state, "turn", action="play", index=0)
    pick(state, "force_draw_target", seat=1)
    pick(state, "force_draw_source", source="pile")
    pick(state, "insert", who=1, index=0)
    assert [e["forced"] for e in events(state, 0, "draw")] == [True]
    assert decision(state).seat == 1 and state.position()["target"] is None
    pick(state, "turn", who=1, action="draw", source="pile")
    assert [e["forced"] for e in events(state, 0, "draw")] == [True, False]


def test_force_draw_target_may_take_played_card() -> None:
    """RULES.md 5.3 step 3, Note B: the target may take a card of the duo just played."""
    state = start([[eff(FORCE, "green", "force_draw"), B5, B6], [Y0]])
    pick(state, "turn", action="play", index=0)
    pick(state, "force_draw_target", seat=1)
    pick(state, "force_draw_source", source="T")
    pick(state, "insert", who=1, index=0)
    assert state.hands[1] == [c("green", 4), Y0] and state.tens == TOPS[0]


def test_note_c_take_back_other_card_still_resolves_its_effect() -> None:
    """RULES.md 5.3 step 4, R13 (Note C special case): self-draw the other card, effect remains."""
    fd, res = eff(FORCE, "green", "force_draw"), eff(RESERVE, "green", "reserve")
    state = start([[fd, res, B4, B5], [Y0]])
    pick(state, "turn", action="play", index=0)
    pick(state, "effect_order", first="L")
    pick(state, "force_draw_target", seat=0)
    pick(state, "force_draw_source", source="U", card=res)
    pick(state, "insert", index=2)
    assert state.hands[0] == [B4, B5, res] and state.units == TOPS[1]
    assert state.view(0)["main_duo"]["value"] == 41  # a mix of two plays
    pick(state, "use_reserve", use=True)  # the taken-back card's effect still resolves
    pick(state, "reserve_card", index=0)
    assert state.hands[0] == [B5, res] and state.reserves[0] == [B4]


def test_pending_effect_resolves_after_opponent_takes_its_card() -> None:
    """R13 generalisation: the effect resolves for the active player even if its card moved."""
    fd, flip = eff(FORCE, "pink", "force_draw"), eff(FLIP, "pink", "flip")
    state = start([[fd, flip, B4], [Y0]])
    pick(state, "turn", action="play", index=0)
    pick(state, "effect_order", first="L")
    pick(state, "force_draw_target", seat=1)
    pick(state, "force_draw_source", source="U")
    pick(state, "insert", who=1, index=0)
    assert state.hands[1] == [flip, Y0] and state.direction == -1


def test_two_force_draws_name_targets_separately() -> None:
    """R18: two force_draws: two targets named, possibly different."""
    state = start([[eff(FORCE, "pink", "force_draw"), eff(FORCE, "green", "force_draw"), B4], [Y0]])
    pick(state, "turn", action="play", index=0)
    pick(state, "force_draw_target", seat=0)
    pick(state, "force_draw_source", source="pile")
    pick(state, "insert", index=0)
    pick(state, "force_draw_target", seat=1)
    pick(state, "force_draw_source", source="pile")
    pick(state, "insert", who=1, index=0)
    assert [len(h) for h in state.hands] == [2, 2]


def test_force_draw_on_empty_hand_opponent_round_ends() -> None:
    """R15, 4.3: after emptying your hand, naming an opponent still ends the round."""
    state = start([[eff(FORCE, "pink", "force_draw"), B4], [Y0]])
    pick(state, "turn", action="play", index=0)
    pick(state, "force_draw_target", seat=1)
    pick(state, "force_draw_source", source="pile")
    pick(state, "insert", who=1, index=0)
    (end,) = events(state, 0, "round_end")
    assert end["winner"] == 0 and end["scores"] == [0, 9]


def test_force_draw_on_empty_hand_self_round_goes_on() -> None:
    """R15, 4.3: naming yourself refills the hand and the round goes on."""
    state = start([[eff(FORCE, "pink", "force_draw"), B4], [Y0]])
    pick(state, "turn", action="play", index=0)
    pick(state, "force_draw_target", seat=0)
    pick(state, "force_draw_source", source="pile")
    pick(state, "insert", index=0)
    assert not events(state, 0, "round_end") and decision(state).seat == 1


def test_force_draw_without_legal_source_does_nothing() -> None:
    """RULES.md 5.3 step 5, R4: a target without legal source draws nothing.

    Right after a play both piles hold two cards, so this guard is unreachable through play;
    the piles are emptied by hand to exercise it.
    """
    fd, flip = eff(FORCE, "pink", "force_draw"), eff(FLIP, "pink", "flip")
    state = start([[fd, flip, B4], [Y0]], draw=[])
    pick(state, "turn", action="play", index=0)
    del state.tens[:-1], state.units[:-1]
    pick(state, "effect_order", first="L")
    pick(state, "force_draw_target", seat=1)
    assert events(state, 0, "force_draw_skipped") == [{"type": "force_draw_skipped", "target": 1}]
    assert state.hands[1] == [Y0] and state.direction == -1
    # the turn went on (the flip, then both seats stuck: a stalemate), nothing asked of seat 1
    assert [(d.seat, d.kind) for d in state.pending()] == [
        (0, "round_reserve"),
        (1, "round_reserve"),
    ]


# --- 5.4 pass_left ----------------------------------------------------------------------


def test_pass_left_simultaneous_three_players() -> None:
    """RULES.md 5.4 steps 1-6, D6-D8, R16: secret simultaneous picks, cards go to (i+1) mod n."""
    hands = [
        [eff(PASS, "pink", "pass_left"), c("pink", 8), B4, B5, B6],
        [Y0, Y2],
        [Y3, c("orange", 4)],
    ]
    state = start(hands)
    pick(state, "turn", action="play", index=0)
    assert decision(state).kind == ch.USE_PASS_LEFT
    assert decision(state).options == ({"use": True}, {"use": False})
    pick(state, "use_pass_left", use=True)
    assert sorted(d.seat for d in state.pending()) == [0, 1, 2]
    assert {d.kind for d in state.pending()} == {ch.PASS_CARD}
    cursor = state.events_since(1, 0)[1]
    pick(state, "pass_card", who=2, index=1)
    pick(state, "pass_card", who=0, index=2)
    assert state.events_since(1, cursor)[0] == []  # nothing revealed before all have chosen
    assert [d.seat for d in state.pending()] == [1]
    pick(state, "pass_card", who=1, index=0)
    (ev,) = events(state, 1, "pass_left")
    assert ev == {"type": "pass_left", "indices": [2, 0, 1], "gave": Y0, "received": B6}
    assert events(state, 2, "pass_left")[0]["received"] == Y0
    assert state.hands == [[B4, B5], [Y2], [Y3]]
    assert state.holding == [c("orange", 4), B6, Y0]
    assert {d.kind for d in state.pending()} == {ch.INSERT_RECEIVED}
    assert [len(d.options) for d in state.pending()] == [3, 2, 2]
    pick(state, "insert_received", who=1, index=1)
    pick(state, "insert_received", who=0, index=0)
    pick(state, "insert_received", who=2, index=0)
    assert state.hands == [[c("orange", 4), B4, B5], [Y2, B6], [Y0, Y3]]
    assert decision(state).seat == 1 and decision(state).kind == "turn"


def test_pass_left_two_players_exchange() -> None:
    """RULES.md 5.4 step 4: with two players they swap one card each."""
    state = start([[eff(PASS, "pink", "pass_left"), B4, B5, B6], [Y0, Y2]])
    pick(state, "turn", action="play", index=0)
    pick(state, "use_pass_left", use=True)
    pick(state, "pass_card", who=0, index=0)
    pick(state, "pass_card", who=1, index=1)
    pick(state, "insert_received", who=0, index=0)
    pick(state, "insert_received", who=1, index=0)
    assert state.hands == [[Y2, B6], [B5, Y0]]


def test_pass_left_declined() -> None:
    """RULES.md 5.4 step 1: optional; declining changes nothing."""
    state = start([[eff(PASS, "pink", "pass_left"), B4, B5, B6], [Y0, Y2]])
    pick(state, "turn", action="play", index=0)
    pick(state, "use_pass_left", use=False)
    assert state.hands == [[B5, B6], [Y0, Y2]] and decision(state).seat == 1


def test_pass_left_impossible_with_empty_hand() -> None:
    """RULES.md 5.4 step 2 (Note D): not offered when the active hand is empty."""
    state = start([[eff(PASS, "pink", "pass_left"), B4], [Y0, Y2]])
    pick(state, "turn", action="play", index=0)
    ev = events(state, 1, "effect")[-1]
    assert ev["effect"] == "pass_left" and ev["usable"] is False
    assert events(state, 1, "round_end")[0]["winner"] == 0


def test_pass_left_usable_after_self_force_draw() -> None:
    """RULES.md 5.4 step 2: a card gained earlier in the turn makes pass_left usable."""
    state = start([[eff(FORCE, "pink", "force_draw"), eff(PASS, "pink", "pass_left")], [Y0, Y2]])
    pick(state, "turn", action="play", index=0)
    pick(state, "effect_order", first="L")
    pick(state, "force_draw_target", seat=0)
    pick(state, "force_draw_source", source="pile")
    pick(state, "insert", index=0)
    assert decision(state).kind == ch.USE_PASS_LEFT


def test_two_pass_lefts_offered_separately() -> None:
    """R18: two pass_left effects are each offered."""
    state = start([[eff(PASS, "pink", "pass_left"), eff(PASS, "orange", "pass_left"), B4], [Y0]])
    pick(state, "turn", action="play", index=0)
    pick(state, "use_pass_left", use=False)
    assert decision(state).kind == ch.USE_PASS_LEFT


# --- 5.5 reserve --------------------------------------------------------------------------


def test_reserve_effect_moves_chosen_card_face_down() -> None:
    """RULES.md 5.5, D9, D10: optional; any hand card goes to the reserve."""
    state = start([[eff(RESERVE, "pink", "reserve"), c("pink", 8, None), B4, B5], [Y0]])
    pick(state, "turn", action="play", index=0)
    assert decision(state).options == ({"use": True}, {"use": False})
    pick(state, "use_reserve", use=True)
    assert decision(state).options == ({"index": 0, "card": B4}, {"index": 1, "card": B5})
    pick(state, "reserve_card", index=1)
    assert state.hands[0] == [B4] and state.reserves[0] == [B5]
    assert state.view(1)["reserve_sizes"] == [1, 0]
    (ev,) = events(state, 1, "reserve")
    assert ev == {"type": "reserve", "seat": 0, "index": 1}
    assert events(state, 0, "reserve")[0]["card"] == B5


def test_reserve_last_card_ends_round() -> None:
    """RULES.md 5.5 step 4 (Note E), R17: reserving the last card empties the hand: round won."""
    state = start([[eff(RESERVE, "pink", "reserve"), c("pink", 8, None), B4], [Y0]])
    pick(state, "turn", action="play", index=0)
    pick(state, "use_reserve", use=True)
    pick(state, "reserve_card", index=0)
    (end,) = events(state, 1, "round_end")
    assert end["winner"] == 0 and state.reserves[0] == [B4]


def test_reserved_card_drawn_back_same_round() -> None:
    """R17: a card reserved by the effect can be drawn back later in the same round."""
    state = start([[eff(RESERVE, "pink", "reserve"), c("pink", 8, None), B4, B5], [Y0]])
    pick(state, "turn", action="play", index=0)
    pick(state, "use_reserve", use=True)
    pick(state, "reserve_card", index=0)
    pick(state, "turn", who=1, action="draw", source="pile")
    pick(state, "insert", who=1, index=0)
    pick(state, "turn", who=0, action="draw", source="reserve", card=B4)
    pick(state, "insert", index=0)
    assert state.hands[0] == [B4, B5] and state.reserves[0] == []


def test_reserve_not_offered_with_empty_hand() -> None:
    """RULES.md 5.5 step 3: reserve needs a hand card."""
    state = start([[eff(RESERVE, "pink", "reserve"), c("pink", 8, None)], [Y0]])
    pick(state, "turn", action="play", index=0)
    assert events(state, 1, "effect")[-1]["usable"] is False
    assert events(state, 1, "round_end")[0]["winner"] == 0
