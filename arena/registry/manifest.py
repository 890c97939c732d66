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
from arena.names import RULE, is_name
from arena.paths import PathError, read_beneath
from arena.sandbox.paths import inside, system_runtime

MANIFEST = "arena-bot.toml"
KEYS = ("name", "language", "run", "build", "transport", "games", "files")
# Every field is bounded, and the file as a whole: a manifest is read into every page that
# lists bots, so a 30 MiB ``language`` must never get that far.
MAX_MANIFEST_BYTES = 64 << 10
MAX_CHARS = {"language": 100, "run": 1000, "build": 4000}
MAX_BOTS = 64  # [[bot]] tables in one manifest
MAX_FILES = 64  # patterns of ``files``
MAX_PATTERN = 255


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
    try:  # never through a link: a build or an archive could have made this one
        data = tomllib.loads(read_beneath(folder, MANIFEST, MAX_MANIFEST_BYTES).decode())
    except FileNotFoundError:
        raise ManifestError(f"{path}: no manifest (a bot directory needs {MANIFEST})") from None
    except PathError as exc:
        raise ManifestError(f"{folder}/{exc}") from None
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
        if len(tables) > MAX_BOTS:
            raise ManifestError(f"{path}: bot: at most {MAX_BOTS} bots in one manifest")
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
            raise error(key, f"expected a non-empty string, got {_short(value)}")
        if len(value) > MAX_CHARS.get(key, len(value)):
            raise error(key, f"at most {MAX_CHARS[key]} characters, got {len(value)}")
        return value

    def strings(key: str, most: int) -> tuple[str, ...]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise error(key, f"expected an array of strings, got {_short(value)}")
        if len(value) > most:
            raise error(key, f"at most {most} entries, got {len(value)}")
        return tuple(value)

    name = data.get("name")
    if not isinstance(name, str) or not is_name(name):
        raise error("name", f"expected {RULE}, got {_short(name)}")
    try:
        run = tuple(shlex.split(text("run") or ""))
    except ValueError as exc:
        raise error("run", str(exc)) from None
    outside = run_outside(run)
    if outside:
        raise error("run", outside)
    transport = data.get("transport", "zmq")
    if transport not in TRANSPORTS:
        got = _short(transport)
        raise error("transport", f"expected one of {', '.join(TRANSPORTS)}, got {got}")
    known = available_games()
    games = strings("games", len(known))
    for game in games:
        if game not in known:
            raise error("games", f"unknown game {_short(game)} (installed: {', '.join(known)})")
    files = strings("files", MAX_FILES)
    for pattern in files:
        if len(pattern) > MAX_PATTERN:
            raise error("files", f"{_short(pattern)}: at most {MAX_PATTERN} characters")
        if pattern.startswith("/") or ".." in Path(pattern).parts:
            raise error("files", f"{pattern!r}: patterns are relative to the manifest's folder")
    return Manifest(
        name, text("language") or "", run, text("build", False), transport, games, files
    )


def _short(value: object) -> str:
    """A value of the manifest quoted for a message, cut short (it may be huge)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:60]}... ({len(text)} characters)"
