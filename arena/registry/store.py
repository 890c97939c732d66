"""The registry: a folder of immutable bot versions and the SQLite file that describes them.

Layout (``docs`` in ``protocol/PROTOCOL.md``, "Submitting a bot")::

    registry.db            one row per version: hash, status and its reason; its reports
                           (build log, validation report) in a table of their own
    registry.lock          held while a version number is chosen and its folder made
    bots/NAME/N/           the files of NAME@N, read-only: what is stored is what plays
    logs/NAME/N/build.log  the build's output as it ran

A version's status moves (``queued`` ->) ``building`` -> ``validating`` -> ``active`` or
``rejected``; ``queued`` is a server's version waiting for its turn in the gate queue. A
version whose gate this machine could not run (no sandbox, a build or check cut by the server
stopping) is ``waiting``, with the host's reason: no bot is blamed, and ``arena bot recheck``
runs its gate again. An active version may later be ``retired`` (by its author) or
``suspended`` (by the crash policy). Only active versions are entered into ladders. The
folder of a version is never changed after its gate.

Pages list versions many times a second; the reports are read one version at a time, when
asked for, and each is capped at ``REPORT_BYTES`` (its head and its tail), so no author's
log can make a listing slow.
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

from arena import names
from arena.names import BadName, check_name, clash, clash_message
from arena.paths import PathError, component, contained
from arena.registry.manifest import Manifest

STATUSES = (
    "queued",
    "building",
    "validating",
    "active",
    "rejected",
    "waiting",
    "retired",
    "suspended",
)
UNFINISHED = ("queued", "building", "validating")  # the gate has not said yet
RECHECKABLE = ("waiting", "rejected")  # ``arena bot recheck`` runs their gate again
REPORT_BYTES = 256 << 10  # of each report kept: its head and its tail around a cut marker

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
    PRIMARY KEY (name, number)
);
CREATE INDEX IF NOT EXISTS versions_hash ON versions (name, hash);
CREATE TABLE IF NOT EXISTS reports (
    name TEXT NOT NULL,
    number INTEGER NOT NULL,
    build_log TEXT NOT NULL DEFAULT '',
    validation TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (name, number)
);
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


VERSION_COLUMNS = "name, number, hash, status, reason, manifest, source, files, bytes, submitted_at"


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
    folder: Path

    @property
    def ref(self) -> str:
        """``alice@3``: the name its results are stored under in every ladder."""
        return f"{self.name}@{self.number}"


@dataclass(frozen=True)
class Reports:
    """What a version's gate wrote: its build's log and its validation report (each capped)."""

    build_log: str = ""
    validation: str = ""


def capped(text: str, limit: int = REPORT_BYTES) -> str:
    """``text`` when it is at most ``limit`` UTF-8 bytes, else its head and its tail around a
    ``[... N bytes cut ...]`` line: a compiler's first error comes first, a crash's last words
    at the end."""
    data = text.encode()
    if len(data) <= limit:
        return text
    head = data[: limit // 4]
    tail = data[len(data) - (limit - len(head)) :]
    cut = len(data) - len(head) - len(tail)
    return (head + f"\n[... {cut} bytes cut ...]\n".encode() + tail).decode(errors="replace")


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
            self._move_reports_out()
        except (OSError, sqlite3.Error) as exc:
            raise RegistryError(f"{root}: cannot open the registry ({exc})") from None

    def _move_reports_out(self) -> None:
        """A registry made before reports had their own table keeps them in ``versions``:
        moved (capped) to ``reports``, the old columns dropped, in one transaction."""
        columns = {r["name"] for r in self.conn.execute("PRAGMA table_info(versions)")}
        if "build_log" not in columns:
            return
        with self._transaction():
            rows = self.conn.execute("SELECT name, number, build_log, validation FROM versions")
            self.conn.executemany(
                "INSERT OR REPLACE INTO reports VALUES (?, ?, ?, ?)",
                [(r[0], r[1], capped(r[2]), capped(r[3])) for r in rows],
            )
            self.conn.execute("ALTER TABLE versions DROP COLUMN build_log")
            self.conn.execute("ALTER TABLE versions DROP COLUMN validation")

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

    def _path(self, *parts: str, resolve: bool = True) -> Path:
        """``root/part/...``, each part one plain component, and (when ``resolve``) checked to
        stay inside the root once resolved."""
        try:
            if not resolve:
                return self.root.joinpath(*(component(p) for p in parts))
            return contained(self.root, *parts)
        except PathError as exc:
            raise RegistryError(f"{self.root}: a registry path refused: {exc}") from None

    @contextlib.contextmanager
    def working(self, version: Version) -> Iterator[bool]:
        """Held by whoever runs ``version``'s gate (a lock on its folder, released when that
        process dies, even by SIGKILL); yields False when another process holds it."""
        fd = os.open(version.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            yield True
        finally:
            os.close(fd)

    # -- reading -------------------------------------------------------------------------------

    def versions(self, name: str | None = None, status: str | None = None) -> list[Version]:
        """Every version (of ``name``, in ``status``), by name then number; no reports."""
        where = [f"{column} = ?" for column, v in (("name", name), ("status", status)) if v]
        query = (
            f"SELECT {VERSION_COLUMNS} FROM versions"
            + (f" WHERE {' AND '.join(where)}" if where else "")
            + " ORDER BY name, number"
        )
        rows = self.conn.execute(query, tuple(v for v in (name, status) if v))
        return [self._version(r) for r in rows]

    def reports(self, ref: str) -> Reports:
        """The build log and validation report of one version (empty before its gate)."""
        version = self.get(ref)
        query = "SELECT build_log, validation FROM reports WHERE name = ? AND number = ?"
        row = self.conn.execute(query, (version.name, version.number)).fetchone()
        return Reports(row[0], row[1]) if row else Reports()

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
        query = (
            f"SELECT {VERSION_COLUMNS} FROM versions WHERE name = ? AND hash = ? "
            "ORDER BY number LIMIT 1"
        )
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
        status: str = "building",
        claim: Callable[[str], None] | None = None,
    ) -> int:
        """A new version in ``status`` (``building``, or ``queued`` for a server's gate queue);
        its number. Call under :meth:`locked`. ``claim(name)`` is called just before the row is
        written and may refuse it (the server makes the name its author's there: a name is
        claimed when a version of it is stored, never by an upload refused before)."""
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
            number: int = row[0] + 1
            self.conn.execute(
                "INSERT INTO versions (name, number, hash, status, manifest, source, files, "
                "bytes, submitted_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (name, number, digest, status, json.dumps(manifest.as_dict()), str(source),
                 files, size, now, now),
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
        """Move a version to ``status`` with its reason (and reports, when given, capped)."""
        assert status in STATUSES
        version = self.get(ref)
        key = (version.name, version.number)
        with self._transaction():
            self.conn.execute(
                "UPDATE versions SET status = ?, reason = ?, updated_at = ? "
                "WHERE name = ? AND number = ?",
                (status, reason, time.time(), *key),
            )
            self.conn.execute("INSERT OR IGNORE INTO reports (name, number) VALUES (?, ?)", key)
            for column, value in (("build_log", build_log), ("validation", validation)):
                if value is not None:
                    self.conn.execute(
                        f"UPDATE reports SET {column} = ? WHERE name = ? AND number = ?",
                        (capped(value), *key),
                    )
        return self.get(version.ref)

    def move(self, ref: str, before: tuple[str, ...], status: str, reason: str = "") -> bool:
        """Move a version to ``status`` only if it is in one of ``before`` now (one statement:
        two processes asking at once cannot both move it); whether it moved."""
        assert status in STATUSES
        version = self.get(ref)
        marks = ", ".join("?" * len(before))
        with self._transaction():
            moved = self.conn.execute(
                "UPDATE versions SET status = ?, reason = ?, updated_at = ? "
                f"WHERE name = ? AND number = ? AND status IN ({marks})",
                (status, reason, time.time(), version.name, version.number, *before),
            ).rowcount
        return moved == 1

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
