"""The bot manifest, ``arena-bot.toml``: what a bot directory is and how it is built and run.

One bot per file (top-level keys) or several bots sharing one directory (``[[bot]]`` tables,
as ``sample_bots/python/`` does, each naming its own ``files``). Every mistake is reported
with the file and the key, like a ladder file's. ``protocol/PROTOCOL.md`` documents the keys.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from arena.games import available_games
from arena.match.bots import TRANSPORTS
from arena.sandbox.paths import inside, system_runtime

MANIFEST = "arena-bot.toml"
KEYS = ("name", "language", "run", "build", "transport", "games", "files")
# A registry name may not hold "@": ``alice@3`` is version 3 of ``alice``.
NAME = re.compile(r"^[A-Za-z0-9_.+-]{1,48}$")


class ManifestError(ValueError):
    """A manifest that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Manifest:
    """One bot of a manifest file."""

    name: str
    language: str
    run: tuple[str, ...]
    build: str | None = None
    transport: str = "zmq"
    games: tuple[str, ...] = ()  # empty: every installed game
    files: tuple[str, ...] = ()  # glob patterns; empty: the whole directory

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "language": self.language,
            "run": list(self.run),
            "build": self.build,
            "transport": self.transport,
            "games": list(self.games),
            "files": list(self.files),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Manifest:
        return cls(
            data["name"],
            data["language"],
            tuple(data["run"]),
            data["build"],
            data["transport"],
            tuple(data["games"]),
            tuple(data["files"]),
        )


def read_manifests(folder: Path) -> list[Manifest]:
    """Every bot of ``folder/arena-bot.toml``; ManifestError when missing or wrong."""
    path = folder / MANIFEST
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{path}: no manifest (a bot directory needs {MANIFEST})") from None
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{path}: not valid TOML: {exc}") from None
    if "bot" in data:
        tables = data["bot"]
        if set(data) != {"bot"} or not isinstance(tables, list) or not tables:
            raise ManifestError(
                f"{path}: either top-level keys for one bot or [[bot]] tables, not both"
            )
        bots = [_bot(path, f"bot[{i}].", t) for i, t in enumerate(tables)]
    else:
        bots = [_bot(path, "", data)]
    names = [b.name for b in bots]
    for name in names:
        if names.count(name) > 1:
            raise ManifestError(f"{path}: name: {name!r} names two bots")
    return bots


def pick(folder: Path, name: str | None) -> Manifest:
    """The manifest's only bot, or the one called ``name`` when it holds several."""
    bots = read_manifests(folder)
    if len(bots) == 1:
        return bots[0]
    names = ", ".join(b.name for b in bots)
    if name is None:
        raise ManifestError(f"{folder / MANIFEST} holds several bots ({names}): choose with --name")
    for bot in bots:
        if bot.name == name:
            return bot
    raise ManifestError(f"{folder / MANIFEST}: no bot named {name!r} (bots: {names})")


def run_outside(run: tuple[str, ...]) -> str:
    """Why ``run`` names a file outside the bot's folder, or empty: a path climbing out with
    ``..``, or an absolute one outside the system's runtime (the program, its arguments and
    option values such as ``--classpath=...``). The sandbox checks again on the resolved
    paths when the bot starts (``arena/sandbox/paths.py``): a link the build made is caught
    there."""
    for arg in run:
        for piece in re.split(r"[=:,]", arg):
            path = PurePosixPath(piece)
            if ".." in path.parts:
                return f"{arg!r} climbs out of the bot's folder: name files inside it"
            if path.is_absolute() and not any(inside(Path(piece), r) for r in system_runtime()):
                return (
                    f"{arg!r} is outside the bot's folder: name files inside it, relative to "
                    "it, or programs on PATH"
                )
    return ""


def _bot(path: Path, prefix: str, data: Any) -> Manifest:
    def error(key: str, message: str) -> ManifestError:
        return ManifestError(f"{path}: {prefix}{key}: {message}")

    if not isinstance(data, dict):
        raise error("", "expected a table")
    for key in data:
        if key not in KEYS:
            raise error(key, f"unknown key (expected one of: {', '.join(KEYS)})")

    def text(key: str, required: bool = True) -> str | None:
        value = data.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value.strip():
            raise error(key, f"expected a non-empty string, got {value!r}")
        return value

    def strings(key: str) -> tuple[str, ...]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise error(key, f"expected an array of strings, got {value!r}")
        return tuple(value)

    name = text("name") or ""
    if not NAME.match(name):
        raise error("name", f"expected 1-48 letters, digits or _.+- (no @), got {name!r}")
    try:
        run = tuple(shlex.split(text("run") or ""))
    except ValueError as exc:
        raise error("run", str(exc)) from None
    outside = run_outside(run)
    if outside:
        raise error("run", outside)
    transport = data.get("transport", "zmq")
    if transport not in TRANSPORTS:
        raise error("transport", f"expected one of {', '.join(TRANSPORTS)}, got {transport!r}")
    games = strings("games")
    known = available_games()
    for game in games:
        if game not in known:
            raise error("games", f"unknown game {game!r} (installed: {', '.join(known)})")
    files = strings("files")
    for pattern in files:
        if pattern.startswith("/") or ".." in Path(pattern).parts:
            raise error("files", f"{pattern!r}: patterns are relative to the manifest's folder")
    return Manifest(
        name, text("language") or "", run, text("build", False), transport, games, files
    )
