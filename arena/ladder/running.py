"""The ladder's table kept up to date in the database, so no read walks the match history.

What ``arena ladder show``, ``h2h``, ``seats`` and ``compare``, the report and the server's
pages show is a :class:`arena.ladder.tally.Tally` over the stored matches. The store keeps it
in its ``running_*`` tables, advanced in the transaction that stores a match: the duplicate
sets it lets through are counted and added to the sequences in schedule order (``set_order``),
as the ratings are (``rated.py``). A stored match waits in ``pending`` (with its position)
until its set is complete (every rotation stored) and the ratings' prefix has passed it (every
match before it in the schedule stored): so a set completed early waits for the sets before
it, and the same results give the same intervals and ``=`` marks on 1 worker or on many. When
nothing is in flight (the end of a run) the prefix passes over a match given up, so the sets
behind it are added; the set of a match given up stays incomplete (never in the sequences)
until a later run plays it, which, being behind the prefix, has the whole tally rebuilt in
schedule order. A set whose seats forfeited is complete and counts like any other.

Readers take what is kept, then the complete sets still waiting behind a gap added after it
(:meth:`Kept.load`); of the incomplete sets' matches (:meth:`Kept.pending`) the public view
(``published.py``) shows nothing, the organiser's view counts them (only counts: the
statistics are over complete sets): reads bounded by the sets in flight. Per complete set the
store also keeps each bot's relative score (``set_values``), from which ``compare`` reads one
pair's sets.

The writer keeps in memory the tally it last wrote (:class:`Held`), so adding a set reads
no table back: every write of the tally stores a fresh ``meta.running_version`` in its
transaction, and the writer adds to its copy only while that version is still the
database's (another writer, or a rolled-back transaction, changed it: the copy is read again).

``meta.running_key`` names what the tally depends on (the ratings' key, the seats and the
game's score range); a database kept under another key, or upgraded from schema 3, is rebuilt
by its next writer (with the ratings: ``rated.py``) and read meanwhile by the batch. A set with
a score outside the game's score range sets ``meta.out_of_range``: readers then take the batch,
which names the offending match.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import TYPE_CHECKING

import numpy as np

from arena.ladder import betting, stats
from arena.ladder.ratings import (
    MatchRecord,
    ScoreOutOfRange,
    check_scores,
    complete_sets,
    set_values,
)
from arena.ladder.tally import PAIR_LEVEL, Tally, Totals, exact

if TYPE_CHECKING:
    from arena.ladder.config import LadderConfig
    from arena.ladder.store import Store

RUNNING_KEY = "running_key"
OUT_OF_RANGE = "out_of_range"
SETS_DONE = "sets_done"
OUTSIDE = "outside"  # stored matches not in the schedule when the tally was rebuilt
SCHEDULED = "scheduled"  # the schedule's length when the tally was rebuilt ('' if it has none)
VERSION = "running_version"  # a fresh token with every write of the kept tally (Kept.add_sets)

SCHEMA = """
CREATE TABLE IF NOT EXISTS pending (
    match_id TEXT PRIMARY KEY,
    set_id TEXT NOT NULL,
    position INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS pending_set ON pending (set_id);
CREATE TABLE IF NOT EXISTS set_order (set_id TEXT PRIMARY KEY, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS set_values (
    set_id TEXT NOT NULL,
    bot TEXT NOT NULL,
    value REAL NOT NULL,
    PRIMARY KEY (bot, set_id)
);
CREATE TABLE IF NOT EXISTS running_totals (
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    ranks INTEGER NOT NULL,
    scores TEXT NOT NULL,
    faults TEXT NOT NULL,
    PRIMARY KEY (kind, name)
);
CREATE TABLE IF NOT EXISTS running_sequences (
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    moments TEXT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (kind, name)
);
CREATE TABLE IF NOT EXISTS running_pairs (
    a TEXT NOT NULL,
    b TEXT NOT NULL,
    ahead INTEGER NOT NULL,
    met INTEGER NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (a, b)
);
CREATE INDEX IF NOT EXISTS rating_history_bot ON rating_history (bot, position);
"""
TABLES = ("pending", "set_order", "set_values", "running_totals", "running_sequences",
          "running_pairs")  # fmt: skip
BOT, SEAT = "bot", "seat"


def running_key(cfg: LadderConfig) -> str:
    """What the kept tally depends on (see the module docstring)."""
    from arena.ladder.rated import rating_key_of

    text = json.dumps([rating_key_of(cfg), cfg.seats, list(cfg.rating.score_range)])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _pack(state: np.ndarray) -> str:
    return base64.b64encode(state.astype("<f8").tobytes()).decode()


def _unpack(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f8").copy()


class Kept:
    """The tally of one ladder as its database keeps it (see the module docstring)."""

    def __init__(self, cfg: LadderConfig) -> None:
        self.key = running_key(cfg)
        self.score_range = cfg.rating.score_range
        self.seats = cfg.seats
        self.held: Held | None = None  # the writer's copy of what it last wrote (add_sets)

    def fresh(self, store: Store) -> bool:
        return store.meta(RUNNING_KEY) == self.key

    # -- the writer ----------------------------------------------------------------------------

    def stored(self, store: Store, arrived: Sequence[tuple[int, str, str]], rated: int) -> None:
        """The matches ``arrived`` (position, match id, set id) were just inserted, inside
        their transaction, and the ratings' prefix now ends before ``rated``: they wait in
        ``pending``, and the sets they let through are added (:meth:`release`). The caller
        checked that the tally kept is this one (:meth:`fresh`). Stored behind a gap (the
        prefix did not move, and nothing before it waits: every release leaves none) they let
        nothing through, so nothing is looked for."""
        store.conn.executemany(
            "INSERT INTO pending VALUES (?, ?, ?)", [(m, s, p) for p, m, s in arrived]
        )
        if min(p for p, _, _ in arrived) < rated:
            self.release(store, rated)

    def release(self, store: Store, rated: int) -> None:
        """Add the complete sets waiting in ``pending`` whose matches all lie before position
        ``rated`` (the end of the ratings' prefix: every match before it is stored, or was
        passed over when nothing was in flight), in the order of their last match."""
        ready = [r[0] for r in store.conn.execute(
            "SELECT set_id FROM pending GROUP BY set_id HAVING COUNT(*) = ? AND MAX(position) < ? "
            "ORDER BY MAX(position)", (self.seats, rated))]  # fmt: skip
        if not ready:
            return
        groups = self._groups(store, ready)
        marks = ", ".join("?" * len(ready))
        store.conn.execute(f"DELETE FROM pending WHERE set_id IN ({marks})", ready)
        self.add_sets(store, groups)

    def _groups(self, store: Store, set_ids: Sequence[str]) -> list[list[MatchRecord]]:
        """The pending matches of ``set_ids``, set by set in this order."""
        marks = ", ".join("?" * len(set_ids))
        rows = store.conn.execute(
            f"SELECT match_id, position FROM pending WHERE set_id IN ({marks})", list(set_ids)
        )
        by_set: dict[str, list[MatchRecord]] = {s: [] for s in set_ids}
        for match in store.records_of({r[0]: r[1] for r in rows}):
            by_set[match.set_id].append(match)
        return list(by_set.values())

    def add_sets(self, store: Store, groups: Sequence[Sequence[MatchRecord]]) -> None:
        """Count the complete sets ``groups`` and add them, in this order, to what is kept."""
        bots = sorted({s.bot for group in groups for m in group for s in m.seats})
        tally, done = self._held(store)
        values: list[tuple[str, str, float]] = []
        order = []
        for group in groups:
            try:
                check_scores(group, self.score_range)
            except ScoreOutOfRange:
                store.set_meta(OUT_OF_RANGE, "1")  # readers take the batch, which says where
                continue
            for match in group:
                tally.count(match)
            set_id = group[0].set_id
            values += [(set_id, bot, v) for bot, v in tally.add_set(group).items()]
            done += 1
            order.append((set_id, done))
        self.save(store, tally, bots)
        store.conn.executemany("INSERT INTO set_values VALUES (?, ?, ?)", values)
        store.conn.executemany("INSERT INTO set_order VALUES (?, ?)", order)
        version = uuid.uuid4().hex
        store.set_metas({SETS_DONE: str(done), VERSION: version})
        self.held = Held(version, tally, done)

    def _held(self, store: Store) -> tuple[Tally, int]:
        """The whole kept tally and the sets it holds, for the writer to add to: its copy of
        what it last wrote while the version it wrote is still the database's (no other
        process wrote since, and that transaction was not rolled back), else read. The copy
        is dropped as it is handed out: it stands for the database again only once saved."""
        held, self.held = self.held, None
        if held is not None and store.meta(VERSION) == held.version:
            return held.tally, held.done
        return self._kept(store), int(store.meta(SETS_DONE) or 0)

    def rebuild(self, store: Store, records: Sequence[MatchRecord], scheduled: int | None) -> None:
        """Keep the tally of ``records`` (every stored match of the schedule, all of them
        rated) from scratch, inside the caller's transaction: the complete sets in the order of
        their last match, the rest pending."""
        self.held = None
        for table in TABLES:
            store.conn.execute(f"DELETE FROM {table}")
        for key in (OUT_OF_RANGE, SETS_DONE):
            store.set_meta(key, "")
        store.set_meta(RUNNING_KEY, self.key)
        store.set_meta(OUTSIDE, str(store.count_matches() - len(records)))
        store.set_meta(SCHEDULED, "" if scheduled is None else str(scheduled))
        groups = sorted(complete_sets(records), key=lambda g: g[-1].position)
        whole = {m.match_id for group in groups for m in group}
        store.conn.executemany(
            "INSERT INTO pending VALUES (?, ?, ?)",
            [(m.match_id, m.set_id, m.position) for m in records if m.match_id not in whole],
        )
        self.add_sets(store, groups)

    # -- reading and writing the tables --------------------------------------------------------

    def load(self, store: Store, bots: Iterable[str] | None = None) -> Tally:
        """The tally a reader shows, of ``bots`` (and the pairs among them) only when given:
        what is kept, then the complete sets waiting behind a gap (:meth:`waiting`: a few)
        counted and added after them, as the writer will add them."""
        tally = self._kept(store, bots)
        for group in self.waiting(store):
            check_scores(group, self.score_range)
            for match in group:
                tally.count(match)
            tally.add_set(group)
        return tally

    def _kept(self, store: Store, bots: Iterable[str] | None = None) -> Tally:
        """What is kept, of ``bots`` (and the pairs among them) only when given."""
        tally = Tally(self.score_range, self.seats)
        names = None if bots is None else sorted(set(bots))
        some, pairs, args = "", "", tuple[str, ...]()
        if names is not None:  # the rows of these bots only, by the tables' keys
            marks = ", ".join("?" * len(names)) or "NULL"  # none: an empty list
            some = f" WHERE kind = '{SEAT}' OR name IN ({marks})"
            pairs = f" WHERE a IN ({marks}) AND b IN ({marks})"
            args = tuple(names)
        conn = store.conn
        for r in conn.execute(f"SELECT * FROM running_totals{some}", args):
            totals = Totals(r["games"], r["wins"], r["ranks"], exact(r["scores"]),
                            Counter(json.loads(r["faults"])))  # fmt: skip
            if r["kind"] == BOT:
                tally.bots[r["name"]] = totals
            else:
                tally.seats[int(r["name"])] = totals
        for r in conn.execute(f"SELECT * FROM running_sequences{some}", args):
            running = stats.Running(tally.bounds, state=(r["moments"], _unpack(r["state"])))
            if r["kind"] == BOT:
                tally.relative[r["name"]] = running
            else:
                tally.seat_relative[int(r["name"])] = running
        for r in conn.execute(f"SELECT * FROM running_pairs{pairs}", args * 2):
            pair = (r["a"], r["b"])
            if r["met"]:
                tally.h2h[pair] = [r["ahead"], r["met"]]
            if r["state"]:
                zero = stats.SIGNS.to_scale(0.0)
                tally.pairs[pair] = betting.OneSided(zero, PAIR_LEVEL, _unpack(r["state"]))
        return tally

    def save(self, store: Store, tally: Tally, bots: Sequence[str]) -> None:
        """Write the entries of ``tally`` that adding sets of ``bots`` (sorted) changes: theirs,
        the pairs among them, and the seats'."""
        totals = [(BOT, name, tally.bots[name]) for name in bots if name in tally.bots]
        totals += [(SEAT, str(index), t) for index, t in tally.seats.items()]
        store.conn.executemany(
            "INSERT INTO running_totals VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (kind, name) "
            "DO UPDATE SET games = excluded.games, wins = excluded.wins, ranks = excluded.ranks, "
            "scores = excluded.scores, faults = excluded.faults",
            [(kind, name, t.games, t.wins, t.ranks, str(t.scores),
              json.dumps(dict(sorted(t.faults.items())))) for kind, name, t in totals],
        )  # fmt: skip
        sequences = [(BOT, name, tally.relative[name]) for name in bots if name in tally.relative]
        sequences += [(SEAT, str(index), r) for index, r in tally.seat_relative.items()]
        store.conn.executemany(
            "INSERT INTO running_sequences VALUES (?, ?, ?, ?) ON CONFLICT (kind, name) "
            "DO UPDATE SET moments = excluded.moments, state = excluded.state",
            [(kind, name, *_texts(r)) for kind, name, r in sequences],
        )
        pairs = [p for p in permutations(bots, 2) if p in tally.h2h or p in tally.pairs]
        store.conn.executemany(
            "INSERT INTO running_pairs VALUES (?, ?, ?, ?, ?) ON CONFLICT (a, b) DO UPDATE SET "
            "ahead = excluded.ahead, met = excluded.met, state = excluded.state",
            [(a, b, *tally.h2h.get((a, b), (0, 0)),
              _pack(tally.pairs[a, b].state()) if (a, b) in tally.pairs else "")
             for a, b in pairs],
        )  # fmt: skip

    def pending(self, store: Store) -> list[MatchRecord]:
        """The stored matches whose set is not complete yet (a few: the sets in flight)."""
        rows = store.conn.execute(
            "SELECT match_id, position FROM pending WHERE set_id IN (SELECT set_id FROM pending "
            "GROUP BY set_id HAVING COUNT(*) < ?)", (self.seats,))  # fmt: skip
        return store.records_of({r[0]: r[1] for r in rows}) if rows else []

    def waiting(self, store: Store) -> list[list[MatchRecord]]:
        """The complete sets not added yet, as a gap before them in the schedule keeps them
        waiting (a few: those stored ahead of a match in flight), in the order of their last
        match."""
        ready = [r[0] for r in store.conn.execute(
            "SELECT set_id FROM pending GROUP BY set_id HAVING COUNT(*) = ? "
            "ORDER BY MAX(position)", (self.seats,))]  # fmt: skip
        return self._groups(store, ready) if ready else []

    def pair_sets(self, store: Store, a: str, b: str) -> list[tuple[float, float]]:
        """A's and B's relative scores in each complete set both played, in the order of the
        sets: one pair's sets, read by the index of A's, then those of the sets waiting."""
        query = (
            "SELECT x.value, y.value FROM set_values x "
            "JOIN set_values y ON y.set_id = x.set_id AND y.bot = ? "
            "JOIN set_order o ON o.set_id = x.set_id WHERE x.bot = ? ORDER BY o.seq"
        )
        kept = [(r[0], r[1]) for r in store.conn.execute(query, (b, a))]
        waiting = [set_values(g) for g in self.waiting(store)]
        return kept + [(v[a], v[b]) for v in waiting if a in v and b in v]

    def order(self, store: Store) -> list[str]:
        """The complete sets in the order the tally takes them: those kept, then those
        waiting."""
        kept = [r[0] for r in store.conn.execute("SELECT set_id FROM set_order ORDER BY seq")]
        return kept + [g[0].set_id for g in self.waiting(store)]

    def usable(self, store: Store) -> bool:
        """Whether readers can read the tally kept (fresh, and every kept score in range)."""
        return self.fresh(store) and not store.meta(OUT_OF_RANGE)


@dataclass(frozen=True)
class Held:
    """The tally a writer last wrote, the sets it holds, and the version it wrote with it."""

    version: str
    tally: Tally
    done: int


def _texts(running: stats.Running) -> tuple[str, str]:
    moments, state = running.state()
    return moments, _pack(state)
