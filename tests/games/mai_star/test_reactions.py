"""Reactions: Ronin from the guest row, District Kanryou from hand (RULES.md 9; R2, R12-R16)."""

from __future__ import annotations

from .helpers import answer, arranged, events_of, hand, ids, kind, options_of

GEISHAS3 = ["Oboro", "Momiji", "Natsumi"]
DECK = ["scholar_green", "scholar_green", "yakuza_green", "yakuza_green"]


def _thief_on(target: int, **kwargs):
    st = arranged(GEISHAS3, deck=DECK, **kwargs)
    answer(st, "action", action="guest", card="thief_red")
    answer(st, "effect", action="target", target=target)
    return st


def test_ronin_holder_asked_when_targeted_and_can_cancel() -> None:
    """RULES.md 9: the target discards a Ronin from its guest row; the effect is cancelled."""
    st = _thief_on(
        1, hands={0: ["thief_red", "actor_blue"]}, guests={1: ["ronin_blue", "samurai_red"]}
    )
    decision = st.pending()[0]
    assert decision.seat == 1 and decision.kind == "reaction"
    assert list(decision.options) == [
        {"action": "decline"},
        {"action": "ronin", "position": 0, "card": "ronin_blue"},
    ]
    assert st.view(1)["reaction_to"] == {
        "seat": 0,
        "card": "thief_red",
        "target": 1,
        "resolution": 1,
    }
    assert "reaction_to" not in st.view(0) and "reaction_to" not in st.view(2)
    answer(st, "reaction", action="ronin")
    assert ids(st.seats[1].guests) == ["samurai_red"]  # Thief cancelled, Ronin spent
    assert ids(st.discard[-1:]) == ["ronin_blue"]
    assert st.active == 1


def test_declining_lets_the_effect_happen() -> None:
    """RULES.md 9: reactions are never forced."""
    st = _thief_on(
        1, hands={0: ["thief_red", "actor_blue"]}, guests={1: ["samurai_red", "ronin_blue"]}
    )
    answer(st, "reaction", action="decline")
    assert ids(st.seats[1].guests) == ["samurai_red"]  # the Ronin was the newest guest
    assert {"type": "reaction", "seat": 1, "action": "none"} in events_of(st, 2)


def test_several_ronins_choose_which() -> None:
    """RULES.md R14: one reaction per resolution; the target picks which Ronin."""
    st = _thief_on(
        1,
        hands={0: ["thief_red", "actor_blue"]},
        guests={1: ["ronin_blue", "samurai_red", "ronin_red"]},
    )
    assert [o.get("position") for o in options_of(st)] == [None, 0, 2]
    answer(st, "reaction", action="ronin", position=0)
    assert ids(st.seats[1].guests) == ["samurai_red", "ronin_red"]
    assert st.active == 1  # no second reaction prompt


def test_kanryou_from_hand_cancels() -> None:
    """RULES.md 9, card District Kanryou: discard it from hand to cancel."""
    st = _thief_on(
        2,
        hands={0: ["thief_red", "actor_blue"], 2: ["district_kanryou_black", "actor_red"]},
        guests={2: ["samurai_red"]},
    )
    assert st.pending()[0].seat == 2
    answer(st, "reaction", action="kanryou")
    assert ids(st.seats[2].guests) == ["samurai_red"] and hand(st, 2) == ["actor_red"]
    reaction = [e for e in events_of(st, 1) if e["type"] == "reaction"]
    assert reaction == [
        {"type": "reaction", "seat": 2, "action": "kanryou", "card": "district_kanryou_black"}
    ]


def test_kanryou_as_last_card_ends_the_round() -> None:
    """RULES.md 9, R2: a reaction emptying the reactor's hand ends the round after the turn."""
    st = _thief_on(2, hands={0: ["thief_red", "actor_blue"], 2: ["district_kanryou_black"]})
    answer(st, "reaction", action="kanryou")
    ends = [e for e in events_of(st, 0) if e["type"] == "round_end"]
    assert ends == [{"type": "round_end", "round": 1, "reason": "empty_hand"}]


def test_no_reaction_to_own_effect() -> None:
    """RULES.md 9, R11: effects aimed at yourself cannot be reacted to."""
    st = _thief_on(0, hands={0: ["thief_red", "district_kanryou_black"]}, guests={0: ["ronin_red"]})
    assert ids(st.seats[0].guests) == ["ronin_red"] and st.active == 1


def test_non_targeted_holders_never_asked() -> None:
    """RULES.md 9: only the targeted player may react; others are never offered a reaction."""
    st = _thief_on(
        1,
        hands={0: ["thief_red", "actor_blue"], 2: ["district_kanryou_black", "actor_red"]},
        guests={2: ["ronin_red"], 1: ["samurai_red"]},
    )
    assert ids(st.seats[1].guests) == [] and st.active == 1  # resolved at once
    assert ids(st.seats[2].guests) == ["ronin_red"] and "district_kanryou_black" in hand(st, 2)


def test_ronin_in_hand_or_advertisers_and_kanryou_in_a_row_do_nothing() -> None:
    """RULES.md 9: only a guest-row Ronin and a hand Kanryou react."""
    st = _thief_on(
        1,
        hands={0: ["thief_red", "actor_blue"], 1: ["ronin_red", "actor_red"]},
        guests={1: ["samurai_red", "district_kanryou_black"]},
        ads={1: ["ronin_blue"]},
    )
    assert st.active == 1 and ids(st.seats[1].guests) == ["samurai_red"]


def test_reaction_to_harmless_effect_allowed() -> None:
    """RULES.md R13: the window opens even if the effect would change nothing."""
    st = _thief_on(1, hands={0: ["thief_red", "actor_blue"]}, guests={1: ["ronin_red"]})
    assert kind(st) == "reaction"
    st = arranged(
        GEISHAS3, hands={0: ["scholar_red", "actor_blue"]}, guests={2: ["ronin_green"]}, deck=DECK
    )
    answer(st, "action", action="guest", card="scholar_red")
    answer(st, "effect", action="target", target=2)
    assert kind(st) == "reaction" and st.pending()[0].seat == 2


def test_cancelled_sumo_reveals_nothing() -> None:
    """RULES.md R12: the reaction comes before any part of the effect (no look)."""
    st = arranged(
        GEISHAS3,
        hands={0: ["sumo_wrestler_red", "actor_blue"], 1: ["district_kanryou_black", "thief_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="sumo_wrestler_red")
    answer(st, "effect", action="target", target=1)
    assert not [e for e in events_of(st, 0) if e["type"] == "look"]
    answer(st, "reaction", action="kanryou")
    assert not [e for e in events_of(st, 0) if e["type"] == "look"]
    assert hand(st, 1) == ["thief_red"]


def test_momiji_double_each_resolution_reacted_separately() -> None:
    """RULES.md 9, R15: let the first happen, cancel the second; the second stays 'used'."""
    st = arranged(
        ["Momiji", "Oboro", "Natsumi"],
        hands={0: ["thief_red", "actor_blue"]},
        guests={1: ["ronin_red", "samurai_red", "ronin_blue", "actor_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="thief_red")
    answer(st, "effect", action="target", target=1)
    answer(st, "reaction", action="decline")
    assert ids(st.seats[1].guests) == ["ronin_red", "samurai_red", "ronin_blue"]
    answer(st, "momiji", action="target", target=1)
    assert st.view(1)["reaction_to"]["resolution"] == 2
    answer(st, "reaction", action="ronin", position=2)
    assert ids(st.seats[1].guests) == ["ronin_red", "samurai_red"]


def test_cancelled_first_resolution_still_allows_momiji() -> None:
    """RULES.md R15: a cancelled resolution still counts as used for Momiji."""
    st = arranged(
        ["Momiji", "Oboro", "Natsumi"],
        hands={0: ["thief_red", "actor_blue"]},
        guests={1: ["ronin_red", "samurai_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="thief_red")
    answer(st, "effect", action="target", target=1)
    answer(st, "reaction", action="ronin")
    assert kind(st) == "momiji"
    answer(st, "momiji", action="target", target=1)
    assert ids(st.seats[1].guests) == []


def test_taken_ronin_protects_new_owner() -> None:
    """RULES.md 9: a Ronin taken by a Samurai protects the Samurai's owner."""
    st = arranged(
        GEISHAS3,
        hands={0: ["samurai_red", "actor_blue"], 1: ["thief_red", "actor_red"]},
        ads={0: ["okaasan_red", "okaasan_red"]},
        guests={2: ["ronin_green"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="samurai_red")
    answer(st, "effect", action="target", target=2)
    answer(st, "reaction", action="decline")
    assert ids(st.seats[0].guests) == ["samurai_red", "ronin_green"]
    answer(st, "action", action="guest", card="thief_red")  # seat 1 (Momiji)
    answer(st, "effect", action="target", target=0)
    assert st.pending()[0].seat == 0 and kind(st) == "reaction"


def test_reaction_is_not_a_turn() -> None:
    """RULES.md R16: a reaction does not trigger end-of-turn checks by itself."""
    st = _thief_on(
        1, hands={0: ["thief_red", "merchant_red", "actor_blue"]}, guests={1: ["ronin_blue"]}
    )
    turns = len([e for e in events_of(st, 0) if e["type"] == "turn"])
    answer(st, "reaction", action="ronin")
    assert len([e for e in events_of(st, 0) if e["type"] == "turn"]) == turns + 1  # seat 1's
