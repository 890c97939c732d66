"""The Mai-Star search bot plays a whole match through the real referee without a fault."""

from __future__ import annotations

from pathlib import Path

from arena.games.mai_star import GAME
from arena.match.bots import parse_bot
from arena.match.referee import Limits, play_match
from arena.match.replay import read, verify

ROOT = Path(__file__).resolve().parents[3]


def test_search_bot_plays_a_match(tmp_path: Path) -> None:
    """A fiftieth of a 1 s clock per decision keeps it short; the replay verifies."""
    bots = [
        parse_bot("search=python sample_bots/python/mai_star_search.py --fraction 0.02", ROOT),
        parse_bot("greedy=python sample_bots/python/mai_star_greedy.py", ROOT),
        parse_bot("random=python sample_bots/python/random_bot.py --seed 4", ROOT),
    ]
    replay = tmp_path / "match.json"
    limits = Limits(init_ms=20_000, move_ms=1_000, bank_ms=20_000)
    result = play_match(GAME, bots, seed=5, limits=limits, replay_path=replay)
    assert result.void is None, result.void
    for seat in result.seats:
        assert seat.status == "ok", (seat.name, seat.status, seat.detail, seat.log_tail)
    assert result.seats[0].decisions > 20
    assert verify(read(replay)).ok
