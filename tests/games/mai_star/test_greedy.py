"""The sample greedy bot finishes first against random bots far more often than chance."""

from __future__ import annotations

from math import comb

import pytest

from arena.games.mai_star import GAME
from arena.match.local import play_local
from sample_bots.python.mai_star_greedy import MaiStarGreedy
from sample_bots.python.random_bot import RandomBot


def binomial_tail(successes: int, trials: int, p: float) -> float:
    """P(X >= successes) for X ~ Binomial(trials, p)."""
    return sum(
        comb(trials, k) * p**k * (1 - p) ** (trials - k) for k in range(successes, trials + 1)
    )


@pytest.mark.parametrize("players", [3, 6])
def test_greedy_beats_random_bots(players: int) -> None:
    """Seat rotated over a fixed set of seeds; p < 0.001 against the 1/n chance rate."""
    games = 24
    wins = 0
    for seed in range(games):
        seat = seed % players
        bots = [RandomBot(seed * 10 + s) for s in range(players)]
        bots[seat] = MaiStarGreedy()
        final = play_local(GAME, bots, seed)
        wins += final.outcome().ranks[seat] == 0
    assert binomial_tail(wins, games, 1 / players) < 0.001, wins
