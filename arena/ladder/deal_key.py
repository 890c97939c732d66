"""The ladder's secret deal key: every deal's engine seed is an HMAC of it (``schedule``'s
``engine_seed``), so a bot that knows the whole ladder file still cannot compute a card.

Where it is kept (``ladders/README.md``, "The deal key"):

* beside a SQLite database, in ``<database>.key``: 64 hex digits, made on the first run with
  mode 0600 (the bots' uids cannot read it, and a database copied for a report does not carry
  it). The database's ``meta`` table keeps the key's fingerprint, so a resumed ladder whose
  key file went missing, or was swapped for another ladder's, stops with a clear error instead
  of dealing its sets again from a new key;
* on PostgreSQL, in the ``meta`` table itself: it travels with the database, readable by
  whoever can read that database (never by a bot).

A database made before deal keys existed gets one on its next run.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
import secrets
import stat
from pathlib import Path

from arena.ladder.database import Location, describe
from arena.ladder.store import Store, StoreError

KEY_BYTES = 32
META = "deal_key"  # meta row: the key's fingerprint (SQLite) or the key (PostgreSQL)
_HEX = re.compile(rb"([0-9a-f]{64})\n?")


def key_path(location: Location) -> Path:
    """The key file of a SQLite database: ``<database>.key`` beside it."""
    path = Path(location)
    return path.with_name(path.name + ".key")


def deal_key(store: Store) -> bytes:
    """The deal key of the database ``store`` writes, made when it has none yet.

    StoreError when the key file of a database that had one is missing, is another
    database's, is not a key, is not a regular file, or is readable by other users.
    """
    if store.conn.postgres:
        return _in_meta(store)
    return _in_file(store, key_path(store.location))


def fingerprint(key: bytes) -> str:
    """What the database remembers of its key: enough to recognise it, nothing to deal from."""
    return hmac.new(key, b"arena deal key fingerprint", hashlib.sha256).hexdigest()[:32]


def _in_meta(store: Store) -> bytes:
    if store.meta(META) is None:
        store.add_meta(META, secrets.token_hex(KEY_BYTES))
    value = store.meta(META) or ""
    if not _HEX.fullmatch(value.encode()):
        raise StoreError(f"{describe(store.location)}: meta {META!r} is not a deal key")
    return bytes.fromhex(value)


def _in_file(store: Store, path: Path) -> bytes:
    recorded = store.meta(META)
    if not os.path.lexists(path):
        if recorded is not None:
            raise StoreError(
                f"{path}: the deal key of {store.location} is missing; every deal of this ladder "
                "comes from it (its stored matches and the sets still to finish), so nothing "
                "was played: restore the file from a backup (see ladders/README.md, 'The deal "
                "key'), or move the database away too to start the ladder afresh"
            )
        _create(path)
    key = _read(path)
    if recorded is None:
        store.add_meta(META, fingerprint(key))
    elif not hmac.compare_digest(recorded, fingerprint(key)):
        raise StoreError(
            f"{path}: not the deal key {store.location} was played with (another ladder's?); "
            "nothing was played: restore this database's own key file from a backup"
        )
    return key


def _read(path: Path) -> bytes:
    """The key in ``path``, read without following a link; StoreError if it is not one."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        why = "a symbolic link" if os.path.islink(path) else exc.strerror
        raise StoreError(f"{path}: cannot read the deal key ({why})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise StoreError(f"{path}: the deal key must be a regular file")
        if info.st_mode & 0o077 or info.st_uid != os.geteuid():
            raise StoreError(
                f"{path}: the deal key is readable by other users (mode "
                f"{stat.S_IMODE(info.st_mode):04o}, owner uid {info.st_uid}); it must be this "
                f"user's alone: chown it to uid {os.geteuid()} and chmod 600 it"
            )
        match = _HEX.fullmatch(os.read(fd, 100))
    finally:
        os.close(fd)
    if match is None:
        raise StoreError(f"{path}: not a deal key (64 lowercase hex digits expected)")
    return bytes.fromhex(match.group(1).decode())


def _create(path: Path) -> None:
    """Write a new key to ``path`` with mode 0600, whole or not at all: written and synced
    under a temporary name first, then linked into place (a link never replaces a file)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.new")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(secrets.token_hex(KEY_BYTES).encode() + b"\n")
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    except OSError as exc:
        raise StoreError(f"{path}: cannot write the deal key ({exc.strerror})") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
