"""The ratings over time that the server's pages plot, at a cost that does not grow with the
history.

The ladder keeps every bot's rating after each match in the store as it stores the match
(``rating_history``, ``arena/ladder/rated.py``). :class:`History` reads those rows once, then
only the rows past the last position it holds (a range of the table's key), and only up to the
first match that is not published yet (its duplicate set incomplete, ``published.py``): that
match's rating change would tell what was dealt in a set still being played. A rebuilt history
(the ladder re-rated, matches forgotten) is seen at the row it last held, and read again.

:class:`Plots` draws a plot of some bots from it (at most ``PLOT_POINTS`` per bot) and keeps it:
a plot older than ``PLOT_EVERY_S`` whose history grew since is drawn again in the background
while visitors get the one before (matplotlib takes a second or more, and a long history's
plot hardly changes from one match to the next). Only the first plot of some bots is drawn by
the request that asks for it.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Collection, Sequence

from arena.ladder.ratings import HistoryRow
from arena.ladder.store import Store
from arena.report import plots

PLOT_POINTS = 300  # at most, per bot, in a page's rating plot
PLOT_EVERY_S = 30.0  # a plot is drawn again at most this often
PLOTS_KEPT = 512  # plots kept (the standings' and each bot page's)


class History:
    """The stored rating history of the published matches, by bot; see the module docstring."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._clear()

    def _clear(self) -> None:
        self.by_bot: dict[str, list[HistoryRow]] = {}
        self.next = 0  # the first position not held
        self.last: HistoryRow | None = None  # the last row held
        self.grown = 0  # counts the updates that added rows

    def update(self, store: Store, unpublished: Collection[str]) -> None:
        """Add the rows stored since, up to the first of a match in ``unpublished``."""
        with self.lock:
            if self.last is not None and not store.holds_history_row(self.last):
                self._clear()  # re-rated or forgotten since: read again
            added = False
            for row in store.rating_history(since=self.next):
                if row.match_id in unpublished:
                    break  # it and everything after it wait until its set is whole
                self.by_bot.setdefault(row.bot, []).append(row)
                self.last, self.next, added = row, row.position + 1, True
            self.grown += added

    def of(self, bots: Sequence[str]) -> list[HistoryRow]:
        """The rows of ``bots``, each bot's in schedule order."""
        with self.lock:
            return [r for b in bots for r in self.by_bot.get(b, ())]


class Plots:
    """Rating plots of ``History`` kept per set of bots; see the module docstring."""

    def __init__(self, history: History) -> None:
        self.history = history
        self.lock = threading.Lock()  # matplotlib draws one plot at a time
        self.kept: OrderedDict[tuple[str, ...], tuple[str, float, int]] = OrderedDict()
        self.drawing: set[tuple[str, ...]] = set()

    def svg(self, bots: Sequence[str]) -> str:
        """The plot of ``bots`` (empty before any of their matches is published)."""
        key = tuple(bots)
        found = self.kept.get(key)
        if found is None:
            return self._draw(key)
        svg, drawn_at, grown = found
        stale = grown != self.history.grown and time.monotonic() - drawn_at >= PLOT_EVERY_S
        if stale and key not in self.drawing:
            self.drawing.add(key)
            threading.Thread(target=self._draw, args=(key,), daemon=True).start()
        return svg

    def _draw(self, key: tuple[str, ...]) -> str:
        try:
            with self.lock:
                grown = self.history.grown
                found = self.kept.get(key)
                if found is not None and found[2] == grown:
                    return found[0]  # drawn meanwhile by another request
                rows = self.history.of(key)
                svg = _STYLE.sub("", plots.rating_history(rows, key, PLOT_POINTS)) if rows else ""
                self.kept[key] = (svg, time.monotonic(), grown)
                self.kept.move_to_end(key)
                while len(self.kept) > PLOTS_KEPT:
                    self.kept.popitem(last=False)
            return svg
        finally:
            self.drawing.discard(key)


# matplotlib's one ``<style>`` element, left out: the site's stylesheet has its rule, and the
# pages' policy allows no inline style element
_STYLE = re.compile(r"<style[^>]*>.*?</style>", re.DOTALL)
