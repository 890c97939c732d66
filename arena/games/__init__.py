"""Rules engines, found through the ``arena.games`` entry point group.

Every game, the built-in ones included, is registered as an entry point whose object is a
:class:`~arena.games.base.Game` instance, so a game shipped in another package plugs in by
declaring ``[project.entry-points."arena.games"] my_game = "my_pkg:GAME"``.
"""

from __future__ import annotations

import sys
from functools import cache
from importlib import resources
from importlib.metadata import EntryPoint, entry_points

from .base import Game


class UnknownGame(LookupError):
    """A game id that no installed entry point provides."""


GROUP = "arena.games"


@cache
def available_games() -> dict[str, Game]:
    """Installed games by id, sorted by id."""
    return {ep.name: _loaded(ep) for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name)}


@cache
def load_game(game_id: str) -> Game:
    """The installed game with this id, loaded alone (a worker playing one game never imports
    the others: tens of ms at its start); UnknownGame (naming the known ids) otherwise."""
    for ep in entry_points(group=GROUP, name=game_id):
        return _loaded(ep)
    known = ", ".join(sorted(ep.name for ep in entry_points(group=GROUP))) or "none installed"
    raise UnknownGame(f"unknown game {game_id!r} (known games: {known})")


def _loaded(ep: EntryPoint) -> Game:
    """The game an entry point names, checked to be one and to carry the entry point's id."""
    game = ep.load()
    if not isinstance(game, Game):
        raise TypeError(f"entry point {ep.name!r} ({ep.value}) is not an arena Game instance")
    if game.id != ep.name:
        raise TypeError(f"entry point {ep.name!r} provides a game whose id is {game.id!r}")
    return game


def packaged_text(game: Game, name: str) -> str | None:
    """A file the game ships beside its engine (``RULES.md``, ``render.js``), or None.

    Looked up in the package of the game's class, so a game from another package brings its own.
    """
    module = sys.modules[type(game).__module__]
    package = module.__package__ or module.__name__
    try:
        return (resources.files(package) / name).read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError, ModuleNotFoundError):
        return None
