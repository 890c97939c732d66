"""What the server holds while it runs, kept in ``app.state.held`` for its endpoints, and the
few things every endpoint uses: its refusals and the ladder database opened for a read."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.requests import Request

from arena.ladder.config import LadderConfig, LadderConfigError
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
    """The ladder database opened for reading, or None before its first match."""
    try:
        store = Store.read(competition.database, str(competition.data["game"]))
    except NoDatabase:
        yield None
        return
    try:
        yield store
    finally:
        store.close()


def ladder(competition: Competition) -> LadderConfig | None:
    """The competition's ladder as it stands now, None when it cannot be played yet."""
    try:
        return competition.ladder(check_bots=False)
    except LadderConfigError:
        return None
