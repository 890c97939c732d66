"""Round end, scoring, next starting player and the end of the game (RULES.md 11-14)."""

from __future__ import annotations

from arena.games.mai_star import GAME
from arena.games.mai_star.scoring import final_outcome, next_start_seat, round_score
from tests.games.engine_checks import random_answers

from .helpers import answer, arranged, events_of, kind


def _round_end(st) -> dict:
    return next(e for e in events_of(st, 0) if e["type"] == "round_end")


def test_empty_hand_of_active_player_ends_round() -> None:
    """RULES.md 11.1: the active player ending a turn with no cards ends the round."""
    st = arranged(["Oboro", "Momiji", "Natsumi"], hands={0: ["scholar_red"]}, deck=["thief_red"])
    answer(st, "action", action="guest", card="scholar_red")
    answer(st, "effect", action="decline")
    assert _round_end(st)["reason"] == "empty_hand"
    assert st.round == 2


def test_empty_hand_of_another_player_ends_round() -> None:
    """RULES.md R2: a Sumo Wrestler taking a target's last card ends the round after the turn."""
    st = arranged(
        ["Oboro", "Momiji", "Natsumi"],
        hands={0: ["sumo_wrestler_red", "actor_blue"], 1: ["yakuza_red"]},
        deck=["thief_red", "thief_blue"],
    )
    answer(st, "action", action="guest", card="sumo_wrestler_red")
    answer(st, "effect", action="target", target=1)
    answer(st, "sumo_discard", card="yakuza_red")
    assert _round_end(st)["reason"] == "empty_hand"


def test_deck_exhausted_ends_round_after_the_turn() -> None:
    """RULES.md 11.2: the player who draws the last card finishes the turn, then the round ends."""
    st = arranged(
        ["Suzune", "Momiji", "Natsumi"],
        hands={0: ["yakuza_red", "thief_red"]},
        deck=["scholar_red"],
    )
    answer(st, "pre_action", action="proceed")
    answer(st, "action", action="advertise", card="yakuza_red")
    assert st.deck == []
    assert kind(st) == "post_action"  # Suzune still finishes her turn
    answer(st, "post_action", action="decline")
    assert _round_end(st)["reason"] == "deck_exhausted"


def test_doctor_extra_turn_lost_when_round_ends() -> None:
    """RULES.md 8 Doctor, R21: an extra turn is lost if the round ends at the end of the turn."""
    st = arranged(
        ["Oboro", "Momiji", "Natsumi"],
        hands={0: ["doctor_red", "actor_blue"]},
        ads={0: ["okaasan_red"]},
        deck=[],
    )
    answer(st, "action", action="guest", card="doctor_red")
    answer(st, "effect", action="use")
    assert _round_end(st)["reason"] == "deck_exhausted"
    assert all(s.extra_turns == 0 for s in st.seats)
    assert st.round == 2


def test_harukaze_refilling_the_deck_keeps_the_round_going() -> None:
    """RULES.md R3: the deck is checked at the end of the turn (Harukaze returns 2 of 3)."""
    st = arranged(
        ["Harukaze", "Momiji", "Natsumi"],
        hands={0: ["actor_blue"]},
        deck=["thief_red", "thief_blue", "thief_green"],
    )
    answer(st, "action", action="advertise", card="actor_blue")
    answer(st, "harukaze_bottom_first", card="thief_red")
    answer(st, "harukaze_bottom_second", card="thief_blue")
    assert len(st.deck) == 2 and st.round == 1 and st.active == 1


def test_round_score_floor_is_per_round() -> None:
    """RULES.md 12, R36: income minus 2 per hand card, at least 0 each round."""
    assert round_score(10, 2) == 6
    assert round_score(3, 4) == 0
    assert round_score(0, 0) == 0


def test_scoring_counts_guests_not_advertisers() -> None:
    """RULES.md 12: guests pay income, advertisers nothing; hand size recorded."""
    st = arranged(
        ["Oboro", "Momiji", "Natsumi"],
        hands={0: ["scholar_red"], 1: ["thief_red", "thief_blue"]},
        guests={0: ["samurai_red", "doctor_red"], 1: ["actor_red"]},
        ads={0: ["daimyo_red"], 2: ["samurai_blue"]},
        deck=["yakuza_red"],
    )
    answer(st, "action", action="guest", card="scholar_red")
    answer(st, "effect", action="decline")
    scores = next(e for e in events_of(st, 0) if e["type"] == "round_score")["scores"]
    assert scores[0] == {"seat": 0, "income": 16, "hand": 0, "vp": 16, "total": 16}
    assert scores[1] == {"seat": 1, "income": 5, "hand": 2, "vp": 1, "total": 1}
    assert scores[2]["vp"] == 0
    assert [s.round_vp for s in st.seats] == [[16], [1], [0]]


def test_next_round_collects_all_cards_and_deals_more() -> None:
    """RULES.md 13.1-13.3: all 75 cards reshuffled, 6 cards in round 2, geishas stay."""
    st = arranged(
        ["Oboro", "Momiji", "Natsumi"],
        hands={0: ["scholar_red"]},
        guests={1: ["samurai_red"]},
        deck=["yakuza_red"],
    )
    answer(st, "action", action="guest", card="scholar_red")
    answer(st, "effect", action="decline")
    assert st.round == 2
    assert [len(s.hand) for s in st.seats] == [8, 6, 6]
    assert all(not s.guests and not s.ads for s in st.seats)
    assert st.discard == [] and len(st.deck) == 75 - 20
    assert [s.geisha for s in st.seats] == [4, 2, 3]


def test_round_two_starts_with_the_lowest_total() -> None:
    """RULES.md 13 step 4: after scoring, the player with the lowest total starts the next
    round (seat 2 scored nothing here; seat 0 started round 1)."""
    st = arranged(
        ["Oboro", "Momiji", "Natsumi"],
        hands={0: ["scholar_red"]},
        guests={1: ["samurai_red"]},
        deck=["yakuza_red"],
    )
    answer(st, "action", action="guest", card="scholar_red")
    answer(st, "effect", action="decline")
    assert [s.total for s in st.seats][2] < min(s.total for s in st.seats[:2])
    start = [e for e in events_of(st, 0) if e["type"] == "round_start"][-1]
    assert start == {"type": "round_start", "round": 2, "start_seat": 2}
    assert st.pending()[0].seat == 2


def _with_totals(totals: list[int], seed: int = 0):
    st = arranged(
        ["Oboro", "Momiji", "Natsumi", "Suzune", "Harukaze", "Akenohoshi"][: len(totals)], seed=seed
    )
    for seat, total in zip(st.seats, totals, strict=True):
        seat.total = total
    return st


def test_next_start_lowest_total() -> None:
    """RULES.md 13.4: the lowest running total starts."""
    assert next_start_seat(_with_totals([10, 3, 7, 12])) == 1


def test_next_start_tied_lowest_closest_left_of_leader() -> None:
    """RULES.md 13.4: tied lowest -> the first one clockwise from the highest."""
    assert next_start_seat(_with_totals([3, 10, 5, 3])) == 3
    assert next_start_seat(_with_totals([3, 5, 10, 3, 7])) == 3
    assert next_start_seat(_with_totals([3, 5, 3, 10, 7])) == 0


def test_next_start_several_leaders() -> None:
    """RULES.md R37: smallest clockwise distance from any leader; ties random among them."""
    assert next_start_seat(_with_totals([9, 2, 9, 5, 2, 5])) == 1  # 1 step after 0
    starts = {next_start_seat(_with_totals([9, 2, 9, 2], seed=s)) for s in range(20)}
    assert starts == {1, 3}


def test_next_start_all_equal_is_random() -> None:
    """RULES.md 13.4: everyone equal -> a seeded random player."""
    starts = {next_start_seat(_with_totals([4, 4, 4, 4], seed=s)) for s in range(30)}
    assert starts == {0, 1, 2, 3}


def test_final_ranking_tie_break_on_round_three_hand() -> None:
    """RULES.md 14, R38: most VP; ties -> fewest round-3 hand cards; then shared."""
    st = _with_totals([20, 20, 15, 20])
    for seat, hands in zip(st.seats, ([1, 2, 1], [0, 0, 1], [0, 0, 0], [5, 5, 1]), strict=True):
        seat.round_hand = hands
    outcome = final_outcome(st)
    assert outcome.scores == (20.0, 20.0, 15.0, 20.0)
    assert outcome.ranks == (0, 0, 3, 0)
    st.seats[0].round_hand = [0, 0, 2]
    assert final_outcome(st).ranks == (2, 0, 3, 0)


def test_game_has_three_rounds_and_ends() -> None:
    """RULES.md 14: the game ends after round 3 is scored."""
    st, _ = random_answers(GAME, 5, 3)
    kinds = [i["event"]["type"] for i in st.event_log()]
    assert kinds.count("round_score") == 3 and kinds[-1] == "game_over"
    assert st.pending() == () and [len(s.round_vp) for s in st.seats] == [3] * 5
