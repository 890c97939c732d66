"""The sample greedy bot finishes ahead of random bots far more often than chance."""

from __future__ import annotations

from math import comb

import pytest

from arena.games.motora import GAME
from arena.match.local import play_local
from sample_bots.python.motora_greedy import MotoraGreedy
from sample_bots.python.random_bot import RandomBot


def binomial_tail(wins: int, games: int, p: float) -> float:
    """P(X >= wins) for X ~ Binomial(games, p)."""
    return sum(comb(games, k) * p**k * (1 - p) ** (games - k) for k in range(wins, games + 1))


@pytest.mark.parametrize("players", [2, 4, 6])
def test_greedy_beats_random(players: int) -> None:
    games, wins = 12, 0
    for seed in range(games):
        seat = seed % players
        bots = [RandomBot(seed * 10 + s) for s in range(players)]
        bots[seat] = MotoraGreedy()
        out = play_local(GAME, bots, 1000 + seed).outcome()
        wins += out.ranks[seat] == 0 and len(out.details["winners"]) == 1
    assert binomial_tail(wins, games, 1 / players) < 0.001, wins
