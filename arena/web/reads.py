"""What the server's pages and API read from the ladder: computed once per change and shared
(the standings, the queue), or bounded by what one page shows (a page of matches, a replay).

The standings and the queue depend on the ladder's bots and the stored matches only; each is
held in a :class:`Shared` entry keyed on both (the stored matches' mark is one cheap query),
computed by one request at a time; the pages answer the others meanwhile with the entry before
(marked stale, so a live page fetches itself again at its next poll), and a request that
waited while a newer computation ran takes that one: never a computation per waiter. What a
computation reads besides ``standings()`` does not grow with the history: the stored sets (what
is published, the queue's next set and counts) and the ratings over time are kept from one
computation to the next and brought up to date with what was stored since (``sets.py``,
``history.py``).
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from arena.ladder.config import LadderConfig
from arena.ladder.follow import next_set
from arena.ladder.published import is_published
from arena.ladder.run import RoundRobin, schedule_args
from arena.ladder.sets import StoredSets, day
from arena.ladder.standings import standings
from arena.ladder.store import Store
from arena.match.replay import ReplayError, read
from arena.paths import is_inside
from arena.report.tables import place_labels
from arena.web.competition import Competition
from arena.web.history import History
from arena.web.ladder import LadderProcess
from arena.web.state import ladder, reading

PRIVATE_SEAT_FIELDS = ("log_tail", "incidents", "warnings")
PUBLIC_PLAYER_FIELDS = ("seat", "name")  # a bot's command (arguments, paths) is not public
MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,80}")
SHORT_ID = 6  # the fewest characters of a match id that ``/matches/SHORT`` resolves (pages show 12)
PAGE_SIZE = 50  # matches on one page of a listing
LOCK_WAIT_S = 0.1  # a page waits this long for another request's check or computation
QUEUE_SHOWN = 200  # the queue's newest matches done today, listed (all are counted)

T = TypeVar("T")


class Shared(Generic[T]):
    """One value computed from the ladder (``compute(cfg, store)``), computed again only when
    the ladder's bots or its stored matches changed, one computation at a time.

    The mark of the stored matches is read before them, so an entry is never older than its
    mark and a match stored since is seen by the next request. A request that waited for the
    lock while another computed takes that entry when its mark was read after it came.
    """

    def __init__(
        self,
        competition: Competition,
        compute: Callable[[LadderConfig | None, Store | None], T],
        extra: Callable[[], Any] = lambda: None,
    ) -> None:
        self.competition = competition
        self.compute = compute
        self.extra = extra  # more of the key (the queue's day)
        self.lock = threading.Lock()
        self.key: tuple[Any, ...] | None = None
        self.read_at = float("-inf")
        self.found: T | None = None
        self.rest_until = float("-inf")  # no computation for pages before (see latest)

    def get(self) -> T:
        """The value as the database holds it now."""
        return self.latest(wait=True)[0]

    def latest(self, wait: bool = False) -> tuple[T, bool]:
        """The value, and whether it is as the database holds it now. While another request
        computes it, the entry before is answered at once (not fresh) unless ``wait``: one
        slow computation holds up one request, never every visitor. Nor, unless ``wait``,
        is a computation started until as long after the last one ended as it took: a ladder
        that stores matches faster than they are computed keeps the server busy half the
        time at most, and its pages answered meanwhile."""
        came = time.monotonic()
        before = None if wait else self.found
        if not self.lock.acquire(timeout=-1 if before is None else LOCK_WAIT_S):
            assert before is not None
            return before, False  # another request computes it: the entry before, at once
        try:
            if self.found is not None and self.read_at >= came:
                return self.found, True  # computed from a mark read after this request came
            cfg = ladder(self.competition)
            with reading(self.competition) as store:
                read_at = time.monotonic()
                key = (cfg.bot_names if cfg is not None else None, stored_mark(store),
                       self.extra())  # fmt: skip
                if key != self.key or self.found is None:
                    if not wait and self.found is not None and read_at < self.rest_until:
                        return self.found, False
                    try:
                        self.found = self.compute(cfg, store)
                    finally:
                        ended = time.monotonic()
                        self.rest_until = 2 * ended - read_at
                    self.key = key
                self.read_at = read_at
            return self.found, True
        finally:
            self.lock.release()


StandingsCache = Shared[dict[str, Any]]
QueueCache = Shared[dict[str, Any]]


def standings_cache(competition: Competition, history: History) -> StandingsCache:
    return Shared(competition, Table(history))


def queue_cache(competition: Competition) -> QueueCache:
    return Shared(competition, Upcoming(), _midnight)


def stored_mark(store: Store | None) -> tuple[Any, ...]:
    """What changes when a match is stored or forgotten (``Store.stored_mark``)."""
    return store.stored_mark() if store is not None else ()


class Table:
    """The table and its places, and ``history`` brought up to date (its plots are drawn apart,
    ``history.py``; matches are read by page). The stored sets are tallied once, then only
    the matches stored since (``sets.py``): the count of published matches and which are not."""

    def __init__(self, history: History) -> None:
        self.history = history
        self.sets = StoredSets()

    def __call__(self, cfg: LadderConfig | None, store: Store | None) -> dict[str, Any]:
        if cfg is None or store is None:
            return {"stats": [], "places": [], "stored": 0, "unpublished": 0, "order": []}
        tally = self.sets.update(store)
        hidden = {i for s in tally.incomplete for i in tally.sets[s].ids}
        self.history.update(store, hidden)
        table = standings(cfg, store, public=True)
        return {
            "stats": table.stats,
            "places": place_labels(table.stats),
            "stored": tally.count - len(hidden),
            "unpublished": table.hidden,
            "order": table.order,
        }


def matches_page(competition: Competition, page: int, bots: tuple[str, ...] = ()) -> list[Any]:
    """One page of the published matches (of ``bots`` when given), newest first, with their
    seats' public fields: two bounded reads, whatever the history."""
    with reading(competition) as store:
        if store is None:
            return []
        rows = store.published_matches(PAGE_SIZE, (page - 1) * PAGE_SIZE, bots)
        seats = store.seats_of([r["id"] for r in rows])
    return [
        {
            "id": r["id"],
            "finished_at": _when(r["finished_at"]),
            "seats": [
                {"bot": s["bot"], "rank": s["rank"] + 1, "score": s["score"], "status": s["status"]}
                for s in seats[r["id"]]
            ],
        }
        for r in rows
    ]


def pages(count: int) -> int:
    """How many pages ``count`` matches fill (one, empty, for none)."""
    return max(1, -(-count // PAGE_SIZE))


def _midnight() -> float:
    return datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0).timestamp()


class Upcoming:
    """The schedule's next matches, the published matches done today (UTC: the newest
    ``QUEUE_SHOWN``, and how many) with a count of the rest: what the queue shows of the
    ladder, asked once per change. The stored sets are tallied once, then only the matches
    stored since (``sets.py``), so a following ladder's next set costs what it shows; a
    ladder file's schedule is kept while its arguments stay the same, and its next sets
    found from where they were last (``RoundRobin.upcoming``)."""

    def __init__(self) -> None:
        self.sets = StoredSets()
        self.fixed: tuple[tuple[Any, ...], RoundRobin] | None = None

    def __call__(self, cfg: LadderConfig | None, store: Store | None) -> dict[str, Any]:
        if store is None:
            upcoming = self._fixed(cfg).upcoming(None) if cfg is not None else []
            return {"upcoming": upcoming, "done_today": [], "done": 0, "unpublished": 0}
        midnight = _midnight()
        tally = self.sets.update(store)
        if cfg is None:
            upcoming = []
        elif cfg.follow is not None:
            upcoming = next_set(cfg, store, tally, batch=False)  # never a re-rating here
        else:
            upcoming = self._fixed(cfg).upcoming(store)
        newest = store.published_matches(QUEUE_SHOWN)
        unpublished = tally.unpublished_since(midnight)
        return {
            "upcoming": upcoming,
            "done_today": [r["id"] for r in newest if r["finished_at"] >= midnight],
            "done": tally.days[day(midnight)] - unpublished,
            "unpublished": unpublished,
        }

    def _fixed(self, cfg: LadderConfig) -> RoundRobin:
        """The schedule of the ladder file ``cfg``, kept while it stays the same."""
        key = schedule_args(cfg)
        if self.fixed is None or self.fixed[0] != key:
            self.fixed = (key, RoundRobin(cfg))
        return self.fixed[1]


def queue(found: dict[str, Any], runner: LadderProcess, counts: dict[str, int]) -> dict[str, Any]:
    """The ladder's state, its matches running and waiting (of the schedule's next ones,
    ``found`` by a :class:`QueueCache`), those done today (published ones only, with a count
    of the rest), and the gate queue's ``counts``."""
    held = runner.running()
    upcoming = found["upcoming"]
    running = [{"id": s.match_id, "bots": list(s.bots)} for s in upcoming if s.match_id in held]
    waiting = [{"id": s.match_id, "bots": list(s.bots)} for s in upcoming if s.match_id not in held]
    state = runner.state
    return {
        "running": running,
        "waiting": waiting,
        "done_today": found["done_today"],
        "done": found["done"],
        "unpublished": found["unpublished"],
        "gates": counts,
        "status": state.status,
        "problem": state.problem,
        "progress": f"{state.done} of {state.scheduled}" if state.scheduled else "",
    }


def version(competition: Competition, runner: LadderProcess) -> str:
    """A short string that changes whenever the standings, a bot page or the queue page would:
    the ladder's bots, the stored matches' mark and the runner's state. Cheap (one COUNT/MAX
    query), as every open page asks for it every few seconds; the pages' ETag."""
    cfg = ladder(competition)
    with reading(competition) as store:
        mark = stored_mark(store)
    state = runner.state
    seen = (cfg.bot_names if cfg is not None else None, mark, sorted(runner.running()),
            state.status, state.problem, state.done, state.scheduled)  # fmt: skip
    return hashlib.sha256(repr(seen).encode()).hexdigest()[:16]


def live(made_from: str) -> dict[str, str]:
    """What a live page carries: its version, and when it was made (UTC) for its visitor."""
    return {"version": made_from, "updated": time.strftime("%H:%M:%S", time.gmtime())}


def published(competition: Competition, match_id: str) -> bool:
    """Whether ``match_id`` is a stored match whose whole set is stored (two indexed reads)."""
    if not MATCH_ID.fullmatch(match_id):
        return False
    with reading(competition) as store:
        return store is not None and is_published(store, match_id)


def full_id(competition: Competition, short: str) -> str | None:
    """The published match whose id starts with ``short`` (6 characters at least, as pages show
    ids shortened), when there is one and only one; an unpublished match is never counted, so a
    miss tells nothing of it."""
    if not (MATCH_ID.fullmatch(short) and len(short) >= SHORT_ID):
        return None
    with reading(competition) as store:
        if store is None:
            return None
        found = [i for i in store.ids_starting(short, most=50) if is_published(store, i)]
    return found[0] if len(found) == 1 and found[0] != short else None


def public_replay(competition: Competition, match_id: str) -> dict[str, Any] | None:
    """A published match's replay (its whole set stored) with what only its bots' authors
    may read removed, and each bot's command; None for any other id, or a replay not in the
    competition's replay folder."""
    replays = competition.replays
    if not MATCH_ID.fullmatch(match_id) or replays is None:
        return None
    with reading(competition) as store:
        if store is None or not is_published(store, match_id):
            return None
        path = store.replay_path(match_id)
    if path is None or not is_inside(replays, path) or not path.is_file():
        return None
    try:
        data = read(path)
    except (ReplayError, OSError):
        return None
    data["result"] = [
        {k: v for k, v in r.items() if k not in PRIVATE_SEAT_FIELDS} for r in data["result"]
    ]
    data["players"] = [{k: p[k] for k in PUBLIC_PLAYER_FIELDS} for p in data["players"]]
    return data


def _when(t: float | None) -> str:
    return "" if t is None else time.strftime("%Y-%m-%d %H:%M", time.gmtime(t))
