"""Pure: confidence sequences and tests for a bounded mean, by betting.

The construction is Waudby-Smith and Ramdas (2023), "Estimating means of bounded random
variables by betting", JRSS-B 86(1), 1-27: to test a candidate mean ``m`` of values in [0, 1],
bet on each new value with a stake fixed before seeing it. The capital
``K_t(m) = prod (1 + lambda_i (y_i - m))`` is then a nonnegative martingale when ``m`` is the
true mean, and by Ville's inequality it ever reaches ``1 / alpha`` with probability at most
``alpha``, however long it runs and whatever the values' distribution in [0, 1] (skewed,
discrete, or anything else). The candidates never ruled out form a confidence sequence: it
holds the true mean at every number of sets at once, so looking after every set, and stopping
at any moment, keeps its error rate.

* :func:`log_capital`: the hedged capital process, half the capital betting the mean is above
  ``m``, half below, with the predictable plug-in stakes of their eq. (26) and the stake capped
  at :data:`BET_CAP` of what a value could lose (a value at the far end keeps a quarter).
* :class:`ConfidenceSequence`: the confidence sequence kept as values come, on a fixed grid of
  candidate means, read widened outwards (never narrower than the set of candidates not ruled
  out); so the ladder keeps it in its database, one duplicate set at a time (``running.py``),
  and :func:`interval` folds a list of values through the same steps.
* :class:`OneSided`: one-sided capital kept the same way, for the table's pairwise tests.
* :func:`log_growth`: one-sided capital with given stakes, for the sequential test and the
  calibration tests.

Why no library: ``confseq`` (Howard, Waudby-Smith; the one package with these constructions)
is a source distribution whose C++ extension needs Boost headers and pybind11 2.6, which does
not build on Python 3.11 or later, and it pulls scipy, pandas and pytest in at run time.

Everything takes values already scaled to [0, 1]; the functions vectorise over leading axes, so
the calibration tests and ``bench/stats.py`` run thousands of simulated ladders at once.
"""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import dataclass

import numpy as np

BET_CAP = 0.75
"""The largest share of its capital a stake may lose on one value (WSR use 1/2 or 3/4)."""
GRID = 1025
"""Candidate means on [0, 1] (ends included): the interval is read from them, so it is at
most 1/1024 of the range wider on each side than the exact set not ruled out."""


def plugin_bets(y: np.ndarray, level: float) -> np.ndarray:
    """Stake ``lambda_t`` for each value, from the values before it only (WSR eq. 26-27):
    ``sqrt(2 log(1 / level) / (sigma2_{t-1} t log(1 + t)))``, with the running estimates
    ``mu_t = (1/2 + sum y) / (t + 1)`` and ``sigma2_t = (1/4 + sum (y_i - mu_i)^2) / (t + 1)``.
    ``level`` is alpha / 2 for a two-sided sequence, alpha for a one-sided test."""
    n = y.shape[-1]
    t = np.arange(1, n + 1, dtype=float)
    mu = (0.5 + np.cumsum(y, axis=-1)) / (t + 1)
    var = (0.25 + np.cumsum((y - mu) ** 2, axis=-1)) / (t + 1)
    before = np.concatenate([np.full((*y.shape[:-1], 1), 0.25), var[..., :-1]], axis=-1)
    return np.sqrt(2 * math.log(1 / level) / (before * t * np.log1p(t)))


def log_growth(y: np.ndarray, stakes: np.ndarray, m: np.ndarray | float) -> np.ndarray:
    """Log capital after each value of a bettor staking ``stakes`` (>= 0) on the mean being
    above ``m``: ``sum log(1 + stake (y - m))``; a negative stake bets on below."""
    return np.cumsum(np.log1p(stakes * (y - m)), axis=-1)


def log_capital(y: np.ndarray, bets: np.ndarray, m: np.ndarray | float) -> np.ndarray:
    """Log of the hedged capital ``K_t(m)`` after each value: half bets above ``m`` with stake
    ``min(bet, BET_CAP / m)``, half below with ``min(bet, BET_CAP / (1 - m))``."""
    m = np.asarray(m, dtype=float)
    with np.errstate(divide="ignore"):
        up = np.minimum(bets, BET_CAP / m)
        down = np.minimum(bets, BET_CAP / (1 - m))
    return np.logaddexp(log_growth(y, up, m), log_growth(y, -down, m)) - math.log(2)


def ruled_out(y: np.ndarray, bets: np.ndarray, m: np.ndarray | float, alpha: float) -> np.ndarray:
    """Whether the capital at ``m`` ever reached ``1 / alpha`` (over the last axis)."""
    return log_capital(y, bets, m).max(axis=-1) >= math.log(1 / alpha)


@functools.cache
def candidates(also: float | None = None) -> np.ndarray:
    """The fixed grid of candidate means (the ends of [0, 1] excluded), with ``also`` on it:
    built once per ``also`` and shared read-only, as a store keeps a sequence per bot and seat."""
    grid = np.linspace(0, 1, GRID)[1:-1]
    if also is not None and 0 < also < 1 and also not in grid:
        grid = np.sort(np.append(grid, also))
    grid.flags.writeable = False
    return grid


DOMINATED = 40.0
"""A lead of one half of the hedged bettor's log capital over the other's from which
``logaddexp`` of the two is the leading one to the last bit, when that one is at least 1:
``log1p(exp(-40)) < 4.3e-18``, below half a unit in the last place of any float from 1 up.
Far from the values' mean one half's capital dwarfs the other's, and there ``logaddexp``, the
dearest step of a value, is left out while more than :data:`FEW` candidates are live (the first
values of a sequence)."""


FEW = 128
"""Live candidates up to which a value's ``logaddexp`` is taken at every one of them."""


@dataclass(frozen=True)
class _Caps:
    """Per candidate ``m`` of :func:`candidates`, shared read-only: the most a stake above it
    may be, ``BET_CAP / m`` (falling with m), the most below it, ``BET_CAP / (1 - m)`` (rising),
    negated (a stake below is a negative one), and both as lists to bisect for the candidates
    whose cap is below a stake."""

    up: np.ndarray
    down: np.ndarray  # -BET_CAP / (1 - m)
    up_falling: list[float]  # -BET_CAP / m, rising
    down_rising: list[float]  # BET_CAP / (1 - m)


@functools.cache
def _caps(also: float | None) -> _Caps:
    m = candidates(also)
    up, down = BET_CAP / m, -BET_CAP / (1 - m)
    for cap in (up, down):
        cap.flags.writeable = False
    return _Caps(up, down, (-up).tolist(), (-down).tolist())


class ConfidenceSequence:
    """The two-sided confidence sequence at level ``alpha``, kept as the values come: the
    plug-in stakes' running sums (WSR eq. 26-27, as :func:`plugin_bets`) and, at every
    candidate of a fixed grid, the log capital of each half of the hedged bettor (as
    :func:`log_capital`) and the most it ever held. Folding values one at a time is the only
    way it is computed, so a state kept in a database and one folded in memory over the same
    values in the same order are equal, bit for bit. ``state``: a saved :meth:`state`.

    A candidate once ruled out stays out, so only the candidates from the first to the last
    not ruled out yet (the live ones) are folded: past them both halves are set to NaN and
    the most capital each held is kept, which is all that is read of them. After a hundred
    values the live candidates are a few percent of the grid. When every candidate is ruled
    out the last live ones stay live, so :meth:`interval` can say which of them it was least
    sure of. A state saved before this rule (no NaN) has every candidate live."""

    def __init__(self, alpha: float, also: float | None = None, state: np.ndarray | None = None):
        self.alpha = alpha
        self.threshold = math.log(1 / alpha)  # the log capital that rules a candidate out
        self.grid = candidates(also)
        self.caps = _caps(also)
        self.numerator = 2 * math.log(2 / alpha)  # of the stake (WSR eq. 26)
        size = len(self.grid)
        if state is None:
            state = np.concatenate([np.zeros(3), np.zeros(2 * size), np.full(size, -np.inf)])
        self.head = state[:3].tolist()  # values seen, their sum, sum of (y_i - mu_i)^2
        self.capital = state[3:].reshape(3, size).copy()  # rows: up, down, best
        self.up, self.down, self.best = self.capital
        live = np.flatnonzero(~np.isnan(self.up))
        self.lo, self.hi = int(live[0]), int(live[-1]) + 1  # the live candidates' slice
        self.stakes = np.empty((2, 1))  # this value's stake up and down (uncapped)

    def state(self) -> np.ndarray:
        return np.concatenate([self.head, self.capital.ravel()])

    @property
    def count(self) -> int:
        return int(self.head[0])

    def add(self, y: float) -> None:
        """Bet on ``y`` (in [0, 1]) with the stake fixed by the values before it, at the live
        candidates.

        Each step is the plain formula's, element by element (the stake ``min(bet, cap)`` read
        from where the monotone caps cross ``bet``, ``logaddexp`` left out where its result
        is the larger half exactly: :data:`DOMINATED`), so a live candidate's state is the
        same to the bit as if every candidate were folded."""
        n, total, spread = self.head
        t = n + 1
        var = (0.25 + spread) / t  # 1/4 before any value
        bet = math.sqrt(self.numerator / (var * t * math.log1p(t)))
        total += y
        spread += (y - (0.5 + total) / (t + 1)) ** 2
        self.head = [t, total, spread]
        lo, hi, caps = self.lo, self.hi, self.caps
        gap = y - self.grid[lo:hi]
        self.stakes[:, 0] = bet, -bet
        steps = np.multiply(self.stakes, gap)  # stakes times gaps, up and down
        capped = max(lo, bisect.bisect_right(caps.up_falling, -bet))  # from it on: up's cap
        if capped < hi:
            np.multiply(caps.up[capped:hi], gap[capped - lo :], out=steps[0, capped - lo :])
        capped = min(hi, bisect.bisect_left(caps.down_rising, bet))  # below it: down's cap
        if capped > lo:
            np.multiply(caps.down[lo:capped], gap[: capped - lo], out=steps[1, : capped - lo])
        np.log1p(steps, out=steps)
        halves = self.capital[:2, lo:hi]
        np.add(halves, steps, out=halves)
        if hi - lo > FEW:
            capital = _sum_of_halves(halves[0], halves[1], steps[0])
        else:  # looking for what to leave out would cost more than it saves
            capital = np.logaddexp(halves[0], halves[1], out=steps[0])
        np.subtract(capital, math.log(2), out=capital)
        best = self.best[lo:hi]
        np.maximum(best, capital, out=best)
        self._narrow(best)

    def _narrow(self, best: np.ndarray) -> None:
        """Leave out of the fold the candidates at either end of the live ones that ``best``
        (theirs) now rules out, unless every one is."""
        if best[0] < self.threshold and best[-1] < self.threshold:
            return  # both ends still in: so is every candidate between them
        inside = np.flatnonzero(best < self.threshold)
        if not inside.size:
            return
        lo, hi = self.lo + int(inside[0]), self.lo + int(inside[-1]) + 1
        for gone in (slice(self.lo, lo), slice(hi, self.hi)):
            self.up[gone] = self.down[gone] = np.nan
        self.lo, self.hi = lo, hi

    def ruled_out(self) -> np.ndarray:
        """Per candidate: whether its capital ever reached ``1 / alpha``."""
        return self.best >= math.log(1 / self.alpha)

    def excludes(self, m: float) -> bool:
        """Whether the candidate ``m`` (on the grid) is ruled out."""
        return bool(self.ruled_out()[np.searchsorted(self.grid, m)])

    def interval(self) -> tuple[float, float]:
        """The candidates not ruled out, widened outwards to the nearest ruled-out candidate
        (or the end of [0, 1]) on each side: never narrower than the set of candidates not
        ruled out, and at most one grid step wider on each side."""
        out = self.ruled_out()
        if out.all():  # a very rare path: say which of the last live ones it was least sure of
            best = float(self.grid[self.lo + int(np.argmin(self.best[self.lo : self.hi]))])
            return best, best
        inside = np.flatnonzero(~out)
        first, last = inside[0], inside[-1]
        low = float(self.grid[first - 1]) if first else 0.0
        high = float(self.grid[last + 1]) if last + 1 < len(self.grid) else 1.0
        return low, high


def _sum_of_halves(up: np.ndarray, down: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """``logaddexp`` of the halves' log capital, left out where it is the larger half
    (:data:`DOMINATED`). ``up - down`` falls with m (each step's does), so the lead is largest
    at an end: while neither end is dominated, no candidate is looked at (only the cost depends
    on this; the result is the same)."""
    if abs(up[0] - down[0]) < DOMINATED and abs(up[-1] - down[-1]) < DOMINATED:
        return np.logaddexp(up, down)
    lead = np.abs(np.subtract(up, down, out=scratch), out=scratch)
    capital = np.maximum(up, down)
    near = (lead < DOMINATED) | (capital < 1.0)
    return np.logaddexp(up, down, out=capital, where=near)


class OneSided:
    """One-sided capital betting the mean is above ``m``, kept as the values come: the stake
    is :func:`plugin_bets` at ``level``, capped at :data:`BET_CAP` of what a value could
    lose; :attr:`best` is the most log capital it ever held (as :func:`log_growth`'s running
    maximum). ``state``: a saved :meth:`state`."""

    def __init__(self, m: float, level: float, state: np.ndarray | None = None) -> None:
        self.m, self.level = m, level
        self.cap = BET_CAP / m
        self.numerator = 2 * math.log(1 / level)  # of the stake (WSR eq. 26)
        self.head = [0.0, 0.0, 0.0, 0.0, -math.inf] if state is None else state.tolist()

    def state(self) -> np.ndarray:
        return np.array(self.head)

    @property
    def best(self) -> float:
        return self.head[4]

    def add(self, y: float) -> None:
        n, total, spread, growth, best = self.head
        t = n + 1
        var = (0.25 + spread) / t
        bet = math.sqrt(self.numerator / (var * t * math.log1p(t)))
        total += y
        spread += (y - (0.5 + total) / (t + 1)) ** 2
        growth += math.log1p(min(bet, self.cap) * (y - self.m))
        self.head = [t, total, spread, growth, max(best, growth)]


def interval(y: np.ndarray, alpha: float, also: float | None = None) -> tuple[float, float]:
    """The (1 - alpha) confidence sequence of the mean of ``y`` (in [0, 1], one dimension)
    after its last value, read from the grid (:class:`ConfidenceSequence`); ``also`` is put on
    the grid, so whether it is inside agrees with the sequence's test of it exactly."""
    sequence = ConfidenceSequence(alpha, also)
    for value in y:
        sequence.add(float(value))
    return sequence.interval()
