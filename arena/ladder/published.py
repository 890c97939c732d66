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

from collections.abc import Sequence

from arena.ladder.ratings import MatchRecord
from arena.ladder.store import Store


def is_published(store: Store, match_id: str) -> bool:
    """Whether ``match_id`` is stored and its set complete (asked for every replay served)."""
    return store.is_published(match_id)


def published(store: Store, records: Sequence[MatchRecord]) -> list[MatchRecord]:
    """The records of published matches, in their order."""
    public = store.published_ids()
    return [r for r in records if r.match_id in public]
