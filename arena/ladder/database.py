"""Where a ladder's results live: a SQLite file (the embedded default) or a PostgreSQL server.

A location is a path, or a ``postgresql://`` URL (libpq's form: user, host, port, database
and parameters; a password is better kept in ``~/.pgpass`` or ``$PGPASSWORD`` than in a file).
:class:`Connection` gives both the same small interface, so the store's SQL is written once:
``?`` placeholders, rows readable by position and by column name, driver errors raised as this
module's :class:`Error` classes, and DDL whose SQLite types are widened on PostgreSQL (``REAL``
is single precision there, ``INTEGER`` 32 bits; ratings and seeds need more).

PostgreSQL's driver (psycopg) is imported only when a URL is opened.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

Location = Path | str  # a SQLite file, or a postgresql:// URL
SCHEMES = ("postgresql", "postgres")
PG_TYPES = ((re.compile(r"\bREAL\b"), "DOUBLE PRECISION"), (re.compile(r"\bINTEGER\b"), "BIGINT"))


class Error(Exception):
    """A database failure, from either backend."""


class IntegrityError(Error):
    """A constraint refused the statement (a duplicate key)."""


class OperationalError(Error):
    """The database cannot be reached, read or written (locked, read-only, disk full, down)."""


def is_url(location: Location) -> bool:
    return isinstance(location, str) and urlsplit(location).scheme in SCHEMES


def locate(value: str, base: Path) -> Location:
    """A ``database`` value of a file: a URL as given, else a path relative to ``base``."""
    return value if urlsplit(value).scheme in SCHEMES else base / value


def describe(location: Location) -> str:
    """The location for messages: a URL's password is never shown."""
    if not is_url(location):
        return str(location)
    parts = urlsplit(str(location))
    if parts.password is None:
        return str(location)
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def label(location: Location) -> str:
    """A short public name: the file's name, or the PostgreSQL database's (never its host,
    user or password)."""
    if is_url(location):
        return f"PostgreSQL database {urlsplit(str(location)).path.lstrip('/') or '(default)'}"
    return Path(location).name


def beside(location: Location, fallback: Path, suffix: str) -> Path:
    """A local file named after the database (``x.db`` -> ``x<suffix>``), or after ``fallback``
    (the ladder file) when the database is a server."""
    base = fallback if is_url(location) else Path(location)
    return base.with_name(base.stem + suffix)


def exists(location: Location) -> bool:
    """False for a SQLite file not made yet; a server is asked when opened."""
    return is_url(location) or Path(location).is_file()


def connect(location: Location, readonly: bool = False, threads: bool = False) -> Connection:
    """Open ``location`` (a SQLite file in WAL mode); ``readonly`` refuses every write;
    ``threads`` lets several threads share a SQLite connection (the caller serialises them).
    OperationalError when it cannot."""
    if is_url(location):
        return _connect_postgres(str(location), readonly)
    path = Path(location)
    target = f"file:{path}?mode=ro" if readonly else str(path)
    with _errors():
        raw = sqlite3.connect(
            target, uri=readonly, isolation_level=None, timeout=30, check_same_thread=not threads
        )
        raw.row_factory = sqlite3.Row
        if not readonly:  # readers never wait for the writer, nor it for them
            raw.execute("PRAGMA journal_mode=WAL")
    return Connection(raw, postgres=False)


class Connection:
    """One connection, either backend, in autocommit mode with explicit transactions."""

    def __init__(self, raw: Any, postgres: bool) -> None:
        self.raw = raw
        self.postgres = postgres
        self.reading = False  # in a snapshot: one inside it is part of it

    @property
    def insertion_order(self) -> str:
        """The column that orders a table's rows as they were inserted (see ``schema``)."""
        return "seq" if self.postgres else "rowid"

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        """Run one statement; its rows (none for a write)."""
        with _errors():
            cursor = self.raw.execute(self._sql(sql), tuple(params))
            return Rows(cursor.fetchall() if cursor.description is not None else ())

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = [tuple(r) for r in rows]
        if not rows:
            return
        with _errors():
            if self.postgres:
                with self.raw.cursor() as cursor:
                    cursor.executemany(self._sql(sql), rows)
            else:
                self.raw.executemany(sql, rows)

    def schema(self, ddl: str, ordered: Sequence[str] = ()) -> None:
        """Create what ``ddl`` (SQLite's dialect, ``IF NOT EXISTS``) declares; the ``ordered``
        tables also get insertion order on PostgreSQL, which has no ``rowid``: a ``seq``
        column and its index, so the newest rows (a page of matches, those stored since a
        mark) are read from the index's end rather than by sorting the whole table."""
        with _errors():
            if not self.postgres:
                self.raw.executescript(ddl)
                return
            self.raw.execute(_pg_types(ddl))
            for table in ordered:
                self.raw.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS seq BIGSERIAL")
                self.raw.execute(f"CREATE INDEX IF NOT EXISTS {table}_seq ON {table} (seq)")

    def columns(self, table: str) -> set[str]:
        """The columns ``table`` has now (empty when it does not exist)."""
        if self.postgres:
            query = (
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND table_name = ?"
            )
            return {r[0] for r in self.execute(query, (table,))}
        return {r[1] for r in self.execute(f"PRAGMA table_info({table})")}

    def add_column(self, table: str, name: str, decl: str) -> None:
        self.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction, rolled back on any exception. On SQLite it takes the write lock at
        once (``BEGIN IMMEDIATE``), so two writers queue instead of failing half-way."""
        self.execute("BEGIN" if self.postgres else "BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            with contextlib.suppress(Error):
                self.execute("ROLLBACK")
            raise
        self.execute("COMMIT")

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Several reads that see the database as it was at the first: a writer committing
        meanwhile is seen by none of them (SQLite's WAL read transaction; PostgreSQL's
        repeatable read). A snapshot taken inside another is part of it."""
        if self.reading:
            yield
            return
        begin = "BEGIN ISOLATION LEVEL REPEATABLE READ" if self.postgres else "BEGIN DEFERRED"
        self.execute(begin)
        self.reading = True
        try:
            yield
        finally:
            self.reading = False
            with contextlib.suppress(Error):
                self.execute("COMMIT")

    def try_lock(self, name: str) -> bool:
        """PostgreSQL: hold the advisory lock ``name`` for this connection's life; False when
        another connection holds it. The lock goes with the connection, even a killed one."""
        key = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)
        return bool(self.execute("SELECT pg_try_advisory_lock(?)", (key,))[0][0])

    def close(self) -> None:
        """Close; on PostgreSQL release the advisory locks first: the server frees a closed
        connection's locks only once its backend has noticed, so a writer opened right after
        (a run resumed at once) could find its ladder still "in use"."""
        with contextlib.suppress(Exception):
            if self.postgres:
                self.execute("SELECT pg_advisory_unlock_all()")
        with contextlib.suppress(Exception):
            self.raw.close()

    def _sql(self, sql: str) -> str:
        return sql.replace("%", "%%").replace("?", "%s") if self.postgres else sql


class Rows(list[Any]):
    """A statement's rows, with the DB-API's ``fetchone``/``fetchall``."""

    def fetchone(self) -> Any:
        return self[0] if self else None

    def fetchall(self) -> list[Any]:
        return list(self)


class _Row(tuple[Any, ...]):
    """A PostgreSQL row read as sqlite3.Row is: ``row[0]``, ``row["name"]``, ``dict(row)``."""

    names: tuple[str, ...] = ()

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self.names.index(key))
        return tuple.__getitem__(self, key)

    def keys(self) -> tuple[str, ...]:
        return self.names


def _row_factory(cursor: Any) -> Any:
    names = tuple(d.name for d in cursor.description or ())
    kind = type("Row", (_Row,), {"names": names})
    return lambda values: kind(values)


def _connect_postgres(url: str, readonly: bool) -> Connection:
    import psycopg

    with _errors():
        raw = psycopg.connect(
            url, autocommit=True, row_factory=_row_factory, connect_timeout=10,
            application_name="arena",
        )  # fmt: skip
    conn = Connection(raw, postgres=True)
    if readonly:
        conn.execute("SET default_transaction_read_only = on")
    return conn


def _pg_types(ddl: str) -> str:
    for pattern, wider in PG_TYPES:
        ddl = pattern.sub(wider, ddl)
    return ddl


@contextlib.contextmanager
def _errors() -> Iterator[None]:
    """Driver errors raised as this module's, with the driver's message."""
    try:
        yield
    except sqlite3.IntegrityError as exc:
        raise IntegrityError(str(exc)) from exc
    except sqlite3.OperationalError as exc:
        raise OperationalError(str(exc)) from exc
    except sqlite3.Error as exc:
        raise Error(str(exc)) from exc
    except Exception as exc:
        kind = _postgres_kind(exc)
        if kind is None:
            raise
        raise kind(" ".join(str(exc).split())) from exc  # libpq's lines made one


def _postgres_kind(exc: Exception) -> type[Error] | None:
    """This module's class for a psycopg error, or None for any other exception."""
    module = type(exc).__module__
    if not module.startswith("psycopg"):
        return None
    import psycopg

    if isinstance(exc, psycopg.IntegrityError):
        return IntegrityError
    if isinstance(exc, psycopg.OperationalError | psycopg.errors.ReadOnlySqlTransaction):
        return OperationalError
    return Error if isinstance(exc, psycopg.Error) else None
