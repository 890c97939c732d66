"""Every customer effect (RULES.md sections 7 and 8; R17-R27, R45-R47)."""

from __future__ import annotations

from .helpers import answer, arranged, events_of, hand, has_option, ids, kind, options_of

GEISHAS3 = ["Oboro", "Momiji", "Natsumi"]  # Oboro 5/5/5 plays most cards and has no trigger
DECK = ["scholar_green", "scholar_green", "yakuza_green", "yakuza_green"]


def test_actor_has_no_effect_prompt() -> None:
    """RULES.md 8 Actor: no effect, so no D4; the turn passes."""
    st = arranged(GEISHAS3, hands={0: ["actor_red", "thief_red"]}, deck=DECK)
    answer(st, "action", action="guest", card="actor_red")
    assert st.active == 1


def test_effect_is_optional() -> None:
    """RULES.md 7.2, R10: every guest effect may be declined; the guest stays."""
    st = arranged(
        GEISHAS3, hands={0: ["thief_red", "actor_blue"]}, guests={1: ["samurai_red"]}, deck=DECK
    )
    answer(st, "action", action="guest", card="thief_red")
    assert options_of(st)[0] == {"action": "decline"}
    answer(st, "effect", action="decline")
    assert ids(st.seats[1].guests) == ["samurai_red"] and ids(st.seats[0].guests) == ["thief_red"]


def test_effect_use_and_decline_are_public() -> None:
    """RULES.md 17 (effect use/decline, target choices: everyone), D4: every seat is told
    whether the effect was used, and how."""
    st = arranged(
        GEISHAS3, hands={0: ["thief_red", "actor_blue"]}, guests={1: ["samurai_red"]}, deck=DECK
    )
    answer(st, "action", action="guest", card="thief_red")
    answer(st, "effect", action="decline")
    used = arranged(
        GEISHAS3, hands={0: ["thief_red", "actor_blue"]}, guests={1: ["samurai_red"]}, deck=DECK
    )
    answer(used, "action", action="guest", card="thief_red")
    answer(used, "effect", action="target", target=1)
    for state, choice in ((st, {"action": "decline"}), (used, {"action": "target", "target": 1})):
        told = {"type": "effect", "seat": 0, "card": "thief_red", "resolution": 1, "choice": choice}
        for seat in range(3):
            assert told in events_of(state, seat), (seat, choice)


def test_courtier_plays_a_guest_of_its_own_colour() -> None:
    """RULES.md 8 Courtier, R18, R19: same colour only, passing the check; its effect is used."""
    st = arranged(
        GEISHAS3,
        hands={0: ["courtier_green", "scholar_green", "thief_red", "monk_black", "daimyo_green"]},
        ads={0: ["actor_red", "actor_blue", "actor_green", "okaasan_red"]},  # 10/8/8
        deck=["yakuza_green", "thief_blue"],
    )
    answer(st, "action", action="guest", card="courtier_green")
    assert options_of(st) == [{"action": "decline"}, {"action": "guest", "card": "scholar_green"}]
    answer(st, "effect", action="guest", card="scholar_green")
    assert kind(st) == "effect"  # the extra guest's own effect is offered
    answer(st, "effect", action="target", target=0)
    assert ids(st.seats[0].guests) == ["courtier_green", "scholar_green"]
    assert "yakuza_green" in hand(st, 0)


def test_courtier_with_no_matching_card_asks_nothing() -> None:
    """RULES.md 8 Courtier, R50: nothing qualifies -> no prompt, nothing happens."""
    st = arranged(
        GEISHAS3,
        hands={0: ["courtier_red", "thief_blue", "monk_black"]},
        ads={0: ["okaasan_red", "okaasan_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="courtier_red")
    assert st.active == 1


def test_daimyo_moves_matching_advertisers_oldest_first() -> None:
    """RULES.md 8 Daimyo, R20: oldest first, appended as newest guests; others keep order."""
    st = arranged(
        GEISHAS3,
        hands={0: ["daimyo_red", "actor_blue"]},
        guests={0: ["scholar_blue"]},
        ads={0: ["okaasan_red", "actor_blue", "thief_red", "monk_black", "yakuza_blue"]},
        deck=DECK,
    )
    before = st.reputation(0)
    answer(st, "action", action="guest", card="daimyo_red")
    answer(st, "effect", action="use")
    area = st.seats[0]
    assert ids(area.guests) == ["scholar_blue", "daimyo_red", "okaasan_red", "thief_red"]
    assert ids(area.ads) == ["actor_blue", "monk_black", "yakuza_blue"]
    assert st.reputation(0) == [before[0] - 3, before[1], before[2]]


def test_daimyo_without_matching_advertiser_still_offered() -> None:
    """RULES.md R20: use is offered; nothing moves."""
    st = arranged(
        GEISHAS3,
        hands={0: ["daimyo_blue", "actor_blue"]},
        ads={0: ["okaasan_blue", "okaasan_blue"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="daimyo_blue")
    answer(st, "effect", action="use")
    assert ids(st.seats[0].guests) == ["daimyo_blue", "okaasan_blue", "okaasan_blue"]
    st = arranged(
        GEISHAS3,
        hands={0: ["daimyo_blue", "actor_blue"]},
        ads={0: ["okaasan_blue", "okaasan_blue", "actor_red"]},
        deck=DECK,
    )
    st.seats[0].ads = st.seats[0].ads[2:] + st.seats[0].ads[:2]
    answer(st, "action", action="guest", card="daimyo_blue")
    answer(st, "effect", action="use")
    assert ids(st.seats[0].ads) == ["actor_red"]


def test_doctor_gives_an_extra_turn_after_this_one() -> None:
    """RULES.md 8 Doctor, R21, R46: the same player takes one more full turn, automatically."""
    st = arranged(
        GEISHAS3,
        hands={0: ["doctor_blue", "thief_red", "actor_blue"]},
        ads={0: ["okaasan_blue"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="doctor_blue")
    answer(st, "effect", action="use")
    assert st.active == 0 and kind(st) == "action"
    turns = [e for e in events_of(st, 1) if e["type"] == "turn"]
    assert turns[-1] == {"type": "turn", "seat": 0, "extra": True, "final_lap": False}
    answer(st, "action", action="search")
    assert st.active == 1


def test_doctor_declined_gives_no_extra_turn() -> None:
    """RULES.md R46: declining keeps the income, no extra turn."""
    st = arranged(
        GEISHAS3, hands={0: ["doctor_blue", "thief_red"]}, ads={0: ["okaasan_blue"]}, deck=DECK
    )
    answer(st, "action", action="guest", card="doctor_blue")
    answer(st, "effect", action="decline")
    assert st.active == 1 and st.seats[0].extra_turns == 0


def test_emissary_takes_the_newest_advertiser() -> None:
    """RULES.md 8 Emissary: the target's rightmost advertiser joins the player's row."""
    st = arranged(
        GEISHAS3,
        hands={0: ["emissary_red", "actor_blue"]},
        ads={1: ["thief_red", "okaasan_blue"], 0: ["yakuza_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="emissary_red")
    answer(st, "effect", action="target", target=1)
    assert ids(st.seats[0].ads) == ["yakuza_red", "okaasan_blue"]
    assert ids(st.seats[1].ads) == ["thief_red"]
    assert st.reputation(1) == [6, 1, 3] and st.reputation(0)[1] == 7


def test_emissary_on_self_or_empty_row_changes_nothing() -> None:
    """RULES.md R25, R26."""
    st = arranged(
        GEISHAS3,
        hands={0: ["emissary_red", "actor_blue"]},
        ads={0: ["yakuza_red", "thief_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="emissary_red")
    answer(st, "effect", action="target", target=0)
    assert ids(st.seats[0].ads) == ["yakuza_red", "thief_red"]
    st = arranged(
        GEISHAS3, hands={0: ["emissary_red", "actor_blue"]}, ads={0: ["okaasan_red"]}, deck=DECK
    )
    answer(st, "action", action="guest", card="emissary_red")
    answer(st, "effect", action="target", target=2)
    assert ids(st.seats[0].ads) == ["okaasan_red"] and st.active == 1


def test_merchant_target_draws_two() -> None:
    """RULES.md 8 Merchant: the target draws 2 (privately)."""
    st = arranged(GEISHAS3, hands={0: ["merchant_red", "actor_blue"]}, deck=DECK)
    answer(st, "action", action="guest", card="merchant_red")
    answer(st, "effect", action="target", target=2)
    assert hand(st, 2) == ["actor_red", "scholar_green", "scholar_green"]
    seen = [e for e in events_of(st, 0) if e["type"] == "draw" and e["reason"] == "merchant"]
    assert seen == [{"type": "draw", "seat": 2, "count": 2, "reason": "merchant"}]


def test_okaasan_takes_an_advertise_action() -> None:
    """RULES.md 8 Okaasan, R22: a full Advertise action, including the draw."""
    st = arranged(GEISHAS3, hands={0: ["okaasan_green", "thief_red", "actor_blue"]}, deck=DECK)
    answer(st, "action", action="guest", card="okaasan_green")
    assert options_of(st) == [
        {"action": "decline"},
        {"action": "advertise", "card": "actor_blue"},
        {"action": "advertise", "card": "thief_red"},
    ]
    answer(st, "effect", action="advertise", card="thief_red")
    assert ids(st.seats[0].ads) == ["thief_red"]
    assert hand(st, 0) == ["actor_blue", "scholar_green"]


def test_okaasan_with_empty_hand_is_skipped() -> None:
    """RULES.md 8 Okaasan: skipped if the hand is empty (no prompt)."""
    st = arranged(GEISHAS3, hands={0: ["okaasan_green"]}, deck=DECK)
    answer(st, "action", action="guest", card="okaasan_green")
    assert st.round == 2


def test_ronin_has_no_effect_when_played() -> None:
    """RULES.md 7.2, R47: the Ronin's text is a reaction, not an on-play effect."""
    st = arranged(GEISHAS3, hands={0: ["ronin_red", "thief_red"]}, deck=DECK)
    answer(st, "action", action="guest", card="ronin_red")
    assert st.active == 1


def test_samurai_takes_the_newest_guest_without_its_effect() -> None:
    """RULES.md 8 Samurai: rightmost guest moves to the right end; no requirement, no effect."""
    st = arranged(
        GEISHAS3,
        hands={0: ["samurai_red", "actor_blue"]},
        ads={0: ["okaasan_red", "okaasan_red", "yakuza_red"]},
        guests={1: ["actor_red", "doctor_green"], 0: ["scholar_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="samurai_red")
    answer(st, "effect", action="target", target=1)
    assert ids(st.seats[0].guests) == ["scholar_red", "samurai_red", "doctor_green"]
    assert ids(st.seats[1].guests) == ["actor_red"]
    assert st.active == 1 and st.seats[0].extra_turns == 0


def test_samurai_on_self_changes_nothing() -> None:
    """RULES.md R25."""
    st = arranged(
        GEISHAS3,
        hands={0: ["samurai_red", "actor_blue"]},
        ads={0: ["okaasan_red", "okaasan_red", "yakuza_red"]},
        guests={0: ["scholar_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="samurai_red")
    answer(st, "effect", action="target", target=0)
    assert ids(st.seats[0].guests) == ["scholar_red", "samurai_red"]


def test_scholar_target_draws_one() -> None:
    """RULES.md 8 Scholar."""
    st = arranged(GEISHAS3, hands={0: ["scholar_red", "actor_blue"]}, deck=DECK)
    answer(st, "action", action="guest", card="scholar_red")
    answer(st, "effect", action="target", target=1)
    assert hand(st, 1) == ["actor_green", "scholar_green"]


def test_sumo_looks_and_discards_one_card() -> None:
    """RULES.md 8 Sumo Wrestler, 17: only the player sees the hand; the discard is public."""
    st = arranged(
        GEISHAS3,
        hands={0: ["sumo_wrestler_red", "actor_blue"], 1: ["thief_red", "thief_red", "monk_black"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="sumo_wrestler_red")
    answer(st, "effect", action="target", target=1)
    assert options_of(st) == [{"card": "thief_red"}, {"card": "monk_black"}]
    look = [e for e in events_of(st, 0) if e["type"] == "look"]
    assert look == [
        {"type": "look", "seat": 0, "target": 1, "hand": ["monk_black", "thief_red", "thief_red"]}
    ]
    assert [e for e in events_of(st, 2) if e["type"] == "look"] == [
        {"type": "look", "seat": 0, "target": 1}
    ]
    answer(st, "sumo_discard", card="monk_black")
    assert hand(st, 1) == ["thief_red", "thief_red"]
    assert ids(st.discard[-1:]) == ["monk_black"]


def test_sumo_on_self_and_on_empty_hand() -> None:
    """RULES.md 8 Sumo, R25: self-target discards one own card; an empty hand loses nothing."""
    st = arranged(GEISHAS3, hands={0: ["sumo_wrestler_red", "actor_blue", "thief_red"]}, deck=DECK)
    answer(st, "action", action="guest", card="sumo_wrestler_red")
    answer(st, "effect", action="target", target=0)
    answer(st, "sumo_discard", card="thief_red")
    assert hand(st, 0) == ["actor_blue"]
    st = arranged(GEISHAS3, hands={0: ["sumo_wrestler_red", "actor_blue"], 1: []}, deck=DECK)
    answer(st, "action", action="guest", card="sumo_wrestler_red")
    answer(st, "effect", action="target", target=1)
    assert st.round == 2  # no D6; the round ended on seat 1's empty hand


def test_sumo_single_card_choice_still_asked() -> None:
    """Contract: a mandatory choice with one option is still a decision (auto-answered)."""
    st = arranged(
        GEISHAS3,
        hands={0: ["sumo_wrestler_red", "actor_blue"], 1: ["thief_red", "thief_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="sumo_wrestler_red")
    answer(st, "effect", action="target", target=1)
    assert options_of(st) == [{"card": "thief_red"}]


def test_thief_discards_the_newest_guest() -> None:
    """RULES.md 8 Thief, R25, R26, R28."""
    st = arranged(
        GEISHAS3,
        hands={0: ["thief_red", "actor_blue"]},
        guests={1: ["samurai_red", "actor_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="thief_red")
    answer(st, "effect", action="target", target=1)
    assert ids(st.seats[1].guests) == ["samurai_red"] and ids(st.discard[-1:]) == ["actor_red"]
    st = arranged(GEISHAS3, hands={0: ["thief_red", "actor_blue"]}, deck=DECK)
    answer(st, "action", action="guest", card="thief_red")
    answer(st, "effect", action="target", target=0)  # own newest guest: the Thief himself
    assert st.seats[0].guests == []


def test_yakuza_discards_the_newest_advertiser() -> None:
    """RULES.md 8 Yakuza, R26."""
    st = arranged(
        GEISHAS3,
        hands={0: ["yakuza_red", "actor_blue"]},
        ads={2: ["okaasan_blue", "thief_blue"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="yakuza_red")
    answer(st, "effect", action="target", target=2)
    assert ids(st.seats[2].ads) == ["okaasan_blue"] and ids(st.discard[-1:]) == ["thief_blue"]
    st = arranged(GEISHAS3, hands={0: ["yakuza_red", "actor_blue"]}, deck=DECK)
    answer(st, "action", action="guest", card="yakuza_red")
    answer(st, "effect", action="target", target=1)
    assert st.active == 1


def test_monk_discards_own_hand_and_ends_round_without_penalty() -> None:
    """RULES.md 8 Monk, R24."""
    st = arranged(
        GEISHAS3,
        hands={0: ["monk_black", "thief_red", "thief_blue"]},
        ads={0: ["okaasan_red", "okaasan_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="monk_black")
    answer(st, "effect", action="use")
    discards = [e for e in events_of(st, 1) if e["type"] == "discard"]
    assert discards[-1]["cards"] == ["thief_red", "thief_blue"]
    score = next(e for e in events_of(st, 1) if e["type"] == "round_score")["scores"][0]
    assert score == {"seat": 0, "income": 10, "hand": 0, "vp": 10, "total": 10}


def test_shogun_whole_hand_becomes_guests_in_chosen_order() -> None:
    """RULES.md 8 Shogun, R17, R23: order chosen card by card, Kanryou included, no effects."""
    st = arranged(
        GEISHAS3,
        hands={
            0: ["shogun_black", "doctor_red", "district_kanryou_black", "thief_red", "thief_red"]
        },
        ads={0: ["okaasan_red", "okaasan_red", "okaasan_blue", "okaasan_blue", "actor_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="shogun_black")
    answer(st, "effect", action="use")
    assert kind(st) == "shogun_order" and len(options_of(st)) == 3
    answer(st, "shogun_order", card="district_kanryou_black")
    answer(st, "shogun_order", card="thief_red")
    answer(st, "shogun_order", card="doctor_red")  # the last thief follows automatically
    # no effect and no extra turn; the empty hand ended the round
    score = next(e for e in events_of(st, 1) if e["type"] == "round_score")["scores"][0]
    assert score["income"] == 10 + 0 + 4 + 6 + 4
    guests = [e["card"] for e in events_of(st, 1) if e["type"] == "guest" and e["seat"] == 0]
    assert guests == [
        "shogun_black",
        "district_kanryou_black",
        "thief_red",
        "doctor_red",
        "thief_red",
    ]
    assert not [e for e in events_of(st, 1) if e["type"] == "extra_turn"]


def test_kanryou_cannot_be_played_as_guest() -> None:
    """RULES.md 8 District Kanryou, R17: never playable as a guest, even by a Courtier."""
    st = arranged(
        GEISHAS3,
        hands={0: ["district_kanryou_black", "courtier_red"]},
        ads={0: ["okaasan_red"] * 2},
        deck=DECK,
    )
    assert not has_option(st, action="guest", card="district_kanryou_black")
    answer(st, "action", action="guest", card="courtier_red")
    assert st.active == 1  # no D4: nothing of the Courtier's colour qualifies


def test_nested_guests_resolve_depth_first() -> None:
    """RULES.md 7 (nested calls), R45: a Courtier's extra guest resolves before the turn ends."""
    st = arranged(
        GEISHAS3,
        hands={0: ["courtier_blue", "courtier_blue", "okaasan_blue", "thief_red"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="courtier_blue")
    answer(st, "effect", action="guest", card="courtier_blue")
    answer(st, "effect", action="guest", card="okaasan_blue")
    answer(st, "effect", action="advertise", card="thief_red")
    assert ids(st.seats[0].guests) == ["courtier_blue", "courtier_blue", "okaasan_blue"]
    assert ids(st.seats[0].ads) == ["thief_red"] and st.active == 1
