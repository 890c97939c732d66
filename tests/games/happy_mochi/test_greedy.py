"""The sample greedy bot (sample_bots/python/mochi_greedy.py) clearly beats random bots."""

from __future__ import annotations

from math import comb

import pytest

from arena.games.happy_mochi import GAME
from arena.match.local import play_local
from sample_bots.python.mochi_greedy import MochiGreedy
from sample_bots.python.random_bot import RandomBot

GAMES = 30


def binomial_tail(wins: int, games: int, p: float) -> float:
    """P(X >= wins) for X ~ Binomial(games, p)."""
    return sum(comb(games, k) * p**k * (1 - p) ** (games - k) for k in range(wins, games + 1))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_greedy_beats_random(players: int) -> None:
    """Greedy (seat rotated) wins far more often than the 1/n a random bot would."""
    wins = 0
    for game in range(GAMES):
        seat = game % players
        bots = [RandomBot(1000 * game + s) for s in range(players)]
        bots[seat] = MochiGreedy()
        state = play_local(GAME, bots, seed=500 + game)
        wins += state.outcome().ranks[seat] == 0
    assert binomial_tail(wins, GAMES, 1 / players) < 0.001, (wins, GAMES)


def test_greedy_answers_every_decision_kind() -> None:
    """The bot returns a valid index for every kind, even single-option ones."""
    bots = [MochiGreedy(), MochiGreedy(), MochiGreedy()]
    state = play_local(GAME, bots, seed=3, options={"max_turns_per_round": 60}, ask_forced=True)
    assert state.is_over()
