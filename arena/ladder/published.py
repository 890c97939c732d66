"""What of a ladder may be shown while it is played: whole duplicate sets only.

The rotations of a duplicate set share one deal, and are played and stored one by one. A stored
rotation's replay shows every hand of that deal, so while another rotation of the same set is
still to be played, showing it (its replay, its viewer, its seats' places, scores or stderr,
the rating changes it made) tells the bots about to play that deal what will be dealt. A
match is therefore published only once its set is complete: every rotation stored, as many as
the set has seats. Every reader of a ladder being played (the server's pages and API, the
report of a following ladder) asks this module; of the rest only counts are shown.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from arena.ladder.ratings import MatchRecord
from arena.ladder.store import Store


def _complete(stored: int, seats: str) -> bool:
    """The predicate: a set with ``stored`` rotations stored, each seating the bots of the
    JSON list ``seats``, is complete (a set plays one rotation per seat)."""
    return stored >= len(json.loads(seats))


def published_ids(store: Store) -> set[str]:
    """The ids of the stored matches whose set is complete."""
    rows = store.conn.execute("SELECT id, set_id, seats FROM matches").fetchall()
    counts = Counter(r[1] for r in rows)
    return {r[0] for r in rows if _complete(counts[r[1]], r[2])}


def is_published(store: Store, match_id: str) -> bool:
    """Whether ``match_id`` is stored and its set complete (one match's question, two indexed
    reads: asked for every replay served)."""
    row = store.conn.execute("SELECT set_id, seats FROM matches WHERE id = ?", (match_id,))
    found = row.fetchone()
    if found is None:
        return False
    query = "SELECT COUNT(*) FROM matches WHERE set_id = ?"
    stored = store.conn.execute(query, (found[0],)).fetchone()[0]
    return _complete(stored, found[1])


def published(store: Store, records: Sequence[MatchRecord]) -> list[MatchRecord]:
    """The records of published matches, in their order."""
    public = published_ids(store)
    return [r for r in records if r.match_id in public]
