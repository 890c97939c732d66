"""The Mai-Star search bot plays a whole match through the real referee without a fault."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from arena.games.mai_star import GAME
from arena.match.bots import parse_bot
from arena.match.referee import play_match
from arena.match.replay import read, verify
from arena.match.results import Limits

ROOT = Path(__file__).resolve().parents[3]


def last_round(seed: int) -> dict[str, Any]:
    """The position at the first decision of round 3 of a randomly played game."""
    state = GAME.new(3, seed)
    rng = random.Random(seed)
    while state.position()["round"] < 3:
        decision = state.pending()[0]
        state.act(decision.seat, rng.randrange(len(decision.options)))
    return state.position()


@pytest.mark.bots
def test_search_bot_plays_a_match(tmp_path: Path) -> None:
    """From the last round of a game, on a fiftieth of a 1 s clock per decision; the replay
    verifies."""
    bots = [
        parse_bot("search=python sample_bots/python/mai_star_search.py --fraction 0.02", ROOT),
        parse_bot("greedy=python sample_bots/python/mai_star_greedy.py", ROOT),
        parse_bot("random=python sample_bots/python/random_bot.py --seed 4", ROOT),
    ]
    replay = tmp_path / "match.json"
    limits = Limits(init_ms=20_000, move_ms=1_000, bank_ms=20_000)
    result = play_match(
        GAME, bots, seed=5, limits=limits, replay_path=replay, position=last_round(5)
    )
    assert result.void is None, result.void
    for seat in result.seats:
        assert seat.status == "ok", (seat.name, seat.status, seat.detail, seat.log_tail)
    assert result.seats[0].decisions > 5
    assert verify(read(replay)).ok
