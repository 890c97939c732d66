"""Every game's declared score range holds: the ladder statistics' guarantees rest on it."""

from __future__ import annotations

import pytest

from arena.games.happy_mochi import GAME as HAPPY_MOCHI
from arena.games.mai_star import GAME as MAI_STAR
from arena.games.motora import Motora
from arena.games.mottainai import GAME as MOTTAINAI

from .engine_checks import random_answers

GAMES = [HAPPY_MOCHI, MAI_STAR, Motora(), MOTTAINAI]
OPTIONS = {"motora": {"turn_limit": 12}}


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_random_games_stay_inside_the_declared_score_range(game) -> None:
    """Random play at the fewest and most seats: every final score inside the range, which is
    a real interval (low below high)."""
    for players in (game.min_players, game.max_players):
        options = game.resolve_options(OPTIONS.get(game.id, {}), players)
        low, high = game.score_range(players, options)
        assert low < high
        for seed in range(2):
            state, _ = random_answers(game, players, seed, options, policy_seed=seed)
            scores = state.outcome().scores
            assert all(low <= s <= high for s in scores), (game.id, players, seed, scores)
