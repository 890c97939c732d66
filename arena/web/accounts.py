"""Authors, their tokens and the bot names they own: in a small SQLite file of the competition,
or in the ladder's PostgreSQL database when it has one (``competitions/README.md``).

A token is 32 random bytes (URL-safe base64), shown once when the author is created; only its
SHA-256 is stored, so a copy of the file lets nobody submit. A bot name belongs to the first
author who stores a version of it (an upload refused before a version is stored claims
nothing); nobody else can submit under it, or under a name too close to it (``arena/names.py``),
nor read its private logs. Every upload attempt that carries a valid token is recorded, for the
per-author rate limit.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from arena.ladder.database import IntegrityError, Location, connect
from arena.names import BadName, check_name, clash, clash_message

HOUR_S = 3600.0
T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS authors (
    name TEXT PRIMARY KEY,
    token_sha256 TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS owners (
    bot TEXT PRIMARY KEY,
    author TEXT NOT NULL REFERENCES authors (name)
);
CREATE TABLE IF NOT EXISTS uploads (
    author TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS uploads_author ON uploads (author, at);
"""


class AccountError(ValueError):
    """An author that cannot be created, or a bot name owned by someone else."""


def _serialized(method: Callable[..., T]) -> Callable[..., T]:
    @functools.wraps(method)
    def locked(self: Accounts, *args: Any, **kwargs: Any) -> T:
        with self.lock:
            return method(self, *args, **kwargs)

    return locked


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Accounts:
    """The authors of a competition (their tables made when missing)."""

    def __init__(self, location: Location) -> None:
        if isinstance(location, Path):
            location.parent.mkdir(parents=True, exist_ok=True)
        self.conn = connect(location, threads=True)
        self.conn.schema(SCHEMA)
        # One connection shared by the server's threads: one statement or transaction at a time.
        self.lock = threading.RLock()

    def close(self) -> None:
        self.conn.close()

    @_serialized
    def add_author(self, name: str) -> str:
        """Create ``name``; its token (the only time it is known)."""
        try:
            check_name(name, "author name")
        except BadName as exc:
            raise AccountError(str(exc)) from None
        token = secrets.token_urlsafe(32)
        exists = AccountError(f"an author named {name!r} already exists")
        try:
            with self.conn.transaction():
                taken = [r[0] for r in self.conn.execute("SELECT name FROM authors")]
                if name in taken:
                    raise exists
                other = clash(name, taken)
                if other is not None:
                    raise AccountError(clash_message(name, other, "author name"))
                self.conn.execute(
                    "INSERT INTO authors VALUES (?, ?, ?)", (name, _digest(token), time.time())
                )
        except IntegrityError:  # made meanwhile by another process
            raise exists from None
        return token

    @_serialized
    def author(self, token: str) -> str | None:
        """Whose token this is, or None. The stored digests are compared in constant time."""
        wanted = _digest(token)
        found = None
        for name, digest in self.conn.execute("SELECT name, token_sha256 FROM authors"):
            if hmac.compare_digest(digest, wanted):
                found = name
        return found

    @_serialized
    def owner(self, bot: str) -> str | None:
        """The author of ``bot``, or None while no version of it is stored."""
        row = self.conn.execute("SELECT author FROM owners WHERE bot = ?", (bot,)).fetchone()
        return row[0] if row else None

    @_serialized
    def check_claim(self, bot: str, author: str) -> None:
        """AccountError unless ``author`` may store a version of ``bot``: it is theirs or
        nobody's, and not too close to another bot's name. Claims nothing."""
        owners = {row[0]: row[1] for row in self.conn.execute("SELECT bot, author FROM owners")}
        if owners.get(bot, author) != author:
            raise AccountError(f"the bot name {bot!r} belongs to another author")
        other = clash(bot, owners)
        if other is not None:
            raise AccountError(clash_message(bot, other))

    @_serialized
    def claim(self, bot: str, author: str) -> None:
        """Make ``bot`` ``author``'s if nobody owns it (as :meth:`check_claim` says)."""
        with self.conn.transaction():
            self.check_claim(bot, author)
            self.conn.execute(
                "INSERT INTO owners VALUES (?, ?) ON CONFLICT DO NOTHING", (bot, author)
            )

    @_serialized
    def bots_of(self, author: str) -> list[str]:
        query = "SELECT bot FROM owners WHERE author = ? ORDER BY bot"
        return [r[0] for r in self.conn.execute(query, (author,))]

    @_serialized
    def record_upload(self, author: str, limit: int, now: float | None = None) -> float:
        """Count one upload attempt of ``author`` unless ``limit`` were made in the last hour;
        0 when counted, else the seconds until the oldest of them leaves the window."""
        now = time.time() if now is None else now
        with self.conn.transaction():
            rows = self.conn.execute(
                "SELECT at FROM uploads WHERE author = ? AND at > ? ORDER BY at",
                (author, now - HOUR_S),
            )
            if len(rows) >= limit:
                return rows[-limit][0] + HOUR_S - now
            self.conn.execute("INSERT INTO uploads VALUES (?, ?)", (author, now))
        return 0.0
