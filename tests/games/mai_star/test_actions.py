"""The five actions and their exact preconditions (RULES.md sections 4, 5, 6; R5-R9, R27)."""

from __future__ import annotations

from .helpers import answer, arranged, events_of, hand, has_option, ids, kind

THREE = ["Harukaze", "Momiji", "Natsumi"]


def test_guest_requirement_by_colour() -> None:
    """RULES.md 4 and the rulebook example: Harukaze (1/3/5) plays only the green Sumo."""
    st = arranged(
        ["Harukaze", "Oboro", "Natsumi"],
        hands={0: ["sumo_wrestler_red", "sumo_wrestler_blue", "sumo_wrestler_green"]},
        deck=["thief_red"],
    )
    assert has_option(st, action="guest", card="sumo_wrestler_green")
    assert not has_option(st, action="guest", card="sumo_wrestler_red")
    assert not has_option(st, action="guest", card="sumo_wrestler_blue")


def test_black_cards_any_one_skill_and_kanryou_never() -> None:
    """RULES.md 4, R17, R18: Monk 9 / Shogun 10 in any one skill; District Kanryou never."""
    st = arranged(
        ["Harukaze", "Oboro", "Natsumi"],
        hands={0: ["monk_black", "shogun_black", "district_kanryou_black"]},
        ads={0: ["okaasan_green", "okaasan_green"]},  # intelligence 5 + 4 = 9
        deck=["thief_red"],
    )
    assert has_option(st, action="guest", card="monk_black")
    assert not has_option(st, action="guest", card="shogun_black")
    assert not has_option(st, action="guest", card="district_kanryou_black")
    assert has_option(st, action="advertise", card="district_kanryou_black")


def test_advertise_raises_reputation_and_draws() -> None:
    """RULES.md 6.2: the card joins the advertiser row (+ its power), then draw 1."""
    st = arranged(
        ["Oboro", "Momiji", "Natsumi"],
        hands={0: ["actor_red", "thief_blue"]},
        deck=["scholar_green", "yakuza_red"],
    )
    answer(st, "action", action="advertise", card="thief_blue")
    assert st.reputation(0) == [5, 6, 5]
    assert hand(st, 0) == ["actor_red", "scholar_green"]
    assert ids(st.seats[0].ads) == ["thief_blue"]
    draw = [e for e in events_of(st, 0) if e["type"] == "draw"][-1]
    assert draw == {
        "type": "draw",
        "seat": 0,
        "count": 1,
        "reason": "advertise",
        "cards": ["scholar_green"],
    }
    assert "cards" not in [e for e in events_of(st, 1) if e["type"] == "draw"][-1]


def test_advertise_any_card_with_empty_deck_draws_nothing() -> None:
    """RULES.md 6.2, R7: any card, even a black one, may be advertised; empty deck: no draw."""
    st = arranged(
        ["Oboro", "Momiji", "Natsumi"], hands={0: ["shogun_black", "actor_blue"]}, deck=[]
    )
    answer(st, "action", action="advertise", card="shogun_black")
    events = events_of(st, 0)
    assert {"type": "advertise", "seat": 0, "card": "shogun_black", "source": "action"} in events
    assert not [e for e in events if e["type"] == "draw" and e["reason"] == "advertise"]
    assert st.round == 2  # the deck was exhausted: the round ended after the turn


def test_introduce_needs_a_deck_and_search_too() -> None:
    """RULES.md 6.3, 6.5, R6: with an empty deck Introduce and Search are not offered."""
    st = arranged(
        ["Suzune", "Momiji", "Natsumi"], hands={0: ["actor_red", "thief_red"]}, deck=["yakuza_red"]
    )
    assert has_option(st, action="advertise")
    answer(st, "pre_action", action="advertise", card="thief_red")  # draws the last card
    assert st.deck == []
    assert not has_option(st, action="introduce") and not has_option(st, action="search")
    assert has_option(st, action="guest", card="yakuza_red")


def test_introduce_one_card_when_deck_holds_one() -> None:
    """RULES.md 6.3, R5: deck of 1 -> only one card; discarded before drawing."""
    st = arranged(THREE, hands={0: ["thief_red", "thief_blue"]}, deck=["yakuza_red"])
    answer(st, "action", action="introduce")
    answer(st, "introduce_first", card="thief_red")  # no second-card question follows
    events = events_of(st, 0)
    end = events.index({"type": "round_end", "round": 1, "reason": "deck_exhausted"})
    assert events[end - 2 : end] == [
        {"type": "discard", "seat": 0, "cards": ["thief_red"], "reason": "introduce"},
        {"type": "draw", "seat": 0, "count": 1, "reason": "introduce", "cards": ["yakuza_red"]},
    ]


def test_introduce_one_card_from_a_one_card_hand() -> None:
    """RULES.md 6.3: k is at most the hand size too: a one-card hand discards one card and
    draws exactly one, however full the deck."""
    st = arranged(
        THREE, hands={0: ["thief_red"]}, deck=["yakuza_red", "yakuza_blue", "yakuza_green"]
    )
    answer(st, "action", action="introduce")
    answer(st, "introduce_first", card="thief_red")  # no second-card question follows
    assert hand(st, 0) == ["yakuza_red"] and len(st.deck) == 2
    draws = [e for e in events_of(st, 0) if e["type"] == "draw" and e["reason"] == "introduce"]
    assert [e["count"] for e in draws] == [1]


def test_introduce_two_cards_or_stop() -> None:
    """RULES.md 6.3, D3b: a second card or stop; draw as many as discarded."""
    st = arranged(
        THREE,
        hands={0: ["thief_red", "thief_blue", "actor_red"]},
        deck=["yakuza_red", "yakuza_blue", "yakuza_green"],
    )
    answer(st, "action", action="introduce")
    answer(st, "introduce_first", card="thief_red")
    assert has_option(st, action="stop")
    answer(st, "introduce_second", action="discard", card="actor_red")
    assert hand(st, 0) == ["thief_blue", "yakuza_blue", "yakuza_red"]
    st = arranged(THREE, hands={0: ["thief_red", "thief_blue"]}, deck=["yakuza_red", "yakuza_blue"])
    answer(st, "action", action="introduce")
    answer(st, "introduce_first", card="thief_red")
    answer(st, "introduce_second", action="stop")
    assert hand(st, 0) == ["thief_blue", "yakuza_red"] and len(st.deck) == 1


def test_discarded_card_cannot_come_straight_back() -> None:
    """RULES.md R5: Introduce discards before drawing."""
    st = arranged(THREE, hands={0: ["thief_red", "actor_red"]}, deck=["yakuza_red"])
    answer(st, "action", action="introduce")
    answer(st, "introduce_first", card="thief_red")
    assert "thief_red" not in hand(st, 0)


def test_exchange_keeps_position_and_is_public() -> None:
    """RULES.md 6.4, R8: the hand card takes the advertiser's slot; the returned card is public."""
    st = arranged(
        THREE,
        hands={0: ["thief_red", "actor_red"]},
        ads={0: ["yakuza_red", "okaasan_green", "yakuza_blue"]},
        deck=["scholar_red"],
    )
    answer(st, "action", action="exchange")
    answer(st, "exchange_advertiser", position=1)
    answer(st, "exchange_hand", card="thief_red")
    assert ids(st.seats[0].ads) == ["yakuza_red", "thief_red", "yakuza_blue"]
    assert hand(st, 0) == ["actor_red", "okaasan_green"]
    assert st.deck and len(st.seats[0].hand) == 2  # nothing drawn
    ev = next(e for e in events_of(st, 2) if e["type"] == "exchange")
    assert ev["returned"] == "okaasan_green" and ev["placed"] == "thief_red"


def test_exchange_needs_an_advertiser_and_allows_same_card() -> None:
    """RULES.md 6.4: Exchange needs 1 advertiser; swapping a copy of the same card is legal."""
    st = arranged(THREE, hands={0: ["thief_red"]}, deck=["scholar_red"])
    assert not has_option(st, action="exchange")
    st = arranged(THREE, hands={0: ["thief_red"]}, ads={0: ["thief_red"]}, deck=["scholar_red"])
    answer(st, "action", action="exchange")
    answer(st, "exchange_advertiser", position=0)
    answer(st, "exchange_hand", card="thief_red")
    assert ids(st.seats[0].ads) == ["thief_red"] and hand(st, 0) == ["thief_red"]


def test_search_draws_one() -> None:
    """RULES.md 6.5."""
    st = arranged(THREE, hands={0: ["thief_red"]}, deck=["scholar_red", "scholar_blue"])
    answer(st, "action", action="search")
    assert hand(st, 0) == ["scholar_red", "thief_red"] and len(st.deck) == 1


def test_main_action_is_mandatory_and_options_are_complete() -> None:
    """RULES.md 5.3, D3: one option per legal guest and advertise id, plus the other actions."""
    st = arranged(
        ["Oboro", "Momiji", "Natsumi"],
        hands={0: ["thief_red", "thief_red", "daimyo_red"]},
        ads={0: ["actor_blue"]},
        deck=["scholar_red"],
    )
    assert kind(st) == "action"
    assert list(st.pending()[0].options) == [
        {"action": "guest", "card": "thief_red"},
        {"action": "advertise", "card": "daimyo_red"},
        {"action": "advertise", "card": "thief_red"},
        {"action": "introduce"},
        {"action": "exchange"},
        {"action": "search"},
    ]


def test_guests_stay_when_reputation_drops() -> None:
    """RULES.md R27: a Yakuza lowering reputation removes no guest."""
    st = arranged(
        ["Oboro", "Momiji", "Natsumi"],
        hands={0: ["yakuza_red", "actor_blue"], 1: ["thief_red"]},
        guests={1: ["emissary_blue"]},
        ads={1: ["okaasan_blue", "okaasan_blue"]},
        deck=["scholar_red", "scholar_blue"],
    )
    answer(st, "action", action="guest", card="yakuza_red")
    answer(st, "effect", action="target", target=1)
    assert ids(st.seats[1].ads) == ["okaasan_blue"] and st.reputation(1)[1] == 3
    assert ids(st.seats[1].guests) == ["emissary_blue"]


def test_turn_passes_clockwise() -> None:
    """RULES.md 2, 5.7: after seat i comes seat i+1."""
    st = arranged(
        ["Oboro", "Momiji", "Natsumi", "Suzune"],
        hands={3: ["thief_red", "actor_red"]},
        active=3,
        deck=["scholar_red", "scholar_blue"],
    )
    answer(st, "pre_action", action="proceed")
    answer(st, "action", action="search")
    answer(st, "post_action", action="decline")
    assert st.active == 0
