"""The ratings over time that the server's pages plot, at a cost that does not grow with the
history.

The ladder keeps every bot's rating after each match in the store as it stores the match
(``rating_history``, ``arena/ladder/rated.py``). :class:`History` reads those rows once, then
only the rows past the last position it holds (a range of the table's key), and only up to the
first match that is not published yet (its duplicate set incomplete, ``published.py``): that
match's rating change would tell what was dealt in a set still being played. A rebuilt history
(the ladder re-rated, matches forgotten) is seen at the row it last held, and read again.

It holds of each bot not every row but a :class:`Series` evenly thinned as rows arrive (at most
``PLOT_POINTS``, its last row included): what a plot shows, so the memory held, the plot's
drawing and the page's size do not grow with the history (about 300k rows at 100k matches).
Whoever needs every row of a few bots (an author's own versions) reads them from the store, up
to the same published position (:meth:`History.rows_of`).

:class:`Plots` draws a plot of some bots from it and keeps it: a plot older than
``PLOT_EVERY_S`` whose history grew since is drawn again in the background while visitors get
the one before (matplotlib takes a fraction of a second or more, and a long history's plot
hardly changes from one match to the next). Only the first plot of some bots is drawn by the
request that asks for it.
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

PLOT_POINTS = 150  # at most, per bot, held and shown in a page's rating plot
PLOT_EVERY_S = 30.0  # a plot is drawn again at most this often
PLOTS_KEPT = 512  # plots kept (the standings' and each bot page's)


class Series:
    """One bot's rows, evenly thinned as they arrive: those whose index among the bot's rows is
    a multiple of ``step``, and the last. When more than ``most - 1`` multiples are held, the
    step doubles and every other one is let go, so between ``most / 2`` and ``most`` points
    are held, spread evenly over the whole history, the first and last included."""

    def __init__(self, most: int = PLOT_POINTS) -> None:
        self.most = most
        self.count = 0  # the bot's rows seen
        self.step = 1
        self.kept: list[plots.Point] = []  # (index, row), index a multiple of step
        self.last: plots.Point | None = None

    def add(self, row: HistoryRow) -> None:
        if self.count % self.step == 0:
            self.kept.append((self.count, row))
            if len(self.kept) >= self.most:
                self.kept = self.kept[::2]
                self.step *= 2
        self.last = (self.count, row)
        self.count += 1

    def points(self) -> list[plots.Point]:
        """The rows held, in order, with their index among the bot's rows."""
        last = [self.last] if self.last is not None and self.last[0] != self.kept[-1][0] else []
        return self.kept + last


class History:
    """The stored rating history of the published matches, by bot; see the module docstring."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._clear()

    def _clear(self) -> None:
        self.by_bot: dict[str, Series] = {}
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
                self.by_bot.setdefault(row.bot, Series()).add(row)
                self.last, self.next, added = row, row.position + 1, True
            self.grown += added

    def series(self, bots: Sequence[str]) -> dict[str, list[plots.Point]]:
        """The points held of each of ``bots`` that has any."""
        with self.lock:
            return {b: self.by_bot[b].points() for b in bots if b in self.by_bot}

    def rows_of(self, store: Store, bots: Sequence[str]) -> list[HistoryRow]:
        """Every row of ``bots`` up to the position held (published), each bot's in schedule
        order: read from the store by its index on bots, so it costs their rows."""
        with self.lock:
            before = self.next
        return store.rating_history_of(bots, before)


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
                series = self.history.series(key)
                drawn = plots.rating_lines(series, markers=False) if series else ""
                svg = _STYLE.sub("", drawn)
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
