"""The ladder database, written by the runner process alone: a SQLite file in WAL mode (the
embedded default) or a PostgreSQL database given by URL (``arena/ladder/database.py``).

A finished match is stored in one transaction (its row and every seat's result), so a runner
killed at any moment leaves either the whole match or nothing of it; a resumed run skips the
match ids already stored. Void attempts (referee or engine failures) go to their own table and
never become results. Ratings and their history are derived data, kept up to date in each
match's transaction (``rated.py``) and rebuilt from the results by ``arena ladder rerate``.
``ladders/README.md`` documents the schema.

The run lock of a file is an ``flock`` on ``<database>.lock`` beside it, not on the database
itself, so deleting the database during a run does not let a second runner in; and the runner
checks, after every match it stores, that its path still names the file it writes, so results
written into a deleted file are never reported as stored. On PostgreSQL the lock is an advisory
lock held by the runner's connection: the server drops it when the runner dies.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import shlex
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena.ladder.database import (
    Connection,
    Error,
    Location,
    OperationalError,
    Rows,
    connect,
    describe,
    exists,
)
from arena.ladder.rated import RATED_NEXT, RATING_KEY, RatingStream
from arena.ladder.ratings import HistoryRow, MatchRecord, Pair, Rating, SeatRecord
from arena.ladder.running import RUNNING_KEY
from arena.ladder.running import SCHEMA as RUNNING_SCHEMA
from arena.ladder.schedule import MatchSpec
from arena.match.bots import BotSpec
from arena.registry.content import changes

SCHEMA_VERSION = "4"

# Seat columns added by schema 2 (what each bot used and every incident), with their defaults
# for results stored by schema 1; a schema-1 database is upgraded in place when opened.
SEAT_COLUMNS_V2 = (
    ("transport", "TEXT NOT NULL DEFAULT 'zmq'"),
    ("sandbox", "TEXT NOT NULL DEFAULT ''"),
    ("exit_code", "INTEGER"),
    ("signal", "TEXT"),
    ("bank_left_ms", "REAL"),
    ("cpu_ms", "REAL"),
    ("peak_memory_kb", "INTEGER"),
    ("strikes", "INTEGER NOT NULL DEFAULT 0"),
    ("incidents", "TEXT NOT NULL DEFAULT '[]'"),
    ("log_tail", "TEXT NOT NULL DEFAULT ''"),
)

# Void columns added later (in place, whatever the schema): the bots seated, and whose failure
# it was (a ``Blame``).
VOID_COLUMNS = (
    ("seats", "TEXT NOT NULL DEFAULT '[]'"),
    ("blame", "TEXT NOT NULL DEFAULT 'match'"),
)


class Blame(StrEnum):
    """Whose failure a void was (the ``blame`` column of ``voids``)."""

    HOST = "host"  # this machine could not start a bot: the run stops, no bot is blamed
    LOAD = "load"  # this machine was too busy to give a seat its time: replayed, no bot blamed
    SHARED = "shared"  # a worker died with several matches in flight: which one is not known
    MATCH = "match"  # this match alone (it ran alone, or its referee failed): towards MAX_VOIDS


# Match columns added later (in place): the referee's scheduling latency over the match, JSON
# (``MatchResult.sched``: its waits for a CPU, how late its timed wakes were); '{}' = not known.
MATCH_COLUMNS = (("sched", "TEXT NOT NULL DEFAULT '{}'"),)

# Bot columns added later (in place): what its command runs, file by file (path -> digest,
# JSON), so a program edited in place is not pooled with its stored results; '' = not known.
BOT_COLUMNS = (("files", "TEXT NOT NULL DEFAULT ''"),)

# What listings read of a match and of its seats (``Store.match_rows``): not the seats' stderr
# tails, incidents or sandbox figures, which only a match's own page shows.
LISTED = (
    ("id", "set_id", "round", "rotation", "seed", "status", "decisions", "duration_ms",
     "finished_at", "replay_path"),
    ("match_id", "seat", "bot", "score", "rank", "status", "detail"),
)  # fmt: skip

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (
    name TEXT PRIMARY KEY,
    command TEXT NOT NULL,
    added_at REAL NOT NULL,
    {bot_columns}
);
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    set_id TEXT NOT NULL,
    round INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    status TEXT NOT NULL,
    game TEXT NOT NULL,
    game_version TEXT NOT NULL,
    options TEXT NOT NULL,
    outcome TEXT NOT NULL,
    decisions INTEGER NOT NULL,
    duration_ms REAL NOT NULL,
    started_at REAL NOT NULL,
    finished_at REAL NOT NULL,
    attempts INTEGER NOT NULL,
    worker TEXT NOT NULL,
    sandbox TEXT NOT NULL,
    replay_path TEXT,
    {match_columns}
);
CREATE INDEX IF NOT EXISTS matches_set ON matches (set_id);
CREATE INDEX IF NOT EXISTS matches_finished ON matches (finished_at);
CREATE TABLE IF NOT EXISTS results (
    match_id TEXT NOT NULL REFERENCES matches (id),
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL REFERENCES bots (name),
    score REAL NOT NULL,
    rank INTEGER NOT NULL,
    status TEXT NOT NULL,
    detail TEXT NOT NULL,
    decisions INTEGER NOT NULL,
    time_ms REAL NOT NULL,
    max_ms REAL NOT NULL,
    warnings TEXT NOT NULL,
    {seat_columns}
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX IF NOT EXISTS results_bot ON results (bot);
CREATE TABLE IF NOT EXISTS voids (
    match_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    reason TEXT NOT NULL,
    at REAL NOT NULL,
    {void_columns}
);
CREATE TABLE IF NOT EXISTS ratings (
    bot TEXT PRIMARY KEY,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    conservative REAL NOT NULL,
    computed_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS rating_queue (
    position INTEGER PRIMARY KEY,
    match_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rating_history (
    position INTEGER NOT NULL,
    match_id TEXT NOT NULL,
    bot TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    PRIMARY KEY (position, bot)
);
""".replace(
    "{seat_columns}", "".join(f"{name} {decl},\n    " for name, decl in SEAT_COLUMNS_V2).rstrip()
).replace("{void_columns}", ",\n    ".join(f"{name} {decl}" for name, decl in VOID_COLUMNS))
SCHEMA = SCHEMA.replace("{bot_columns}", ",\n    ".join(f"{n} {d}" for n, d in BOT_COLUMNS))
SCHEMA = SCHEMA.replace("{match_columns}", ",\n    ".join(f"{n} {d}" for n, d in MATCH_COLUMNS))
SCHEMA += RUNNING_SCHEMA  # schema 4: the table's tally, kept as sets complete (running.py)


class StoreError(RuntimeError):
    """A database that is missing, from another schema, or at odds with the ladder file."""


class CommandChanged(StoreError):
    """A bot of the file whose command differs from the one its stored results were played
    with: running on would mix two programs' results under one name."""

    def __init__(self, bot: str, command: Sequence[str], before: Sequence[str]) -> None:
        self.bot = bot
        super().__init__(
            f"bot {bot!r}: command {shlex.join(command)!r} differs from the one its stored "
            f"results were played with ({shlex.join(before)!r})"
        )


class ProgramChanged(StoreError):
    """A bot of the file whose command is the same but whose files changed since its stored
    results were played (a script edited in place): it is another program."""

    def __init__(self, bot: str, what: str) -> None:
        self.bot = bot
        super().__init__(
            f"bot {bot!r}: its program changed since its stored results were played ({what})"
        )


class NoDatabase(StoreError):
    """No ladder database at this location yet: nothing has been played."""


class StorageError(RuntimeError):
    """The database could not be written (read-only, disk full, deleted during the run)."""


def storage_error(location: Location, exc: BaseException) -> StorageError:
    """What to tell the organiser when writing ``location`` failed with ``exc``."""
    return StorageError(
        f"{describe(location)}: cannot write the ladder database ({exc}); every match stored "
        "before this is safe (each is one transaction): fix it (free space, permissions, the "
        "database server) and run the same command again to resume"
    )


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


class Store:
    """One open ladder database. Use :meth:`create` to run, :meth:`read` to report."""

    def __init__(self, conn: Connection, location: Location, lock: int | None = None) -> None:
        self.conn = conn
        self.location = location
        self.lock = lock
        self.path = None if conn.postgres else Path(location)
        self.identity = _identity(self.path) if self.path is not None and lock else None
        self.stream: RatingStream | None = None  # the writer's: rates each match it stores
        # the matches :meth:`record_matches` is storing, as records, while it rates and
        # tallies them: :meth:`records_of` does not read back what it has just written
        self.storing: dict[str, MatchRecord] = {}

    @classmethod
    def create(cls, location: Location, game: str) -> Store:
        """Open for writing, creating the database and schema when missing.

        The writer holds an exclusive lock (an ``flock`` on ``<path>.lock``, independent of
        SQLite's own locks, or a PostgreSQL advisory lock), so two runs of one ladder cannot
        play the same matches twice. StorageError when it cannot be created or written.
        """
        where = describe(location)
        lock = None
        if isinstance(location, Path):
            try:
                location.parent.mkdir(parents=True, exist_ok=True)
                lock = _lock(lock_path(location))
            except OSError as exc:
                raise storage_error(location, exc) from None
            if lock is None:
                raise StoreError(f"{where}: in use by another `arena ladder` run")
        conn = None
        try:
            conn = connect(location)
            if conn.postgres and not conn.try_lock("arena ladder store"):
                raise StoreError(f"{where}: in use by another `arena ladder` run")
            if not conn.postgres:
                conn.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable against crashes
                conn.execute("PRAGMA foreign_keys=ON")
            store = cls(conn, location, lock)
            conn.schema(SCHEMA, ordered=("matches",))
            if conn.postgres:  # ids_starting's range in byte order, whatever the collation
                conn.execute(f"CREATE INDEX IF NOT EXISTS matches_id_bytes ON matches ({ID_BYTES})")
            with store.transaction():
                for key, value in (("schema", SCHEMA_VERSION), ("game", game), ("changes", "0")):
                    conn.execute(
                        "INSERT INTO meta VALUES (?, ?) ON CONFLICT DO NOTHING", (key, value)
                    )
            store._upgrade()
        except (Error, StoreError) as exc:
            if conn is not None:
                conn.close()
            if lock is not None:
                os.close(lock)
            if isinstance(exc, StoreError):
                raise
            if isinstance(exc, OperationalError):
                raise storage_error(location, exc) from None
            raise StoreError(f"{where}: not a ladder database ({exc})") from None
        try:
            store._check_meta(game)
        except StoreError:
            store.close()  # its lock with it: the caller may try again later
            raise
        return store

    def check_still_there(self) -> None:
        """StorageError if the database file was deleted or replaced since it was opened: what
        was written since went into a file nobody can read."""
        if (
            self.path is not None
            and self.identity is not None
            and _identity(self.path) != self.identity
        ):
            raise StorageError(
                f"{self.location}: the database was deleted or replaced during the run; the "
                "matches this run stored since went with the deleted file and are lost; run the "
                "same command again to play them"
            )

    def _upgrade(self) -> None:
        """Bring an older database to the current schema, nothing lost: void, bot and match
        columns added in place; a schema-1 database gets the schema-2 seat columns, a schema-2
        one the schema-3 rating queue, a schema-3 one the schema-4 tally's tables."""
        added = (("voids", VOID_COLUMNS), ("bots", BOT_COLUMNS), ("matches", MATCH_COLUMNS))
        for table, columns in added:
            have = self.conn.columns(table)
            if have and not have.issuperset(n for n, _ in columns):
                with self.transaction():
                    for name, decl in columns:
                        if name not in have:
                            self.conn.add_column(table, name, decl)
        schema = self.meta("schema")
        if schema not in ("1", "2", "3"):
            return
        have = self.conn.columns("results")
        # schema 3: the ratings kept as matches are stored (rated.py); schema 4: the table's
        # tally (running.py); no key for either yet, so the next writer fills them once and
        # readers take the batch meanwhile
        self.conn.schema(SCHEMA, ordered=("matches",))
        with self.transaction():
            if schema == "1":
                for name, decl in SEAT_COLUMNS_V2:
                    if name not in have:
                        self.conn.add_column("results", name, decl)
            self.set_meta("schema", SCHEMA_VERSION)

    @classmethod
    def read(cls, location: Location, game: str) -> Store:
        """Open an existing database read-only (reports never create or change one).
        NoDatabase when nothing was stored there yet."""
        where = describe(location)
        if not exists(location):
            raise NoDatabase(f"{where}: no ladder database yet (run `arena ladder run` first)")
        if isinstance(location, Path):  # an older file is brought up to date when it can be
            # not a ladder's, or read-only: _check_meta says what matters
            with contextlib.suppress(Error), contextlib.closing(connect(location)) as rw:
                cls(rw, location)._upgrade()
        try:
            conn = connect(location, readonly=True)
        except Error as exc:
            raise StoreError(f"{where}: cannot read the ladder database ({exc})") from None
        store = cls(conn, location)
        try:
            store._check_meta(game)
        except StoreError:
            store.close()
            raise
        return store

    def _check_meta(self, game: str) -> None:
        where = describe(self.location)
        if self.conn.postgres and not self.conn.columns("meta"):
            raise NoDatabase(f"{where}: no ladder database yet (run `arena ladder run` first)")
        try:
            meta = {r[0]: r[1] for r in self.conn.execute("SELECT key, value FROM meta")}
        except Error as exc:
            raise StoreError(f"{where}: not a ladder database ({exc})") from None
        if not meta:  # its tables made, not yet its first rows: a runner is making it now
            raise NoDatabase(f"{where}: no ladder database yet (run `arena ladder run` first)")
        # a schema-2 or 3 database read before a writer upgrades it (a server's, a read-only
        # file): its ratings and table are computed from scratch meanwhile (rated.py)
        readable = ("2", "3") if self.lock is None else ()
        if meta.get("schema") != SCHEMA_VERSION and meta.get("schema") not in readable:
            raise StoreError(f"{where}: schema {meta.get('schema')!r}, expected {SCHEMA_VERSION}")
        if meta.get("game") != game:
            raise StoreError(f"{where}: holds a {meta.get('game')} ladder, the file says {game}")

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        return self.conn.transaction()

    def close(self) -> None:
        self.conn.close()
        if self.lock is not None:
            os.close(self.lock)  # releases the flock
            self.lock = None

    # -- bots and matches ----------------------------------------------------------------------

    def register_bots(
        self, bots: Sequence[BotSpec], files: Mapping[str, Mapping[str, str]] | None = None
    ) -> None:
        """Add new bots; refuse a known name whose command changed, or whose ``files`` (what
        its command runs, path -> digest) differ from those recorded: its results would mix.
        A known bot with no files recorded (stored before they were) gets them now."""
        known = self.commands()
        files = files or {}
        recorded = {r[0]: r[1] for r in self.conn.execute("SELECT name, files FROM bots")}
        for bot in bots:
            if bot.name in known and known[bot.name] != bot.command:
                raise CommandChanged(bot.name, bot.command, known[bot.name])
            before = json.loads(recorded.get(bot.name) or "{}")
            now = dict(files.get(bot.name, {}))
            if before and now != before:
                raise ProgramChanged(bot.name, changes(before, now))
        with self.transaction():
            self.conn.executemany(
                "INSERT INTO bots VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [(b.name, json.dumps(list(b.command)), time.time(), "") for b in bots],
            )
            self.conn.executemany(
                "UPDATE bots SET files = ? WHERE name = ? AND files = ''",
                [(json.dumps(files[n], sort_keys=True), n) for n in (b.name for b in bots)
                 if n in files],
            )  # fmt: skip

    def commands(self) -> dict[str, tuple[str, ...]]:
        """Each known bot's command, as its stored results were played with."""
        rows = self.conn.execute("SELECT name, command FROM bots")
        return {r["name"]: tuple(json.loads(r["command"])) for r in rows}

    def done_ids(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT id FROM matches WHERE status = 'done'")}

    def record_match(self, spec: MatchSpec, result: Mapping[str, Any], attempts: int) -> None:
        """Store one finished match and its seats, atomically."""
        self.record_matches([(spec, result, attempts)])

    def record_matches(self, matches: Sequence[tuple[MatchSpec, Mapping[str, Any], int]]) -> None:
        """Store finished matches (each with how many attempts it took) and their seats, in one
        transaction: all of them or none. Each is rated and tallied in turn, in this order,
        as if stored alone."""
        rows = [
            _match_row(spec, result, attempts, time.time()) for spec, result, attempts in matches
        ]
        seats = [
            _seat_row(spec.match_id, s) for spec, result, _ in matches for s in result["seats"]
        ]
        with self.transaction():
            self.conn.executemany(f"INSERT INTO matches VALUES ({_marks(rows[0])})", rows)
            self.conn.executemany(f"INSERT INTO results VALUES ({_marks(seats[0])})", seats)
            if self.stream is not None:
                self.storing = {spec.match_id: _record(spec, result) for spec, result, _ in matches}
                try:
                    self.stream.stored(self, [spec for spec, _, _ in matches])
                finally:
                    self.storing = {}
            self._changed(len(matches))

    def record_void(
        self, match_id: str, attempt: int, reason: str, seats: Sequence[str], blame: Blame
    ) -> None:
        """One void attempt, with the bots seated and whose failure it was."""
        row = (match_id, attempt, reason, time.time(), json.dumps(list(seats)), blame.value)
        with self.transaction():
            self.conn.execute("INSERT INTO voids VALUES (?, ?, ?, ?, ?, ?)", row)

    def match_voids(self) -> dict[str, int]:
        """Per match id not stored, how many void attempts were its own (blame ``match``)."""
        query = (
            "SELECT match_id, COUNT(*) FROM voids WHERE blame = ? "
            "AND match_id NOT IN (SELECT id FROM matches) GROUP BY match_id"
        )
        return dict(self.conn.execute(query, (Blame.MATCH.value,)).fetchall())

    def last_void(self, match_id: str) -> str:
        query = "SELECT reason FROM voids WHERE match_id = ? ORDER BY at DESC LIMIT 1"
        row = self.conn.execute(query, (match_id,)).fetchone()
        return row[0] if row else ""

    # -- forgetting ----------------------------------------------------------------------------

    def matches_since(self, since: float) -> list[str]:
        """Stored matches that finished at or after ``since`` (unix seconds)."""
        query = "SELECT id FROM matches WHERE finished_at >= ? ORDER BY finished_at"
        return [r[0] for r in self.conn.execute(query, (since,))]

    def matches_of(self, bot: str) -> list[str]:
        query = "SELECT DISTINCT match_id FROM results WHERE bot = ? ORDER BY match_id"
        return [r[0] for r in self.conn.execute(query, (bot,))]

    def has_bot(self, name: str) -> bool:
        query = "SELECT 1 FROM bots WHERE name = ?"
        return self.conn.execute(query, (name,)).fetchone() is not None

    def resolve(self, given: str) -> list[str]:
        """Stored match ids equal to, or starting with, ``given``."""
        query = "SELECT id FROM matches WHERE substr(id, 1, length(?)) = ? ORDER BY id"
        return [r[0] for r in self.conn.execute(query, (given, given))]

    def forget(self, match_ids: Iterable[str], bot: str | None = None) -> int:
        """Drop stored matches (their results and void attempts too), and ``bot``'s record so it
        may come back with another command; one transaction. The matches dropped."""
        ids = sorted(set(match_ids))
        with self.transaction():
            for table, column in (("results", "match_id"), ("voids", "match_id"),
                                  ("matches", "id")):  # fmt: skip
                self.conn.executemany(
                    f"DELETE FROM {table} WHERE {column} = ?", [(i,) for i in ids]
                )
            if bot is not None:
                self.conn.execute("DELETE FROM bots WHERE name = ?", (bot,))
            if ids:  # the ratings' fold and the table's tally are rebuilt from scratch
                self.set_meta(RATING_KEY, "")
                self.set_meta(RUNNING_KEY, "")
            self._changed()
        return len(ids)

    # -- reading -------------------------------------------------------------------------------

    def match_records(self, positions: Mapping[str, int]) -> list[MatchRecord]:
        """Stored matches that are in the schedule (``positions``), in schedule order."""
        query = "SELECT match_id, bot, score, rank, status FROM results ORDER BY match_id, seat"
        with self.conn.snapshot():  # a match stored between the two reads is in neither
            results = self.conn.execute(query)
            matches = self.conn.execute("SELECT id, set_id, outcome FROM matches")
        return _records(results, matches, positions)

    def records_of(self, positions: Mapping[str, int]) -> list[MatchRecord]:
        """The stored matches ``positions`` names (a few, by id), in schedule order; those being
        stored (:attr:`storing`) as they were given, the others read."""
        storing = [_at(self.storing[m], p) for m, p in positions.items() if m in self.storing]
        ids = [m for m in positions if m not in self.storing]
        if not ids:
            return sorted(storing, key=lambda m: m.position)
        marks = ", ".join("?" * len(ids))
        results = self.conn.execute(
            "SELECT match_id, bot, score, rank, status FROM results "
            f"WHERE match_id IN ({marks}) ORDER BY match_id, seat",
            ids,
        )
        matches = self.conn.execute(
            f"SELECT id, set_id, outcome FROM matches WHERE id IN ({marks})", ids
        )
        read = _records(results, matches, positions)
        return sorted([*storing, *read], key=lambda m: m.position) if storing else read

    def seat_results(self, bot: str) -> list[dict[str, Any]]:
        """Every stored seat ``bot`` played: match id, status, detail, stderr tail."""
        query = (
            "SELECT match_id, status, detail, log_tail FROM results WHERE bot = ? ORDER BY match_id"
        )
        return [dict(r) for r in self.conn.execute(query, (bot,))]

    def stored_mark(self) -> tuple[Any, ...]:
        """What changes whenever a match is stored or forgotten, or ratings are written apart
        from the matches they rate (:meth:`ratings_changed`): the count of those changes, kept
        in ``meta`` in the same transaction (one indexed read); for a database written before
        it was kept, how many matches are stored and when the last one finished."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'changes'").fetchone()
        if row is not None:
            return (int(row[0]),)
        return tuple(self.conn.execute("SELECT COUNT(*), MAX(finished_at) FROM matches").fetchone())

    def ratings_changed(self) -> None:
        """Ratings were written apart from the matches they rate (a re-rating, or matches left
        behind a gap rated at last): a change for whoever shows them (``stored_mark``)."""
        self._changed()

    def _changed(self, count: int = 1) -> None:
        """Count ``count`` changes of the stored matches (inside the transaction that made
        them)."""
        self.conn.execute(
            "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + ? AS TEXT) "
            "WHERE key = 'changes'",
            (count,),
        )

    def replay_path(self, match_id: str) -> Path | None:
        """Where a stored match's replay was written; None for no such match, or no replay."""
        query = "SELECT replay_path FROM matches WHERE id = ?"
        row = self.conn.execute(query, (match_id,)).fetchone()
        return Path(row[0]) if row is not None and row[0] else None

    def ratings(self) -> dict[str, Rating]:
        """The ratings written by the last rerating, by bot."""
        rows = self.conn.execute("SELECT bot, mu, sigma FROM ratings ORDER BY bot")
        return {r["bot"]: Rating(r["mu"], r["sigma"]) for r in rows}

    def stored_order(self) -> list[str]:
        """Every stored match id in the order the matches were stored."""
        query = f"SELECT id FROM matches ORDER BY {self.conn.insertion_order}"
        return [r[0] for r in self.conn.execute(query)]

    def match_rows(self, full: bool = False) -> dict[str, dict[str, Any]]:
        """Every stored match with its seats, by id (for listings): the columns listings show
        (:data:`LISTED`), or with ``full`` every column (stderr tails, incidents, sandbox
        figures: ``arena ladder matches --format json``)."""
        match_columns, seat_columns = ("*", "*") if full else (", ".join(c) for c in LISTED)
        with self.conn.snapshot():
            matches = self.conn.execute(f"SELECT {match_columns} FROM matches")
            results = self.conn.execute(
                f"SELECT {seat_columns} FROM results ORDER BY match_id, seat"
            )
        rows = {r["id"]: dict(r) | {"results": []} for r in matches}
        for r in results:
            rows[r["match_id"]]["results"].append(dict(r))
        return rows

    # -- the server's pages: reads bounded by what one page shows ------------------------------

    def published_matches(
        self, limit: int | None, offset: int = 0, bots: Sequence[str] = ()
    ) -> list[dict[str, Any]]:
        """Published matches (``published.py``: their whole set stored), newest first, as
        ``id`` and ``finished_at``; of ``bots`` only when given. Walks the matches (a bot's
        results) from the newest back, so a page reads about ``offset + limit`` rows."""
        if bots:
            marks = ", ".join("?" * len(bots))
            order = "m.seq" if self.conn.postgres else "r.rowid"  # results follow their match
            # one bot: its results in index order; several: a match may seat two of them
            several = len(bots) > 1
            group = " GROUP BY m.id, m.finished_at" if several else ""
            newest = f"MAX({order})" if several else order
            query = (
                f"SELECT m.id, m.finished_at FROM results r JOIN matches m ON m.id = r.match_id "
                f"WHERE r.bot IN ({marks}) AND {_PUBLISHED}{group} ORDER BY {newest} DESC"
            )
            args: list[Any] = list(bots)
        else:
            query = (
                f"SELECT m.id, m.finished_at FROM matches m WHERE {_PUBLISHED} "
                f"ORDER BY m.{self.conn.insertion_order} DESC"
            )
            args = []
        if limit is not None:
            query += " LIMIT ? OFFSET ?"
            args += [limit, offset]
        return [{"id": r["id"], "finished_at": r["finished_at"]}
                for r in self.conn.execute(query, args)]  # fmt: skip

    def published_since(self, since: float) -> tuple[list[str], int]:
        """The published matches stored at or after ``since`` (unix seconds), oldest first,
        and how many others were stored since (their set not complete yet)."""
        query = (
            f"SELECT m.id, {_PUBLISHED} AS shown FROM matches m WHERE m.finished_at >= ? "
            f"ORDER BY m.finished_at"
        )
        rows = self.conn.execute(query, (since,)).fetchall()
        return [r["id"] for r in rows if r["shown"]], sum(1 for r in rows if not r["shown"])

    def published_ids(self) -> set[str]:
        """The ids of the stored matches whose duplicate set is complete (``published.py``)."""
        return {r[0] for r in self.conn.execute(f"SELECT m.id FROM matches m WHERE {_PUBLISHED}")}

    def is_published(self, match_id: str) -> bool:
        """Whether ``match_id`` is stored and its set complete: two indexed reads."""
        query = f"SELECT {_PUBLISHED} FROM matches m WHERE m.id = ?"
        row = self.conn.execute(query, (match_id,)).fetchone()
        return row is not None and bool(row[0])

    def ids_starting(self, prefix: str, most: int = 2) -> list[str]:
        """Up to ``most`` match ids that start with ``prefix`` (ids are ASCII below DEL): a range
        of the key's index in byte order, not a scan."""
        key = ID_BYTES if self.conn.postgres else "id"
        query = f"SELECT id FROM matches WHERE {key} >= ? AND {key} < ? ORDER BY {key} LIMIT ?"
        rows = self.conn.execute(query, (prefix, prefix + "\x7f", most))
        return [r[0] for r in rows if r[0].startswith(prefix)]

    def seats_of(self, match_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """The seats of the matches ``match_ids`` (every column), in seat order, by match."""
        found: dict[str, list[dict[str, Any]]] = {i: [] for i in match_ids}
        for start in range(0, len(match_ids), 500):  # bounded statements for either engine
            chunk = list(match_ids[start : start + 500])
            query = (
                f"SELECT * FROM results WHERE match_id IN ({', '.join('?' * len(chunk))}) "
                "ORDER BY match_id, seat"
            )
            for r in self.conn.execute(query, chunk):
                found[r["match_id"]].append(dict(r))
        return found

    # -- derived ratings (kept by rated.py) ----------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def metas(self, *keys: str) -> list[str | None]:
        """The values of ``keys`` (None for one not there), in one statement."""
        marks = ", ".join("?" * len(keys))
        rows = self.conn.execute(f"SELECT key, value FROM meta WHERE key IN ({marks})", keys)
        found = {r[0]: r[1] for r in rows}
        return [found.get(key) for key in keys]

    def set_meta(self, key: str, value: str) -> None:
        self.set_metas({key: value})

    def set_metas(self, values: Mapping[str, str]) -> None:
        """Set each key of ``values`` to its value, in one statement."""
        self.conn.executemany(
            "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            list(values.items()),
        )

    def add_meta(self, key: str, value: str) -> None:
        """Record ``key`` unless it is already there (the first writer's value stays)."""
        with self.transaction():
            self.conn.execute(
                "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO NOTHING", (key, value)
            )

    def rating_pairs(self, bots: Iterable[str] | None = None) -> dict[str, Pair]:
        """The stored ratings as ``(mu, sigma)``, by bot (the bots rated so far; of ``bots``
        only when given, by the table's key)."""
        if bots is None:
            rows = self.conn.execute("SELECT bot, mu, sigma FROM ratings ORDER BY bot")
        else:
            names = sorted(set(bots))
            marks = ", ".join("?" * len(names)) or "NULL"
            query = f"SELECT bot, mu, sigma FROM ratings WHERE bot IN ({marks}) ORDER BY bot"
            rows = self.conn.execute(query, names)
        return {r["bot"]: (r["mu"], r["sigma"]) for r in rows}

    def rating_history(self, since: int = 0) -> list[HistoryRow]:
        """The stored rating history from position ``since`` on, in schedule order (a match's
        bots by name)."""
        query = (
            "SELECT position, match_id, bot, mu, sigma FROM rating_history "
            "WHERE position >= ? ORDER BY position, bot"
        )
        return [HistoryRow(*r) for r in self.conn.execute(query, (since,))]

    def rating_history_of(self, bots: Sequence[str], before: int) -> list[HistoryRow]:
        """The stored rating history of ``bots`` before position ``before``, each bot's in
        schedule order (by the index on bot and position: it costs their rows)."""
        names = sorted(set(bots))
        if not names:
            return []
        query = (
            "SELECT position, match_id, bot, mu, sigma FROM rating_history "
            f"WHERE bot IN ({', '.join('?' * len(names))}) AND position < ? ORDER BY bot, position"
        )
        return [HistoryRow(*r) for r in self.conn.execute(query, (*names, before))]

    def holds_history_row(self, row: HistoryRow) -> bool:
        """Whether ``row`` is still stored as it was (not re-rated or forgotten since)."""
        query = "SELECT match_id, mu, sigma FROM rating_history WHERE position = ? AND bot = ?"
        found = self.conn.execute(query, (row.position, row.bot)).fetchone()
        return found is not None and tuple(found) == (row.match_id, row.mu, row.sigma)

    def seats_stored_after(self, after: int) -> Rows:
        """Each seat of the matches stored after the ``after``-th in insertion order (``n``),
        with its match's set, round, bots and finish time, in that order then by seat."""
        order = self.conn.insertion_order
        return self.conn.execute(
            f"SELECT m.{order} AS n, m.id, m.set_id, m.round, m.seats, m.finished_at, r.bot, "
            f"r.status FROM matches m JOIN results r ON r.match_id = m.id "
            f"WHERE m.{order} > ? ORDER BY m.{order}, r.seat",
            (after,),
        )

    def queue(self) -> list[tuple[int, str]]:
        """The stored matches waiting to be rated (a gap before them), in schedule order."""
        rows = self.conn.execute("SELECT position, match_id FROM rating_queue ORDER BY position")
        return [(r[0], r[1]) for r in rows]

    def queue_ratings(self, waiting: Sequence[tuple[int, str]]) -> None:
        """The stored matches ``waiting`` (position, id) wait to be rated (a gap before them)."""
        self.conn.executemany("INSERT INTO rating_queue VALUES (?, ?)", waiting)

    def unqueue_ratings(self, positions: Sequence[int], rated_next: int) -> None:
        """The queued ``positions`` are rated; the next position to rate is ``rated_next``."""
        if positions:
            self.conn.executemany(
                "DELETE FROM rating_queue WHERE position = ?", [(p,) for p in positions]
            )
        self.set_meta(RATED_NEXT, str(rated_next))

    def save_ratings(
        self, changed: Mapping[str, Pair], history: Iterable[HistoryRow], now: float
    ) -> None:
        """Write the ratings that changed and append their history rows."""
        self.conn.executemany(
            "INSERT INTO ratings VALUES (?, ?, ?, ?, ?) ON CONFLICT (bot) DO UPDATE SET "
            "mu = excluded.mu, sigma = excluded.sigma, conservative = excluded.conservative, "
            "computed_at = excluded.computed_at",
            [(b, mu, sigma, Rating(mu, sigma).conservative, now)
             for b, (mu, sigma) in sorted(changed.items())],
        )  # fmt: skip
        self.conn.executemany(
            "INSERT INTO rating_history VALUES (?, ?, ?, ?, ?)",
            [(h.position, h.match_id, h.bot, h.mu, h.sigma) for h in history],
        )

    def ratings_before(self, bots: Iterable[str], position: int) -> dict[str, Pair]:
        """Each of ``bots``' rating after its last rated match before ``position`` (those
        that have one): one indexed read a bot."""
        query = (
            "SELECT mu, sigma FROM rating_history WHERE bot = ? AND position < ? "
            "ORDER BY position DESC LIMIT 1"
        )
        found = {}
        for bot in bots:
            row = self.conn.execute(query, (bot, position)).fetchone()
            if row is not None:
                found[bot] = (row[0], row[1])
        return found

    def clear_ratings(self, key: str) -> None:
        """Drop the ratings' fold (inside a transaction) to rebuild it under ``key``."""
        for table in ("ratings", "rating_history", "rating_queue"):
            self.conn.execute(f"DELETE FROM {table}")
        self.set_meta(RATING_KEY, key)

    def count_matches(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0])


_sorted_json = json.JSONEncoder(sort_keys=True).encode  # json.dumps(x, sort_keys=True), built once


def _json(value: dict[str, Any] | list[Any], encode: Callable[[Any], str] = _sorted_json) -> str:
    """``value`` as JSON text, the empty map or list (a seat's usual warnings and incidents)
    without a call to the encoder (a few per stored match)."""
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    return encode(value)


def _match_row(
    spec: MatchSpec, result: Mapping[str, Any], attempts: int, finished: float
) -> tuple[Any, ...]:
    """The ``matches`` row of a finished match (stored at ``finished``)."""
    return (
        spec.match_id,
        spec.set_id,
        spec.round,
        spec.rotation,
        spec.seed,
        json.dumps(list(spec.bots)),
        "done",
        result["game"],
        result["game_version"],
        _sorted_json(result["options"]),
        _sorted_json(result["outcome"]),
        result["decisions"],
        result["duration_ms"],
        finished - result["duration_ms"] / 1000,
        finished,
        attempts,
        result["worker"],
        result["sandbox"],
        result["replay_path"],
        _sorted_json(result.get("sched", {})),
    )


def _seat_row(match_id: str, s: Mapping[str, Any]) -> tuple[Any, ...]:
    """The ``results`` row of one seat of a finished match."""
    return (
        match_id,
        s["seat"],
        s["name"],
        s["score"],
        s["rank"],
        s["status"],
        s["detail"],
        s["decisions"],
        s["time_ms"],
        s["max_ms"],
        _json(s["warnings"]),
        s["transport"],
        s["sandbox"],
        s["exit_code"],
        s["signal"],
        s["bank_left_ms"],
        s["cpu_ms"],
        s["peak_memory_kb"],
        s["strikes"],
        _json(s["incidents"], json.dumps),
        s["log_tail"],
    )


def _record(spec: MatchSpec, result: Mapping[str, Any]) -> MatchRecord:
    """A finished match as :func:`_records` reads it back once stored (a score as the REAL it
    is stored as)."""
    seats = sorted(result["seats"], key=lambda s: s["seat"])
    teams = result["outcome"].get("teams")
    return MatchRecord(
        spec.position,
        spec.match_id,
        spec.set_id,
        tuple(SeatRecord(s["name"], float(s["score"]), s["rank"], s["status"]) for s in seats),
        tuple(tuple(t) for t in teams) if teams else None,
    )


def _at(record: MatchRecord, position: int) -> MatchRecord:
    """``record`` at ``position`` (a following ladder places matches in storage order)."""
    return record if record.position == position else dataclasses.replace(record, position=position)


def _marks(row: Sequence[Any]) -> str:
    return ", ".join("?" * len(row))


def _records(
    results: Iterable[Any], matches: Iterable[Any], positions: Mapping[str, int]
) -> list[MatchRecord]:
    """Match rows and their seats' rows as records, those in ``positions``, in its order."""
    seats: dict[str, list[SeatRecord]] = {}
    for r in results:
        seats.setdefault(r["match_id"], []).append(
            SeatRecord(r["bot"], r["score"], r["rank"], r["status"])
        )
    records = []
    for r in matches:
        if r["id"] in positions:
            teams = json.loads(r["outcome"]).get("teams")
            records.append(
                MatchRecord(
                    positions[r["id"]],
                    r["id"],
                    r["set_id"],
                    tuple(seats[r["id"]]),
                    tuple(tuple(t) for t in teams) if teams else None,
                )
            )
    return sorted(records, key=lambda m: m.position)


# A match is published once its set has as many rotations stored as it has seats (one result
# row per seat): ``arena/ladder/published.py``'s predicate, in SQL over two indexed counts.
ID_BYTES = 'id COLLATE "C"'  # PostgreSQL: match ids in byte order (indexed as such)
_PUBLISHED = (
    "(SELECT COUNT(*) FROM matches s WHERE s.set_id = m.set_id) >= "
    "(SELECT COUNT(*) FROM results c WHERE c.match_id = m.id)"
)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def _lock(path: Path) -> int | None:
    """An exclusive ``flock`` on the lock file ``path`` (its fd), or None when another run holds
    it. Retried when the file was replaced between opening and locking it."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        st = os.fstat(fd)
        if _identity(path) == (st.st_dev, st.st_ino):
            return fd
        os.close(fd)  # deleted or replaced meanwhile: lock the file that is there now
