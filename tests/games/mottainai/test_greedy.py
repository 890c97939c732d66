"""The sample greedy bot beats random bots clearly more often than chance."""

from __future__ import annotations

from math import comb

from arena.games.mottainai import GAME
from arena.match.local import play_local
from sample_bots.python.mottainai_greedy import MottainaiGreedy
from sample_bots.python.random_bot import RandomBot


def binomial_tail(wins: int, games: int, p: float) -> float:
    return sum(comb(games, k) * p**k * (1 - p) ** (games - k) for k in range(wins, games + 1))


def test_greedy_beats_random():
    for players, games in ((2, 48), (3, 48)):
        wins = 0
        for g in range(games):
            seat = g % players
            bots = [
                MottainaiGreedy() if i == seat else RandomBot(100 * g + i) for i in range(players)
            ]
            state = play_local(GAME, bots, seed=1000 + g)
            wins += state.outcome().ranks[seat] == 0
        assert binomial_tail(wins, games, 1 / players) < 0.001, (players, wins, games)
