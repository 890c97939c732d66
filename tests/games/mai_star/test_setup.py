"""Setup, geisha selection and the deal (RULES.md sections 1, 3, 13; R1, R39)."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.games.base import OptionError
from arena.games.mai_star import GAME
from arena.games.mai_star.data import FULL_DECK, GEISHAS, HAND_SIZES, OBORO_BONUS
from tests.games.engine_checks import random_answers

from .helpers import answer, kind


def test_components_from_cards_json() -> None:
    """RULES.md 1: 6 geishas, 75 customers in 42 distinct cards."""
    assert len(GEISHAS) == 6
    assert len(FULL_DECK) == 75
    assert len(set(FULL_DECK)) == 42


@pytest.mark.parametrize("players", [2, 7])
def test_player_count_rejected(players: int) -> None:
    """RULES.md R39: only 3 to 6 players."""
    with pytest.raises(OptionError):
        GAME.new(players, 1)


def test_unknown_or_bad_option_rejected() -> None:
    with pytest.raises(OptionError):
        GAME.new(4, 1, {"no_such_option": True})
    with pytest.raises(OptionError):
        GAME.new(4, 1, {"limited_guests": "sometimes"})


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_selection_counterclockwise_last_chooser_starts(players: int) -> None:
    """RULES.md 3.2, R1: first chooser random, then counterclockwise; last chooser starts."""
    firsts = set()
    for seed in range(12):
        st = GAME.new(players, seed)
        first = st.pending()[0].seat
        firsts.add(first)
        order = []
        for i in range(players):
            decision = st.pending()[0]
            assert decision.kind == "geisha"
            assert decision.seat == (first - i) % players
            assert len(decision.options) == 6 - i
            order.append(decision.seat)
            st.act(decision.seat, i % len(decision.options))
        assert st.active == order[-1] == (first + 1) % players
        assert st.start_seat == order[-1]
        chosen = [s.geisha for s in st.seats]
        assert len(set(chosen)) == players  # each geisha at most once; the rest leave the game
        assert len(st.available) == 6 - players
    assert len(firsts) > 1  # the first chooser is random (seeded)


def test_geisha_options_are_the_remaining_ones() -> None:
    """RULES.md 3.2 / D1: only geishas still available are offered, in cards.json order."""
    st = GAME.new(3, 5)
    names = [o["geisha"] for o in st.pending()[0].options]
    assert names == [g.name for g in GEISHAS]
    answer(st, "geisha", geisha="Momiji")
    names = [o["geisha"] for o in st.pending()[0].options]
    assert "Momiji" not in names and len(names) == 5


def test_deal_sizes_each_round_and_oboro() -> None:
    """RULES.md 3.4, 13.2, section 10 (Oboro): 5/6/7 cards, Oboro 2 more, every round."""
    for seed in range(6):
        st, _ = random_answers(GAME, 4, seed)
        deals: Counter[tuple[int, int]] = Counter()
        rnd = 0
        for item in st.event_log():
            ev = item["event"]
            if ev["type"] == "round_start":
                rnd = ev["round"]
            if ev["type"] == "draw" and ev["reason"] == "deal":
                deals[(rnd, ev["seat"])] += ev["count"]
        for (rnd, seat), count in deals.items():
            bonus = OBORO_BONUS if GEISHAS[st.seats[seat].geisha].name == "Oboro" else 0
            assert count == HAND_SIZES[rnd - 1] + bonus
        assert len(deals) == 12


def test_deal_is_private() -> None:
    """RULES.md 17: dealt cards are seen only by their owner; the deck is shuffled."""
    st = GAME.new(3, 11)
    while kind(st) == "geisha":
        st.act(st.pending()[0].seat, 0)
    for seat in range(3):
        events, _ = st.events_since(seat, 0)
        deals = [e for e in events if e["type"] == "draw"]
        assert len(deals) == 3
        for e in deals:
            assert ("cards" in e) == (e["seat"] == seat)
    assert len(st.deck) == 75 - sum(len(s.hand) for s in st.seats)
