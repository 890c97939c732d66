"""Every game's README describes its ``welcome.game.data`` (PROTOCOL.md section 5.2 says it
does): each key of ``Game.public_data`` and each field of the records it lists is named there, so
an author of any language learns it without reading the engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.games import available_games, load_game

GAMES = sorted(available_games())


def _readme(game_id: str) -> str:
    module = __import__(type(load_game(game_id)).__module__, fromlist=["_"])
    return (Path(module.__file__).parent / "README.md").read_text(encoding="utf-8")


def _names(data: dict) -> set[str]:
    """The keys of the data, and the fields of every map it holds in a list or a map."""
    names = set(data)
    for value in data.values():
        items = value if isinstance(value, list) else []
        for item in items:
            if isinstance(item, dict):
                names |= set(item)
    return names


@pytest.mark.parametrize("game_id", GAMES)
def test_each_games_readme_describes_its_public_data(game_id: str) -> None:
    game = load_game(game_id)
    data = game.public_data(game.resolve_options({}, game.min_players))
    text = _readme(game_id)
    assert "game.data" in text, f"{game_id}'s README never says what game.data holds"
    missing = sorted(name for name in _names(data) if f"`{name}`" not in text)
    assert missing == [], f"{game_id}'s README does not name {missing}"
