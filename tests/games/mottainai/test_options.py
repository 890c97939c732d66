"""Game options (RULES 1.2, 12): extended, two_decks, teams; and the card registry."""

from __future__ import annotations

import pytest

from arena.games.base import OptionError
from arena.games.mottainai import GAME
from arena.games.mottainai.effects.registry import missing

from .helpers import end_now


def test_every_card_has_an_effect_handler():
    """cards.json: every one of the 54 cards is handled by a registered or inline effect."""
    assert missing() == []


def test_defaults_by_player_count():
    """RULES 12: two decks and T = 6 by default at 4-5 players; one deck and T = 5 at 2-3."""
    for players, decks, threshold in ((2, 1, 5), (3, 1, 5), (4, 2, 6), (5, 2, 6)):
        s = GAME.new(players, 1)
        assert (s.decks, s.threshold) == (decks, threshold)


def test_extended_and_two_decks_explicit():
    s = GAME.new(2, 1, {"extended": True, "two_decks": True})
    assert (s.decks, s.threshold) == (2, 6)
    s = GAME.new(4, 1, {"extended": False})
    assert s.threshold == 5


def test_one_deck_rejected_at_four_players():
    """RULES 1.2: 4-5 players need two decks."""
    with pytest.raises(OptionError, match="two decks"):
        GAME.new(4, 1, {"two_decks": False})


def test_teams_need_four_players():
    with pytest.raises(OptionError, match="4 players"):
        GAME.new(3, 1, {"teams": True})


def test_options_parse_from_text():
    assert GAME.resolve_options({"extended": "true", "teams": "no"}, 2)["extended"] is True


def test_team_outcome_sums_partners():
    """RULES 12 team game: team score = sum of partners; both partners share the rank."""
    s = end_now(
        {"seats": [{"gallery": ["Crane"]}, {"gallery": ["Bell"]}, {"gallery": ["Fan"]}, {}]},
        players=4,
        teams=True,
    )
    out = s.outcome()
    assert out.teams == ((0, 2), (1, 3))
    assert out.details["team_scores"] == [2, 3]
    assert out.ranks == (2, 0, 2, 0)


def test_team_opponent_excludes_partner():
    """E-TEAM-3: a teammate is not an opponent (obstructions do not apply to partners)."""
    s = GAME.new(4, 1, {"teams": True})
    assert not s.is_opp(0, 2) and s.is_opp(0, 1) and s.opponents(1) == [2, 0]
    assert all(s.view(seat)["teams"] == [[0, 2], [1, 3]] for seat in range(4))  # RULES 12, 14
