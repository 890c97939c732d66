"""Every installed game, at every seat count and with each option value, through the real referee.

Random Python bots play a full match over ZeroMQ; every seat must finish `ok` and the replay
must verify by re-simulation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.games import available_games
from arena.games.base import Game, OptionError
from arena.match.bots import parse_bot
from arena.match.referee import play_match
from arena.match.replay import read, verify
from arena.match.results import Limits

ROOT = Path(__file__).resolve().parents[2]
LIMITS = Limits(init_ms=10_000, move_ms=5_000, bank_ms=10_000)


def option_variants(game: Game) -> list[tuple[int, dict[str, Any]]]:
    """(players, options) for each non-default value of every bool or multiple-choice option."""
    variants = []
    for spec in game.options:
        values = spec.choices if spec.choices is not None else (True, False)
        if spec.type is not bool and spec.choices is None:
            continue
        for value in values:
            if value == spec.default:
                continue
            for players in range(game.min_players, game.max_players + 1):
                try:
                    game.resolve_options({spec.name: value}, players)
                except OptionError:
                    continue
                variants.append((players, {spec.name: value}))
                break
    return variants


CASES = [
    pytest.param(game, players, {}, id=f"{game.id}-{players}p")
    for game in available_games().values()
    for players in range(game.min_players, game.max_players + 1)
] + [
    pytest.param(game, players, options, id=f"{game.id}-{players}p-{options}")
    for game in available_games().values()
    for players, options in option_variants(game)
]


@pytest.mark.parametrize(("game", "players", "options"), CASES)
def test_random_bots_finish_and_the_replay_verifies(
    game: Game, players: int, options: dict[str, Any], tmp_path: Path
) -> None:
    bots = [
        parse_bot(f"python sample_bots/python/random_bot.py --seed {i}", ROOT)
        for i in range(players)
    ]
    path = tmp_path / "replay.json"
    result = play_match(game, bots, seed=players, options=options, limits=LIMITS, replay_path=path)
    assert result.void is None
    assert [s.status for s in result.seats] == ["ok"] * players, [s.detail for s in result.seats]
    assert result.ranks == list(result.outcome["ranks"])
    verdict = verify(read(path))
    assert verdict.ok, verdict.message
