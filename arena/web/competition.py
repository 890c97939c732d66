"""Competition files (TOML): a ladder file whose bots come from the registry, plus ``[server]``.

A competition file holds every key of a ladder file (``ladders/README.md``: game, seats,
rounds, seed, options, limits, rating, database, replays, registry) and a ``[server]`` table.
Its ``[[bots]]`` are optional house bots; every bot of the registry with an active version for
the game joins under its latest active version (``alice@3``), so the ladder grows as authors
submit. With a ``[follow]`` table the ladder is a following one (``arena/ladder/follow.py``). The
ladder is checked exactly as ``arena ladder run`` checks a file, with the same messages.
``competitions/README.md`` documents the keys; relative paths are relative to the file.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.ladder.config import (
    LadderConfig,
    LadderConfigError,
    TableReader,
    load_ladder,
    replays_folder,
)
from arena.ladder.database import Location, is_url, locate
from arena.registry.content import MAX_FILES
from arena.registry.gate import CHECK_GAMES
from arena.registry.store import Registry

SERVER_KEYS = (
    "accounts",
    "upload_mb",
    "expanded_mb",
    "max_files",
    "uploads_per_hour",
    "workers",
    "check_games",
    "poll_s",
    "page_poll_s",
    "cluster",
    "builders",
    "gates_per_author",
    "upload_timeout_s",
    "header_timeout_s",
    "max_connections",
    "connections_per_address",
)


@dataclass(frozen=True)
class ServerSettings:
    """The ``[server]`` table: where authors are kept and what an upload may be."""

    accounts: Location  # a SQLite file, or a postgresql:// URL
    upload_mb: int = 8  # the archive as sent
    expanded_mb: int = 64  # every file of it unpacked
    max_files: int = MAX_FILES
    uploads_per_hour: int = 12  # per author, counted over the last hour
    workers: int = 2  # local match workers of the background ladder
    check_games: int = CHECK_GAMES  # check-bot matches per game in the validation gate
    poll_s: int = 5  # how often the runner looks for new versions when idle
    page_poll_s: int = 5  # how often an open page asks whether what it shows changed
    cluster: str | None = None  # a Dask scheduler's address: matches play there, not locally
    builders: int = 1  # builds at a time in the gate queue (validations: one at a time)
    gates_per_author: int = 2  # an author's versions queued or in the gate at once
    upload_timeout_s: int = 120  # for an upload's body to arrive whole
    header_timeout_s: int = 10  # for a request's head to arrive whole
    max_connections: int = 1000  # open at once; past it, requests are answered 503
    connections_per_address: int = 64  # open at once from one client address


@dataclass(frozen=True)
class Competition:
    """A checked competition file."""

    path: Path
    data: dict[str, Any]  # the ladder part, as read
    server: ServerSettings
    registry: Path
    house: tuple[str, ...]  # names of the house bots (authors cannot take them)
    runtime_paths: tuple[str, ...] = ()  # shown to every bot, builds too (ladders/README.md)

    @property
    def database(self) -> Location:
        """The ladder database (as ``load_ladder`` resolves it): a file, or a server's URL."""
        return _database(self.data, self.path)

    @property
    def replays(self) -> Path | None:
        """The folder of the ladder's replays (as ``load_ladder`` finds it), or None."""
        base = self.path.resolve().parent
        return replays_folder(self.data.get("replays", False), base, self.path.stem)

    @property
    def following(self) -> bool:
        """A ``[follow]`` table: the ladder plays on for ever, new versions placed first."""
        return "follow" in self.data

    def ladder(self, check_bots: bool = False) -> LadderConfig | None:
        """The ladder as it stands now: house bots and every bot's latest active version;
        None while a ladder that is not following has fewer bots than seats."""
        names = registry_bots(self.registry, str(self.data.get("game")), self.following)
        bots = list(self.data.get("bots", [])) + [{"bot": n} for n in names]
        if not self.following and len(bots) < int(self.data.get("seats", 0)):
            return None
        return load_ladder(self.path, check_bots, self.data | {"bots": bots})


def registry_bots(registry: Path, game: str, every: bool = False) -> list[str]:
    """Bots of the registry that play ``game``, sorted (never in set or hash order): those with
    an active version, or ``every`` one that has a version (a following ladder keeps a bot
    with none active now waiting, and its earlier versions in the table)."""
    if not (registry / "registry.db").is_file():
        return []
    with Registry(registry) as reg:
        versions = reg.versions()
    return sorted(
        {
            v.name
            for v in versions
            if (every or v.status == "active")
            and (not v.manifest.games or game in v.manifest.games)
        }
    )


def load_competition(path: Path) -> Competition:
    """Read and check a competition file; LadderConfigError naming the file and key."""
    label = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LadderConfigError(f"{label}: cannot read: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise LadderConfigError(f"{label}: not valid TOML: {exc}") from None
    base = path.resolve().parent
    problems: list[str] = []
    table = TableReader(label, data, problems=problems).table("server")
    table.only(SERVER_KEYS)
    ladder = {k: v for k, v in data.items() if k != "server"}
    server = table.attempt(lambda: _server(table, base, path.stem, _database(ladder, path)), None)
    ladder.setdefault("bots", [])
    # The ladder keys are checked now, on the house bots alone, so a mistake stops the server
    # before it starts (a ladder with too few bots yet is not a mistake).
    try:
        load_ladder(path, False, ladder)
    except LadderConfigError as exc:
        problems += [p for p in exc.problems if "cannot fill" not in p]
    if problems:
        raise LadderConfigError(*problems)
    assert server is not None
    registry = base / str(data.get("registry", "registry"))
    house = tuple(str(b.get("name", "")) for b in ladder["bots"] if isinstance(b, dict))
    if "" in house:
        raise LadderConfigError(f"{label}: bots: every house bot needs a name")
    runtime = tuple(ladder.get("runtime_paths", ()))  # checked by load_ladder above
    return Competition(path, ladder, server, registry, house, runtime)


def _database(ladder: dict[str, Any], path: Path) -> Location:
    return locate(str(ladder.get("database", f"{path.stem}.db")), path.resolve().parent)


def _server(table: TableReader, base: Path, stem: str, database: Location) -> ServerSettings:
    """The ``[server]`` table; the authors live in the ladder's database when it is a server's,
    else in a file of their own beside it (unless ``accounts`` says where)."""
    default = database if is_url(database) else f"{stem}.accounts.db"
    d = ServerSettings(base / f"{stem}.accounts.db")
    return ServerSettings(
        accounts=locate(table.get("accounts", "a string", str(default)), base),
        upload_mb=table.integer("upload_mb", d.upload_mb, 1),
        expanded_mb=table.integer("expanded_mb", d.expanded_mb, 1),
        max_files=table.integer("max_files", d.max_files, 1),
        uploads_per_hour=table.integer("uploads_per_hour", d.uploads_per_hour, 1),
        workers=table.integer("workers", d.workers, 1),
        check_games=table.integer("check_games", d.check_games, 1),
        poll_s=table.integer("poll_s", d.poll_s, 1),
        page_poll_s=table.integer("page_poll_s", d.page_poll_s, 1),
        cluster=table.get("cluster", "a string"),
        builders=table.integer("builders", d.builders, 1),
        gates_per_author=table.integer("gates_per_author", d.gates_per_author, 1),
        upload_timeout_s=table.integer("upload_timeout_s", d.upload_timeout_s, 1),
        header_timeout_s=table.integer("header_timeout_s", d.header_timeout_s, 1),
        max_connections=table.integer("max_connections", d.max_connections, 1),
        connections_per_address=table.integer(
            "connections_per_address", d.connections_per_address, 1
        ),
    )
