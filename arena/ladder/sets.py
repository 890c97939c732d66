"""The duplicate sets a ladder has stored, tallied once and then kept up to date by reading only
the matches stored since: what a following ladder needs to choose its next set (the sets left
incomplete, how many sets each table and bot played, each bot's seats and faults for the crash
policy), and what the server's queue page counts, at a cost that does not grow with the history.

The tally is read from the ``matches`` table in insertion order (``rowid`` on SQLite, ``seq`` on
PostgreSQL), a light read of a few columns with their seats' bots and statuses; each
:meth:`StoredSets.update` reads the rows past the last one seen (a range of the key). A store
with fewer matches than were seen (matches forgotten) is tallied again from the start.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from arena.ladder.store import Store
from arena.match.results import OK

Table = tuple[str, ...]


def day(t: float) -> int:
    """The UTC day of the unix time ``t`` (days since 1970-01-01)."""
    return int(t // 86400)


@dataclass
class StoredSet:
    """One duplicate set as stored so far."""

    table: Table  # its bots, sorted
    round: int
    ids: list[str] = field(default_factory=list)  # its stored matches, in storage order
    finished: list[float] = field(default_factory=list)  # when each was stored


class StoredSets:
    """Every stored set by id, with its table's and its bots' counts; see the module docstring."""

    def __init__(self) -> None:
        self.cleared = 0  # how often it was tallied again from the start
        self._clear()

    def _clear(self) -> None:
        self.sets: dict[str, StoredSet] = {}
        self.tables: Counter[Table] = Counter()  # sets stored per table
        self.incomplete: set[str] = set()  # sets with fewer matches stored than seats
        self.after = -1  # the insertion order of the last match read
        self.count = 0  # matches read
        self.days: Counter[int] = Counter()  # matches stored per UTC day
        self.games: Counter[str] = Counter()  # seats stored per bot
        self.faults: Counter[str] = Counter()  # of them not ``ok``

    def update(self, store: Store) -> StoredSets:
        """Read the matches stored since the last update (all of them the first time)."""
        if store.count_matches() < self.count:
            self._clear()  # matches forgotten: tallied again
            self.cleared += 1
        for r in store.seats_stored_after(self.after):
            if r["n"] != self.after:
                self._add(r["id"], r["set_id"], r["round"], json.loads(r["seats"]),
                          r["finished_at"])  # fmt: skip
                self.after = r["n"]
            self.games[r["bot"]] += 1
            if r["status"] != OK:
                self.faults[r["bot"]] += 1
        return self

    def _add(self, match_id: str, set_id: str, rnd: int, bots: list[str], at: float) -> None:
        self.count += 1
        self.days[day(at)] += 1
        found = self.sets.get(set_id)
        if found is None:
            found = self.sets[set_id] = StoredSet(tuple(sorted(bots)), rnd)
            self.tables[found.table] += 1
        found.ids.append(match_id)
        found.finished.append(at)
        if len(found.ids) < len(found.table):
            self.incomplete.add(set_id)
        else:
            self.incomplete.discard(set_id)

    def unpublished_since(self, since: float) -> int:
        """Stored matches of incomplete sets (not shown yet) stored at or after ``since``."""
        return sum(t >= since for s in self.incomplete for t in self.sets[s].finished)

    def sets_played(self, names: set[str]) -> Counter[str]:
        """Sets stored per bot, over the tables whose bots are all in ``names``."""
        played: Counter[str] = Counter()
        for table, n in self.tables.items():
            if names.issuperset(table):
                for bot in table:
                    played[bot] += n
        return played
