"""The garbage collector around a game: the process's heap left out of its passes while the
game is played, and a full pass of its own now and then between games. (A ladder's runner
freezes its heap the same way for a whole run: ``arena.ladder.loop``.)

Each time a game's own objects (its events, its state) have grown the heap by a quarter, the
collector makes a full pass over the whole heap: every module and whatever the caller keeps,
~15 ms for a worker's 40,000 objects, about 1 us of every decision with fast bots. Frozen
(``gc.freeze``) while the game is played, what the process held before it is left out of every
pass; the game's objects are collected as before, and what was frozen is handed back after.

Freezing also sets the collector's counts back to zero, so a process that does little besides
playing matches (a worker) would never reach a full pass on its own: cycles of the old
objects would never be freed. So one is made between games once the process has played
``FULL_PASS_DECISIONS`` decisions since its last (~0.2 us a decision, against the ~1 us of
the passes made during games before).
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

FULL_PASS_DECISIONS = 100_000  # decisions played in this process between two full passes


class _Played:
    """Decisions played in this process since its last full pass (any thread's games)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.decisions = 0

    def add(self, decisions: int) -> bool:
        """Count a game's decisions; True (and the count starts anew) when a pass is due."""
        with self.lock:
            self.decisions += decisions
            if self.decisions < FULL_PASS_DECISIONS:
                return False
            self.decisions = 0
            return True


_PLAYED = _Played()


@contextlib.contextmanager
def frozen() -> Iterator[None]:
    """The heap as it is left out of the collector's passes for the ``with`` block. Left
    alone when something else froze it (it unfreezes it when it means to)."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def played(decisions: int) -> None:
    """A game of ``decisions`` is over (outside it): a full pass when one is due."""
    if _PLAYED.add(decisions):
        gc.collect()
