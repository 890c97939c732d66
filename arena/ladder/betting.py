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
* :func:`interval`: the confidence sequence at the last value, found on a grid and refined by
  bisection, always widened outwards (never narrower than the set of candidates not ruled out).
* :func:`log_growth`: one-sided capital with given stakes, for the sequential test and the
  ladder table's pairwise tests.

Why no library: ``confseq`` (Howard, Waudby-Smith; the one package with these constructions)
is a source distribution whose C++ extension needs Boost headers and pybind11 2.6, which does
not build on Python 3.11 or later, and it pulls scipy, pandas and pytest in at run time.

Everything takes values already scaled to [0, 1] and vectorises over leading axes, so the
calibration tests and ``bench/stats.py`` run thousands of simulated ladders at once.
"""

from __future__ import annotations

import math

import numpy as np

BET_CAP = 0.75
"""The largest share of its capital a stake may lose on one value (WSR use 1/2 or 3/4)."""
GRID = 257
BISECTIONS = 30


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


def interval(y: np.ndarray, alpha: float, also: float | None = None) -> tuple[float, float]:
    """The (1 - alpha) confidence sequence of the mean of ``y`` (in [0, 1], one dimension) after
    its last value: the running intersection, as candidates once ruled out stay out. ``also``
    is put on the grid, so whether it is inside agrees with :func:`ruled_out` exactly."""
    bets = plugin_bets(y, alpha / 2)
    grid = np.linspace(0, 1, GRID)[1:-1]
    if also is not None and 0 < also < 1:
        grid = np.unique(np.append(grid, also))
    out = ruled_out(y, bets, grid[:, None], alpha)
    if out.all():  # every candidate ruled out: a very rare path; say where it was least sure
        best = grid[np.argmin(log_capital(y, bets, grid[:, None]).max(axis=-1))]
        return float(best), float(best)
    inside = np.flatnonzero(~out)
    first, last = inside[0], inside[-1]
    low = _edge(y, bets, alpha, grid[first - 1] if first else 0.0, grid[first])
    high = _edge(y, bets, alpha, grid[last + 1] if last + 1 < len(grid) else 1.0, grid[last])
    return low, high


def _edge(y: np.ndarray, bets: np.ndarray, alpha: float, outside: float, inside: float) -> float:
    """Bisection between a candidate ruled out (or the end of [0, 1]) and one inside; returns
    the outer end of the last bracket, so the interval is never too narrow."""
    if outside in (0.0, 1.0):
        return outside
    for _ in range(BISECTIONS):
        mid = (outside + inside) / 2
        if ruled_out(y, bets, mid, alpha):
            outside = mid
        else:
            inside = mid
    return outside
