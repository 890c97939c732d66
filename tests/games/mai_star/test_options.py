"""Optional rules (RULES.md section 15; R9, R35, R40-R42)."""

from __future__ import annotations

import pytest

from arena.games.mai_star import GAME
from arena.games.mai_star.data import GEISHAS

from .helpers import answer, arranged, events_of, has_option, kind

DECK = ["scholar_green", "scholar_green", "yakuza_green", "yakuza_green", "thief_green"]
GEISHAS3 = ["Oboro", "Momiji", "Natsumi"]


def _play_selection(st) -> list[int]:
    order = []
    while kind(st) == "geisha":
        order.append(st.pending()[0].seat)
        st.act(order[-1], len(st.pending()[0].options) - 1)
    return order


# ----- Management Mode ----------------------------------------------------------------------


def test_management_selection_after_the_deal_round_one() -> None:
    """RULES.md 15.1, R42: round 1 deals first, then the normal selection method."""
    st = GAME.new(4, 3, {"management_mode": True})
    assert kind(st) == "geisha"
    assert [len(s.hand) for s in st.seats] == [5, 5, 5, 5]  # dealt before choosing
    assert "hand" in st.view(st.pending()[0].seat)
    order = _play_selection(st)
    assert order == [(order[0] - i) % 4 for i in range(4)]
    assert st.active == order[-1] == st.start_seat


def test_management_oboro_draws_two_after_selection() -> None:
    """RULES.md 15.1, R35: the Oboro player draws 2 right after everyone has chosen."""
    st = GAME.new(3, 8, {"management_mode": True})
    first = st.pending()[0].seat
    answer(st, "geisha", geisha="Oboro")
    answer(st, "geisha", geisha="Suzune")
    answer(st, "geisha", geisha="Natsumi")
    assert len(st.seats[first].hand) == 7
    draws = [e for e in events_of(st, first) if e["type"] == "draw" and e["reason"] == "oboro"]
    assert draws[0]["seat"] == first and draws[0]["count"] == 2


def test_management_later_rounds_starting_player_chooses_first() -> None:
    """RULES.md 15.1: rounds 2-3: the starting player chooses first, all 6 geishas available."""
    st = arranged(
        GEISHAS3, hands={0: ["scholar_red"]}, deck=DECK, options={"management_mode": True}
    )
    st.seats[1].total = 9
    st.seats[2].total = 4
    answer(st, "action", action="guest", card="scholar_red")
    answer(st, "effect", action="decline")
    assert st.round == 2 and kind(st) == "geisha"
    assert st.start_seat == 0 and st.pending()[0].seat == 0  # lowest total: 2 against 9 and 4
    assert len(st.pending()[0].options) == len(GEISHAS)
    assert all(s.geisha == -1 for s in st.seats)
    order = _play_selection(st)
    assert order == [0, 2, 1] and st.active == 0


# ----- Limited Guests -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "guests_before", "ends"),
    [
        ("exceeds", 5, True),
        ("exceeds", 4, False),
        ("reaches", 4, True),
        ("reaches", 3, False),
        ("off", 7, False),
    ],
)
def test_limited_guests_readings(mode: str, guests_before: int, ends: bool) -> None:
    """RULES.md 15.2, R40: 'exceeds' (more than L, default reading) or 'reaches' (L)."""
    row = [
        "scholar_red",
        "scholar_red",
        "yakuza_red",
        "yakuza_red",
        "thief_red",
        "thief_blue",
        "okaasan_red",
    ][:guests_before]
    st = arranged(
        GEISHAS3,
        hands={0: ["actor_red", "thief_green"]},
        guests={0: row},
        deck=DECK,
        options={"limited_guests": mode},
    )
    answer(st, "action", action="guest", card="actor_red")
    assert (st.round == 2) is ends
    flagged = [e for e in events_of(st, 1) if e["type"] == "guest_limit"]
    assert bool(flagged) is ends


def test_limited_guests_doctor_as_last_allowed_guest() -> None:
    """RULES.md 15.2: a Doctor that triggers the limit gives no extra turn (round ends)."""
    st = arranged(
        GEISHAS3,
        hands={0: ["doctor_red", "thief_green"]},
        guests={0: ["scholar_red"] * 2 + ["yakuza_red"] * 2},
        ads={0: ["okaasan_red"]},
        deck=DECK,
        options={"limited_guests": "reaches"},
    )
    answer(st, "action", action="guest", card="doctor_red")
    answer(st, "effect", action="use")
    assert st.round == 2
    assert [e["reason"] for e in events_of(st, 0) if e["type"] == "round_end"] == ["limited_guests"]


def test_limited_guests_courtier_may_exceed_and_oboro_not_raised() -> None:
    """RULES.md 15.2: a Courtier can go past the limit in one turn; Oboro's limit is 5 too."""
    st = arranged(
        GEISHAS3,
        hands={0: ["courtier_red", "scholar_red", "thief_green"]},
        guests={0: ["yakuza_red", "yakuza_red", "thief_red", "thief_blue"]},
        deck=DECK,
        options={"limited_guests": "exceeds"},
    )
    assert st.view(0)["guest_limit"] == 5
    answer(st, "action", action="guest", card="courtier_red")
    answer(st, "effect", action="guest", card="scholar_red")
    answer(st, "effect", action="decline")
    assert next(e for e in events_of(st, 0) if e["type"] == "guest_limit")["guests"] == 6
    assert st.round == 2


def test_limited_guests_flag_not_cleared_when_count_falls() -> None:
    """RULES.md 15.2: the flag stays even if the count later falls (Thief on self)."""
    st = arranged(
        GEISHAS3,
        hands={0: ["thief_red", "actor_blue"]},
        guests={0: ["yakuza_red", "yakuza_red", "scholar_red", "scholar_red", "thief_blue"]},
        deck=DECK,
        options={"limited_guests": "exceeds"},
    )
    answer(st, "action", action="guest", card="thief_red")
    answer(st, "effect", action="target", target=0)
    assert st.round == 2


# ----- Longer 6-player ----------------------------------------------------------------------


def _longer(**kwargs):
    return arranged(
        ["Oboro", "Momiji", "Natsumi", "Harukaze"], options={"longer_six_player": True}, **kwargs
    )


def test_longer_final_lap_everyone_one_more_turn() -> None:
    """RULES.md 15.3, R41: next seat first, the trigger player last; then the round ends."""
    st = _longer(
        hands={
            1: ["thief_red", "actor_red", "actor_blue"],
            2: ["thief_blue", "yakuza_blue"],
            3: ["thief_green", "yakuza_green"],
            0: ["yakuza_red", "scholar_red"],
        },
        active=1,
        deck=["scholar_blue"],
    )
    answer(st, "action", action="search")  # seat 1 empties the deck
    assert [e for e in events_of(st, 0) if e["type"] == "final_lap"] == [
        {"type": "final_lap", "seat": 1}
    ]
    seen = []
    while st.round == 1:
        seen.append(st.active)
        assert not has_option(st, action="introduce") and not has_option(st, action="search")
        answer(st, "action", action="advertise")
        if kind(st) == "harukaze_bottom_first":
            raise AssertionError("the deck is empty: Harukaze draws nothing")
    assert seen == [2, 3, 0, 1]
    assert [e["reason"] for e in events_of(st, 0) if e["type"] == "round_end"] == ["final_lap"]


def test_longer_no_doctor_turns_in_final_lap() -> None:
    """RULES.md 15.3, R41: pending extra turns are dropped; Doctor gives nothing in the lap."""
    st = _longer(
        hands={
            0: ["doctor_red", "scholar_red", "merchant_red"],
            1: ["doctor_red", "merchant_red", "merchant_blue"],
        },
        ads={0: ["okaasan_red"], 1: ["okaasan_red"]},
        deck=["scholar_blue"],
    )
    answer(st, "action", action="guest", card="doctor_red")
    answer(st, "effect", action="use")
    assert st.active == 0  # extra turn
    answer(st, "action", action="search")  # empties the deck: lap starts, no more extra turns
    assert st.active == 1 and st.lap == [2, 3, 0]
    answer(st, "action", action="guest", card="doctor_red")
    answer(st, "effect", action="use")
    answer(st, "momiji", action="decline")
    assert st.active == 2 and st.seats[1].extra_turns == 0


def test_longer_empty_hand_ends_lap_and_no_lap_if_already_over() -> None:
    """RULES.md 15.3, R41: an empty hand ends the round outright, before or during the lap."""
    st = _longer(hands={0: ["scholar_red"]}, deck=["scholar_blue"])
    answer(st, "action", action="guest", card="scholar_red")
    answer(st, "effect", action="target", target=1)  # seat 1 draws the last card; 0 is empty
    assert not [e for e in events_of(st, 0) if e["type"] == "final_lap"]
    assert st.round == 2
    st = _longer(
        hands={0: ["thief_red", "merchant_red"], 1: ["scholar_red"]}, deck=["scholar_blue"]
    )
    answer(st, "action", action="search")
    answer(st, "action", action="guest", card="scholar_red")  # seat 1, in the lap, empties hand
    answer(st, "effect", action="decline")
    assert [e["reason"] for e in events_of(st, 0) if e["type"] == "round_end"] == ["empty_hand"]


def test_no_main_action_when_suzune_empties_hand_in_final_lap() -> None:
    """RULES.md R9: Suzune's pre-action advertise of her last card, empty deck: no main action."""
    st = arranged(
        ["Oboro", "Suzune", "Natsumi"],
        options={"longer_six_player": True},
        hands={0: ["thief_red", "actor_red"], 1: ["scholar_red"]},
        deck=["scholar_blue"],
    )
    answer(st, "action", action="search")
    answer(st, "pre_action", action="advertise", card="scholar_red")
    assert {"type": "no_action", "seat": 1} in events_of(st, 0)
    assert st.round == 2
