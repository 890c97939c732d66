"""The Motora search bot plays a short match through the real referee without a fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.games import load_game
from arena.match.bots import parse_bot
from arena.match.referee import play_match
from arena.match.replay import read, verify
from arena.match.results import Limits

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.bots
def test_search_bot_plays_a_match(tmp_path: Path) -> None:
    bots = [
        parse_bot(
            "search=python sample_bots/python/motora_search.py --seed 3 --fraction 0.02", ROOT
        ),
        parse_bot("greedy=python sample_bots/python/motora_greedy.py", ROOT),
        parse_bot("random=python sample_bots/python/random_bot.py --seed 2", ROOT),
    ]
    replay = tmp_path / "r.json"
    # Two turns (turn_limit) and 20 ms of search per decision keep it quick; the clock leaves
    # room for a loaded machine.
    limits = Limits(init_ms=10_000, move_ms=1_000, bank_ms=10_000)
    result = play_match(
        load_game("motora"),
        bots,
        seed=4,
        options={"turn_limit": 2},
        limits=limits,
        replay_path=replay,
    )
    assert result.void is None, result.void
    for seat in result.seats:
        assert seat.status == "ok", (seat.name, seat.status, seat.detail, seat.log_tail)
    assert result.seats[0].decisions > 10
    assert verify(read(replay)).ok
