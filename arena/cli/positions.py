"""Rules and positions on the command line: ``arena rules``, ``arena replay position`` and the
position file of ``arena play --position``.

A game's rules are the ``RULES.md`` shipped beside its module, found with importlib.resources,
so a game from another package prints its own. Positions are JSON files (full or short form, see
each game's README); a bad one is refused with the field the game names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from arena.games import UnknownGame, load_game, packaged_text
from arena.games.base import Game, PositionError
from arena.match.replay import ReplayError, position_at, read

RULES_FILE = "RULES.md"
MAX_DEPTH = 32  # levels of nesting a position file may have (a game's use a handful)


class RulesMissing(LookupError):
    """A game that ships no RULES.md beside its module."""


def rules_text(game: Game) -> str:
    """The game's packaged rules (``RULES.md`` beside its engine)."""
    text = packaged_text(game, RULES_FILE)
    if text is None:
        raise RulesMissing(
            f"game {game.id!r} ships no {RULES_FILE} (looked in {type(game).__module__})"
        )
    return text


def read_position(game: Game, path: Path, players: int) -> dict[str, Any]:
    """The full position in ``path`` (full or short form), checked by the game.

    Raises ValueError with the file and the field at fault.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such position file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a JSON position ({exc})") from None
    except RecursionError:
        raise ValueError(f"{path}: not a JSON position (nested too deeply)") from None
    deep = too_deep(data)
    if deep:
        raise ValueError(f"{path}: {deep}: nested more than {MAX_DEPTH} levels deep")
    try:
        position = game.load(data).position()
    except PositionError as exc:
        raise ValueError(f"{path}: {exc}") from None
    if position is None:
        raise ValueError(f"{game.id} cannot start from a position")
    if position["players"] != players:
        raise ValueError(
            f"{path}: the position is for {position['players']} players, got {players} --bot"
        )
    return position


def too_deep(data: Any) -> str:
    """The top-level field of ``data`` nested deeper than ``MAX_DEPTH``, else '' (a game's
    checks may recurse; a real position nests a few levels only)."""
    fields = data.items() if isinstance(data, dict) else [("position", data)]
    for name, value in fields:
        stack = [(value, 1)]
        while stack:
            item, depth = stack.pop()
            if depth > MAX_DEPTH:
                return str(name)
            if isinstance(item, dict | list):
                children = item.values() if isinstance(item, dict) else item
                stack += [(child, depth + 1) for child in children]
    return ""


def position_json(position: dict[str, Any]) -> str:
    """A position as JSON with one field per line (the generator's 625 words stay on one)."""
    fields = [
        f" {json.dumps(k)}: {json.dumps(v, separators=(', ', ': '))}" for k, v in position.items()
    ]
    return "{\n" + ",\n".join(fields) + "\n}"


def _fail(message: str) -> NoReturn:
    typer.echo(f"arena: error: {message}", err=True)
    raise typer.Exit(2)


def rules(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id (see `arena games`).")],
) -> None:
    """Print the game's rules: how it is played and won, every ruling the engine follows."""
    try:
        typer.echo(rules_text(load_game(game_id)), nl=False)
    except (UnknownGame, RulesMissing) as exc:
        _fail(str(exc))


def replay_position(
    path: Annotated[Path, typer.Argument(metavar="REPLAY", help="Replay file.")],
    at: Annotated[int, typer.Option("--at", help="Decision number, from 1 (as `replay show`).")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the JSON here [default: stdout].")
    ] = None,
) -> None:
    """Write the position before decision N of a replay, to start a match from it
    (`arena play GAME --position FILE`) or to study a decision."""
    try:
        text = position_json(position_at(read(path), at))
    except ReplayError as exc:
        _fail(str(exc) if str(exc).startswith(str(path)) else f"{path}: {exc}")
    if out is None:
        typer.echo(text)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n", encoding="utf-8")
    typer.echo(f"position before decision {at}: {out}")
