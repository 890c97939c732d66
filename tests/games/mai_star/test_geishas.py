"""Every geisha ability (RULES.md section 10; R10, R19, R21, R22, R30-R35)."""

from __future__ import annotations

from .helpers import answer, arranged, events_of, hand, has_option, ids, kind, options_of

DECK = ["scholar_green", "scholar_green", "yakuza_green", "yakuza_green", "thief_green"]


# ----- Akenohoshi ---------------------------------------------------------------------------


def test_akenohoshi_boost_for_this_turn_only() -> None:
    """RULES.md 10 Akenohoshi, R30: +3 in one skill until the end of the turn."""
    st = arranged(
        ["Akenohoshi", "Momiji", "Natsumi"], hands={0: ["thief_red", "doctor_red"]}, deck=DECK
    )
    assert kind(st) == "pre_action"
    assert not has_option(st, action="advertise")
    assert not has_option(st, action="guest")  # 3 performance < 4
    answer(st, "pre_action", action="boost", colour="red")
    assert st.reputation(0) == [6, 3, 3]
    assert st.view(1)["turn_flags"]["boost"] == "red"
    assert has_option(st, action="guest", card="thief_red")
    assert not has_option(st, action="guest", card="doctor_red")
    answer(st, "action", action="guest", card="thief_red")
    answer(st, "effect", action="decline")
    assert st.reputation(0) == [3, 3, 3] and st.active == 1
    assert st.akenohoshi_used


def test_akenohoshi_boost_is_gone_when_the_game_ends_on_her_turn() -> None:
    """RULES.md 10 Akenohoshi, R30: the boost lasts until the end of the turn, also when that
    turn ends the game: the final position and views hold no boost."""
    st = arranged(["Akenohoshi", "Momiji", "Natsumi"], hands={0: ["thief_red"]}, deck=DECK, rnd=3)
    answer(st, "pre_action", action="boost", colour="red")
    answer(st, "action", action="guest", card="thief_red")
    answer(st, "effect", action="decline")
    assert st.is_over() and st.position()["turn"]["boost"] is None
    base = {"performance": 3, "service": 3, "intelligence": 3}  # Akenohoshi's, no advertisers
    assert all(st.view(seat)["tables"][0]["reputation"] == base for seat in range(3))


def test_akenohoshi_once_per_round() -> None:
    """RULES.md 10: once per round; it refreshes in the next round (13.3)."""
    st = arranged(
        ["Akenohoshi", "Momiji", "Natsumi"], hands={0: ["thief_red", "doctor_red"]}, deck=DECK
    )
    answer(st, "pre_action", action="boost", colour="green")
    answer(st, "action", action="search")
    for _ in range(2):  # seats 1 and 2 search
        answer(st, "action", action="search")
    assert st.active == 0 and kind(st) == "action"  # no pre-action prompt any more
    st.akenohoshi_used = True
    st.stack = [("start_round", 2)]
    st.decision = None
    st.advance()
    assert not st.akenohoshi_used


def test_akenohoshi_boost_before_courtier_choice() -> None:
    """RULES.md 10, D11: she may boost just before choosing a Courtier's extra guest."""
    st = arranged(
        ["Akenohoshi", "Momiji", "Natsumi"],
        hands={0: ["courtier_blue", "emissary_blue", "thief_red"]},
        deck=DECK,
    )
    answer(st, "pre_action", action="proceed")
    answer(st, "action", action="guest", card="courtier_blue")
    assert kind(st) == "akenohoshi_courtier"
    answer(st, "akenohoshi_courtier", action="boost", colour="blue")
    assert options_of(st) == [{"action": "decline"}, {"action": "guest", "card": "emissary_blue"}]
    answer(st, "effect", action="guest", card="emissary_blue")
    answer(st, "effect", action="decline")
    assert ids(st.seats[0].guests) == ["courtier_blue", "emissary_blue"]


def test_akenohoshi_boost_counts_for_black_cards() -> None:
    """RULES.md 10, R30: the boost counts for Monk/Shogun 'any skill' checks."""
    st = arranged(
        ["Akenohoshi", "Momiji", "Natsumi"],
        hands={0: ["monk_black", "thief_red"]},
        ads={0: ["okaasan_green", "okaasan_green"]},
        deck=DECK,
    )  # intelligence 7
    answer(st, "pre_action", action="boost", colour="green")
    assert has_option(st, action="guest", card="monk_black")


# ----- Harukaze -----------------------------------------------------------------------------


def test_harukaze_draws_three_and_returns_two_under_the_deck() -> None:
    """RULES.md 10 Harukaze, R31: first chosen goes to the very bottom, second just above."""
    st = arranged(
        ["Harukaze", "Momiji", "Natsumi"],
        hands={0: ["thief_red", "actor_blue"]},
        deck=["scholar_red", "yakuza_red", "merchant_red", "doctor_red"],
    )
    answer(st, "action", action="advertise", card="thief_red")
    assert hand(st, 0) == ["actor_blue", "merchant_red", "scholar_red", "yakuza_red"]
    answer(st, "harukaze_bottom_first", card="scholar_red")
    answer(st, "harukaze_bottom_second", card="actor_blue")
    assert ids(st.deck) == ["scholar_red", "actor_blue", "doctor_red"]  # bottom first
    assert hand(st, 0) == ["merchant_red", "yakuza_red"]
    assert st.view(0)["deck_bottom"] == ["scholar_red", "actor_blue"]
    assert "deck_bottom" not in st.view(1)
    bottom = [e for e in events_of(st, 1) if e["type"] == "deck_bottom"]
    assert bottom == [{"type": "deck_bottom", "seat": 0, "count": 1}] * 2


def test_harukaze_with_two_cards_left_discards_one() -> None:
    """RULES.md 10, R31: d = 2 -> draw 2, discard 1 face up, nothing under the deck."""
    st = arranged(
        ["Harukaze", "Momiji", "Natsumi"],
        hands={0: ["thief_red", "actor_blue"]},
        deck=["scholar_red", "yakuza_red"],
    )
    answer(st, "action", action="advertise", card="thief_red")
    assert kind(st) == "harukaze_discard"
    answer(st, "harukaze_discard", card="actor_blue")
    discards = [e for e in events_of(st, 1) if e["type"] == "discard"]
    assert discards[-1] == {
        "type": "discard",
        "seat": 0,
        "cards": ["actor_blue"],
        "reason": "harukaze",
    }


def test_harukaze_with_one_or_no_card_left() -> None:
    """RULES.md R31: d = 1 -> draw 1, discard 0; d = 0 -> nothing."""
    for deck in (["scholar_red"], []):
        st = arranged(
            ["Harukaze", "Momiji", "Natsumi"], hands={0: ["thief_red", "actor_blue"]}, deck=deck
        )
        answer(st, "action", action="advertise", card="thief_red")
        drawn = [e for e in events_of(st, 0) if e["type"] == "draw" and e["reason"] == "advertise"]
        assert [e["count"] for e in drawn] == ([1] if deck else [])
        assert st.round == 2


def test_harukaze_rule_applies_to_okaasan_not_to_search() -> None:
    """RULES.md 10, R22: every Advertise action (Okaasan too); other draws are normal."""
    st = arranged(
        ["Harukaze", "Momiji", "Natsumi"], hands={0: ["okaasan_green", "thief_red"]}, deck=DECK
    )
    answer(st, "action", action="guest", card="okaasan_green")
    answer(st, "effect", action="advertise", card="thief_red")
    assert kind(st) == "harukaze_bottom_first"
    st = arranged(["Harukaze", "Momiji", "Natsumi"], hands={0: ["thief_red"]}, deck=DECK)
    answer(st, "action", action="search")
    assert len(st.seats[0].hand) == 2 and st.active == 1


# ----- Momiji -------------------------------------------------------------------------------


def test_momiji_resolves_a_red_effect_twice() -> None:
    """RULES.md 10 Momiji: two resolutions, possibly on different targets."""
    st = arranged(
        ["Momiji", "Oboro", "Natsumi"], hands={0: ["scholar_red", "thief_blue"]}, deck=DECK
    )
    answer(st, "action", action="guest", card="scholar_red")
    answer(st, "effect", action="target", target=1)
    assert kind(st) == "momiji"
    answer(st, "momiji", action="target", target=2)
    assert len(st.seats[1].hand) == 2 and len(st.seats[2].hand) == 2
    assert st.active == 1


def test_momiji_not_for_blue_or_declined_or_no_effect() -> None:
    """RULES.md R32: only a played red guest whose effect was used; Actor/Ronin give nothing."""
    st = arranged(
        ["Momiji", "Oboro", "Natsumi"], hands={0: ["scholar_blue", "thief_blue"]}, deck=DECK
    )
    answer(st, "action", action="guest", card="scholar_blue")
    answer(st, "effect", action="target", target=1)
    assert st.active == 1
    st = arranged(
        ["Momiji", "Oboro", "Natsumi"], hands={0: ["scholar_red", "thief_blue"]}, deck=DECK
    )
    answer(st, "action", action="guest", card="scholar_red")
    answer(st, "effect", action="decline")
    assert st.active == 1
    st = arranged(["Momiji", "Oboro", "Natsumi"], hands={0: ["ronin_red", "thief_blue"]}, deck=DECK)
    answer(st, "action", action="guest", card="ronin_red")
    assert st.active == 1


def test_momiji_red_okaasan_two_advertises() -> None:
    """RULES.md R22: a red Okaasan with Momiji gives two Advertise actions."""
    st = arranged(
        ["Momiji", "Oboro", "Natsumi"],
        hands={0: ["okaasan_red", "thief_blue", "thief_green", "actor_blue"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="okaasan_red")
    answer(st, "effect", action="advertise", card="thief_blue")
    answer(st, "momiji", action="advertise", card="thief_green")
    assert ids(st.seats[0].ads) == ["thief_blue", "thief_green"]
    assert len(st.seats[0].hand) == 3


def test_momiji_courtier_depth_first() -> None:
    """RULES.md R19: the extra red guest resolves fully (its own Momiji prompt) first."""
    st = arranged(
        ["Momiji", "Oboro", "Natsumi"],
        hands={0: ["courtier_red", "scholar_red", "scholar_red", "thief_blue"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="courtier_red")
    answer(st, "effect", action="guest", card="scholar_red")
    answer(st, "effect", action="target", target=1)
    assert kind(st) == "momiji"  # for the Scholar first
    answer(st, "momiji", action="decline")
    assert kind(st) == "momiji"  # now for the Courtier
    answer(st, "momiji", action="guest", card="scholar_red")
    answer(st, "effect", action="target", target=2)
    assert st.active == 1  # Momiji is spent: the second Scholar resolves once
    assert ids(st.seats[0].guests) == ["courtier_red", "scholar_red", "scholar_red"]


def test_momiji_once_per_turn_refreshes_in_extra_turn() -> None:
    """RULES.md 10 (once per turn), R21: it refreshes in a Doctor extra turn."""
    st = arranged(
        ["Momiji", "Oboro", "Natsumi"],
        hands={0: ["doctor_red", "scholar_red", "scholar_red", "thief_blue"]},
        ads={0: ["okaasan_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="doctor_red")
    answer(st, "effect", action="use")
    answer(st, "momiji", action="use")
    assert st.active == 0 and st.seats[0].extra_turns == 1  # one taken now, one pending
    answer(st, "action", action="guest", card="scholar_red")
    answer(st, "effect", action="target", target=0)
    assert kind(st) == "momiji"
    answer(st, "momiji", action="target", target=0)
    assert st.active == 0  # second extra turn
    answer(st, "action", action="guest", card="scholar_red")
    answer(st, "effect", action="target", target=0)
    answer(st, "momiji", action="decline")
    assert st.active == 1


# ----- Natsumi ------------------------------------------------------------------------------


def test_natsumi_plays_up_to_two_extra_blue_guests() -> None:
    """RULES.md 10 Natsumi, R33: after a played blue guest, another blue guest; twice a turn."""
    st = arranged(
        ["Natsumi", "Oboro", "Momiji"],
        hands={0: ["scholar_blue", "scholar_blue", "yakuza_blue", "thief_blue", "actor_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="scholar_blue")
    answer(st, "effect", action="decline")
    assert options_of(st) == [
        {"action": "decline"},
        {"action": "guest", "card": "scholar_blue"},
        {"action": "guest", "card": "thief_blue"},
        {"action": "guest", "card": "yakuza_blue"},
    ]
    answer(st, "natsumi", action="guest", card="yakuza_blue")
    answer(st, "effect", action="decline")
    answer(st, "natsumi", action="guest", card="thief_blue")
    answer(st, "effect", action="decline")
    assert st.active == 1  # two uses spent: no third prompt
    assert ids(st.seats[0].guests) == ["scholar_blue", "yakuza_blue", "thief_blue"]


def test_natsumi_not_for_red_and_skipped_without_candidate() -> None:
    """RULES.md R33, R50: only blue guests trigger; no eligible blue card -> no prompt."""
    st = arranged(
        ["Natsumi", "Oboro", "Momiji"],
        hands={0: ["scholar_red", "scholar_blue", "actor_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="scholar_red")
    answer(st, "effect", action="decline")
    assert st.active == 1
    st = arranged(
        ["Natsumi", "Oboro", "Momiji"],
        hands={0: ["scholar_blue", "daimyo_blue", "actor_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="scholar_blue")
    answer(st, "effect", action="decline")
    assert st.active == 1


def test_natsumi_blue_courtier_order() -> None:
    """RULES.md R33: Courtier -> its guest X (may trigger Natsumi) -> Natsumi for the Courtier."""
    st = arranged(
        ["Natsumi", "Oboro", "Momiji"],
        hands={0: ["courtier_blue", "scholar_blue", "thief_blue", "yakuza_blue", "actor_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="courtier_blue")
    answer(st, "effect", action="guest", card="scholar_blue")
    answer(st, "effect", action="decline")
    answer(st, "natsumi", action="guest", card="thief_blue")  # for the Scholar
    answer(st, "effect", action="decline")
    answer(st, "natsumi", action="guest", card="yakuza_blue")  # for the Thief
    answer(st, "effect", action="decline")
    assert st.active == 1  # two uses spent: nothing more for the Courtier
    assert ids(st.seats[0].guests) == ["courtier_blue", "scholar_blue", "thief_blue", "yakuza_blue"]


# ----- Oboro and Suzune ---------------------------------------------------------------------


def test_oboro_has_two_extra_cards() -> None:
    """RULES.md 10 Oboro, R35: 7/8/9 cards at the start of each round."""
    st = arranged(["Oboro", "Momiji", "Natsumi"], hands={0: ["thief_red"]}, deck=DECK)
    for rnd in (2, 3):
        st.stack = [("start_round", rnd)]
        st.decision = None
        st.advance()
        assert [len(s.hand) for s in st.seats] == [rnd + 6, rnd + 4, rnd + 4]


def test_suzune_extra_advertise_before_action() -> None:
    """RULES.md 10 Suzune, R34: before the main action; then no post-action prompt."""
    st = arranged(["Suzune", "Oboro", "Momiji"], hands={0: ["thief_red", "okaasan_red"]}, deck=DECK)
    answer(st, "pre_action", action="advertise", card="okaasan_red")
    assert has_option(st, action="guest", card="thief_red")  # performance 4 now
    answer(st, "action", action="guest", card="thief_red")
    answer(st, "effect", action="decline")
    assert st.active == 1


def test_suzune_extra_advertise_after_action() -> None:
    """RULES.md 10 Suzune, R34: or after the main action is fully resolved."""
    st = arranged(["Suzune", "Oboro", "Momiji"], hands={0: ["thief_red", "okaasan_red"]}, deck=DECK)
    answer(st, "pre_action", action="proceed")
    answer(st, "action", action="advertise", card="okaasan_red")
    assert kind(st) == "post_action"
    answer(st, "post_action", action="advertise", card="thief_red")
    assert ids(st.seats[0].ads) == ["okaasan_red", "thief_red"] and st.active == 1


def test_suzune_okaasan_does_not_use_her_extra() -> None:
    """RULES.md 8 Okaasan, R22: the Okaasan's advertise does not consume Suzune's extra."""
    st = arranged(
        ["Suzune", "Oboro", "Momiji"],
        hands={0: ["okaasan_red", "thief_red", "thief_blue"]},
        deck=DECK,
    )
    answer(st, "pre_action", action="proceed")
    answer(st, "action", action="guest", card="okaasan_red")
    answer(st, "effect", action="advertise", card="thief_red")
    assert kind(st) == "post_action"
    answer(st, "post_action", action="decline")
    assert st.active == 1
