"""The registry: a folder of immutable bot versions and the SQLite file that describes them.

Layout (``docs`` in ``protocol/PROTOCOL.md``, "Submitting a bot")::

    registry.db            one row per version: hash, status and its reasons, reports
    registry.lock          held while a version number is chosen and its folder made
    bots/NAME/N/           the files of NAME@N, read-only: what is stored is what plays
    logs/NAME/N/build.log  the build's whole output

A version's status moves ``building`` -> ``validating`` -> ``active`` or ``rejected``; an
active version may later be ``retired`` (by its author) or ``suspended`` (by the crash
policy). Only active versions are entered into ladders. The row and the folder of a version
are never changed after its gate, apart from its status.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from arena import names
from arena.names import BadName, check_name, clash, clash_message
from arena.paths import PathError, component, contained, open_beneath
from arena.registry.manifest import Manifest

STATUSES = ("building", "validating", "active", "rejected", "retired", "suspended")

SCHEMA = """
CREATE TABLE IF NOT EXISTS versions (
    name TEXT NOT NULL,
    number INTEGER NOT NULL,
    hash TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    manifest TEXT NOT NULL,
    source TEXT NOT NULL,
    files INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    submitted_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    build_log TEXT NOT NULL DEFAULT '',
    validation TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (name, number)
);
CREATE INDEX IF NOT EXISTS versions_hash ON versions (name, hash);
CREATE TABLE IF NOT EXISTS faults (
    ladder TEXT NOT NULL,
    match_id TEXT NOT NULL,
    bot TEXT NOT NULL,
    status TEXT NOT NULL,
    detail TEXT NOT NULL,
    log_tail TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (ladder, match_id, bot)
);
"""


class RegistryError(ValueError):
    """A bot or version that is not in the registry, or a registry that cannot be used."""


class NoActiveVersion(RegistryError):
    """A bot with versions, none of them active (rejected, retired or suspended)."""


@dataclass(frozen=True)
class Version:
    """One stored version of a bot."""

    name: str
    number: int
    hash: str
    status: str
    reason: str
    manifest: Manifest
    source: str
    files: int
    bytes: int
    submitted_at: float
    build_log: str
    validation: str
    folder: Path

    @property
    def ref(self) -> str:
        """``alice@3``: the name its results are stored under in every ladder."""
        return f"{self.name}@{self.number}"


def parse_ref(text: str) -> tuple[str, int | None]:
    """``alice`` -> (alice, None); ``alice@3`` -> (alice, 3); RegistryError otherwise."""
    try:
        return names.parse_ref(text)
    except BadName as exc:
        raise RegistryError(str(exc)) from None


class Registry:
    """An open registry folder (made when missing)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        try:
            (root / "bots").mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(root / "registry.db", isolation_level=None, timeout=60)
            self.conn.row_factory = sqlite3.Row
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise RegistryError(f"{root}: cannot open the registry ({exc})") from None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Exclusive: one submission at a time chooses a number and makes its folder."""
        fd = os.open(self.root / "registry.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def folder(self, name: str, number: int) -> Path:
        """``bots/NAME/N``: a build writes here, so nothing of the server's is kept here."""
        return self._path("bots", name, str(number))

    def log_path(self, name: str, number: int) -> Path:
        """``logs/NAME/N/build.log``: outside every folder a build or a bot may write."""
        return self._path("logs", name, str(number), "build.log")

    def open_log(self, name: str, number: int) -> BinaryIO:
        """The build log of ``name@number`` for reading, no link followed (PathError)."""
        path = self.log_path(name, number)
        return open_beneath(self.root, path.relative_to(self.root).as_posix())

    def _path(self, *parts: str, resolve: bool = True) -> Path:
        """``root/part/...``, each part one plain component, and (when ``resolve``) checked to
        stay inside the root once resolved."""
        try:
            if not resolve:
                return self.root.joinpath(*(component(p) for p in parts))
            return contained(self.root, *parts)
        except PathError as exc:
            raise RegistryError(f"{self.root}: a registry path refused: {exc}") from None

    # -- reading -------------------------------------------------------------------------------

    def versions(self, name: str | None = None) -> list[Version]:
        """Every version (of ``name``), by name then number."""
        if name is None:
            rows = self.conn.execute("SELECT * FROM versions ORDER BY name, number")
        else:
            query = "SELECT * FROM versions WHERE name = ? ORDER BY number"
            rows = self.conn.execute(query, (name,))
        return [self._version(r) for r in rows]

    def get(self, ref: str) -> Version:
        """``alice@3``, or the latest version of ``alice`` whatever its status."""
        name, number = parse_ref(ref)
        versions = self.versions(name)
        if not versions:
            raise RegistryError(f"no bot named {name!r} in the registry {self.root}")
        if number is None:
            return versions[-1]
        for version in versions:
            if version.number == number:
                return version
        raise RegistryError(f"{name} has no version {number} (latest: {versions[-1].ref})")

    def active(self, ref: str) -> Version:
        """What a ladder plays for ``ref``: ``alice`` is its latest active version, ``alice@2``
        that version if active; RegistryError saying why not otherwise."""
        name, number = parse_ref(ref)
        if number is not None:
            version = self.get(ref)
            if version.status != "active":
                raise RegistryError(f"{version.ref} is {version.status}: {version.reason}")
            return version
        versions = self.versions(name)
        live = [v for v in versions if v.status == "active"]
        if not live:
            if not versions:
                raise RegistryError(f"no bot named {name!r} in the registry {self.root}")
            last = versions[-1]
            raise NoActiveVersion(
                f"{name} has no active version (latest: {last.ref}, {last.status})"
            )
        return live[-1]

    def with_hash(self, name: str, digest: str) -> Version | None:
        query = "SELECT * FROM versions WHERE name = ? AND hash = ? ORDER BY number LIMIT 1"
        row = self.conn.execute(query, (name, digest)).fetchone()
        return self._version(row) if row else None

    def _version(self, row: sqlite3.Row) -> Version:
        return Version(
            row["name"],
            row["number"],
            row["hash"],
            row["status"],
            row["reason"],
            Manifest.from_dict(json.loads(row["manifest"])),
            row["source"],
            row["files"],
            row["bytes"],
            row["submitted_at"],
            row["build_log"],
            row["validation"],
            # Not resolved here (every page lists versions): ``folder`` checks it where a
            # version is made.
            self._path("bots", row["name"], str(row["number"]), resolve=False),
        )

    # -- writing -------------------------------------------------------------------------------

    def add(
        self,
        name: str,
        digest: str,
        manifest: Manifest,
        source: Path,
        files: int,
        size: int,
        claim: Callable[[str], None] | None = None,
    ) -> int:
        """A new version in ``building`` state; its number. Call under :meth:`locked`.
        ``claim(name)`` is called just before the row is written and may refuse it (the
        server makes the name its author's there: a name is claimed when a version of it is
        stored, never by an upload refused before)."""
        try:
            check_name(name)
        except BadName as exc:
            raise RegistryError(str(exc)) from None
        now = time.time()
        with self._transaction():
            taken = [r[0] for r in self.conn.execute("SELECT DISTINCT name FROM versions")]
            other = clash(name, taken)
            if other is not None:
                raise RegistryError(clash_message(name, other))
            if claim is not None:
                claim(name)
            row = self.conn.execute(
                "SELECT COALESCE(MAX(number), 0) FROM versions WHERE name = ?", (name,)
            ).fetchone()
            number = row[0] + 1
            self.conn.execute(
                "INSERT INTO versions (name, number, hash, status, manifest, source, files, "
                "bytes, submitted_at, updated_at) VALUES (?, ?, ?, 'building', ?, ?, ?, ?, ?, ?)",
                (name, number, digest, json.dumps(manifest.as_dict()), str(source), files, size,
                 now, now),
            )  # fmt: skip
        return number

    def set_status(
        self,
        ref: str,
        status: str,
        reason: str = "",
        *,
        build_log: str | None = None,
        validation: str | None = None,
    ) -> Version:
        """Move a version to ``status`` with its reason (and reports, when given)."""
        assert status in STATUSES
        version = self.get(ref)
        sets = ["status = ?", "reason = ?", "updated_at = ?"]
        values: list[object] = [status, reason, time.time()]
        for column, value in (("build_log", build_log), ("validation", validation)):
            if value is not None:
                sets.append(f"{column} = ?")
                values.append(value)
        with self._transaction():
            self.conn.execute(
                f"UPDATE versions SET {', '.join(sets)} WHERE name = ? AND number = ?",
                (*values, version.name, version.number),
            )
        return self.get(version.ref)

    def suspend(self, ref: str, reason: str, ladder: str, faults: list[dict[str, str]]) -> None:
        """Suspend ``ref`` with ``reason``, keeping the faults that did it (match id, status,
        detail, stderr tail) for its author."""
        now = time.time()
        with self._transaction():
            self.conn.executemany(
                "INSERT OR IGNORE INTO faults VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(ladder, f["match_id"], ref, f["status"], f["detail"], f["log_tail"], now)
                 for f in faults],
            )  # fmt: skip
        self.set_status(ref, "suspended", reason)

    def faults(self, ref: str) -> list[dict[str, str]]:
        query = "SELECT * FROM faults WHERE bot = ? ORDER BY ladder, match_id"
        return [dict(r) for r in self.conn.execute(query, (ref,))]

    def _transaction(self) -> contextlib.AbstractContextManager[None]:
        return _transaction(self.conn)


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
