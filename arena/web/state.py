"""What the server holds while it runs, kept in ``app.state.held`` for its endpoints, and the
few things every endpoint uses: its refusals and the ladder database opened for a read."""

from __future__ import annotations

import contextlib
import os
import threading
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.requests import Request

from arena.ladder import database
from arena.ladder.config import LadderConfig, LadderConfigError
from arena.ladder.database import Location
from arena.ladder.store import NoDatabase, Store
from arena.web.accounts import Accounts
from arena.web.competition import Competition
from arena.web.gates import GateQueue
from arena.web.history import History, Plots

if TYPE_CHECKING:
    from arena.web.ladder import LadderProcess
    from arena.web.reads import QueueCache, StandingsCache


class Refused(Exception):
    """An API request refused: its HTTP status and one clear sentence."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


@dataclass
class Held:
    """The parts of one running server: its competition, authors, ladder (in its own
    process), standings and queue (each computed once per change), gate queue, and the
    ratings over time with their plots (``history.py``)."""

    competition: Competition
    accounts: Accounts
    runner: LadderProcess
    standings: StandingsCache
    queue: QueueCache
    gates: GateQueue
    history: History
    plots: Plots


def held(request: Request) -> Held:
    """What the server of ``request`` holds."""
    found: Held = request.app.state.held
    return found


@contextlib.contextmanager
def reading(competition: Competition) -> Iterator[Store | None]:
    """The ladder database opened for reading, or None before its first match. Each thread
    keeps its connection open (``Store.read`` costs two connections and a read of ``meta``,
    more than a page's own reads), opened again when the file was replaced or a read failed."""
    kept: dict[str, tuple[Store, object]] = _threads.__dict__.setdefault("stores", {})
    where = str(competition.database)
    found = kept.get(where)
    if found is not None and found[1] != _identity(competition.database):
        del kept[where]  # replaced or deleted since: opened again
        found[0].close()
        found = None
    if found is None:
        try:
            store = Store.read(competition.database, str(competition.data["game"]))
        except NoDatabase:
            yield None
            return
        found = kept[where] = (store, _identity(competition.database))
    try:
        yield found[0]
    except database.Error:
        kept.pop(where, None)
        found[0].close()
        raise


_threads = threading.local()


def _identity(location: Location) -> object:
    """What changes when a SQLite file is replaced (nothing for a PostgreSQL database)."""
    if database.is_url(location):
        return None
    try:
        st = os.stat(location)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def ladder(competition: Competition) -> LadderConfig | None:
    """The competition's ladder as it stands now, None when it cannot be played yet: read
    again only when the registry changed (its database or its journal written), as every page
    and every poll of ``/api/changes`` asks for it."""
    registry = competition.registry / "registry.db"
    stamp = tuple(_stamp(p) for p in (registry, registry.with_name("registry.db-wal")))
    with _ladders_lock:
        found = _ladders.get(id(competition))
        if found is not None and found[0]() is competition and found[1] == stamp:
            return found[2]
    try:
        cfg = competition.ladder(check_bots=False)
    except LadderConfigError:
        cfg = None
    with _ladders_lock:
        _ladders[id(competition)] = (weakref.ref(competition), stamp, cfg)
    return cfg


# by competition (the id of the object, checked by a weak reference: a competition file read
# again is another object, and its ladder is read again)
_ladders: dict[int, tuple[weakref.ref[Competition], tuple[object, ...], LadderConfig | None]] = {}
_ladders_lock = threading.Lock()


def _stamp(path: Path) -> object:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns
