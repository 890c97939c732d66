"""The Happy Mochi search bot plays through the real referee without a fault, from a position."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.games.happy_mochi import GAME
from arena.match.bots import parse_bot
from arena.match.referee import play_match
from arena.match.replay import read, verify
from arena.match.results import Limits

ROOT = Path(__file__).resolve().parents[3]

# The last round of a game: four cards each, seat 1 one round from losing on 30 points.
ENDGAME = {
    "form": "short",
    "game": "happy_mochi",
    "seed": 8,
    "options": {"max_rounds": 3},
    "round": 3,
    "hands": [
        ["blue 4", "blue 7", "pink 9", "green 9"],
        ["yellow 0", "orange 8", "orange 5", "brown 6"],
        ["purple 3", "purple 2", "pink 1", "green 6"],
    ],
    "T": ["pink 0", "brown 4"],
    "U": ["purple 1", "brown 3"],
    "draw": ["green 3", "green 2", "orange 6", "yellow 7", "blue 1", "pink 8"],
    "totals": [6, 26, 17],
    "round_scores": [[6, 10, 0], [0, 16, 17]],
    "round_winners": [2, 0],
}


@pytest.mark.bots
def test_search_bot_plays_an_endgame_through_the_referee(tmp_path: Path) -> None:
    """A tenth of a 1 s clock per decision; every seat ends ok and the replay verifies."""
    bots = [
        parse_bot("search=python sample_bots/python/happy_mochi_search.py --fraction 0.1", ROOT),
        parse_bot("greedy=python sample_bots/python/mochi_greedy.py", ROOT),
        parse_bot("random=python sample_bots/python/random_bot.py --seed 4", ROOT),
    ]
    replay = tmp_path / "match.json"
    limits = Limits(init_ms=20_000, move_ms=1_000, bank_ms=20_000)
    position = GAME.load(ENDGAME).position()
    result = play_match(
        GAME,
        bots,
        seed=5,
        options=position["options"],
        limits=limits,
        replay_path=replay,
        position=position,
    )
    assert result.void is None, result.void
    for seat in result.seats:
        assert seat.status == "ok", (seat.name, seat.status, seat.detail, seat.log_tail)
    assert result.seats[0].decisions > 0
    assert verify(read(replay)).ok
