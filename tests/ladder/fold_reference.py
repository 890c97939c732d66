"""The fold of one value as ``arena.ladder.stats`` and ``betting`` computed it before it was
made cheaper (``Fraction`` sums, whole-grid numpy steps): the oracle the faster fold must equal
bit for bit (``test_fold_exact.py``), and the "before" of ``bench/fold.py``."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from arena.ladder.betting import BET_CAP, candidates


class Moments:
    """Count and ``Fraction`` sums of the values, their squares and cubes."""

    def __init__(self) -> None:
        self.count = 0
        self.sums = [Fraction(0)] * 3

    def text(self) -> str:
        return " ".join([str(self.count), *map(str, self.sums)])

    def add(self, value: float) -> None:
        x = Fraction(value)
        self.count += 1
        self.sums = [self.sums[0] + x, self.sums[1] + x * x, self.sums[2] + x * x * x]


class ConfidenceSequence:
    """The hedged bettor's state on the whole grid, every step over every candidate."""

    def __init__(
        self, alpha: float, also: float | None = None, state: np.ndarray | None = None
    ) -> None:
        self.alpha = alpha
        self.grid = candidates(also)
        self.up_cap, self.down_cap = BET_CAP / self.grid, BET_CAP / (1 - self.grid)
        size = len(self.grid)
        if state is None:
            state = np.concatenate([np.zeros(3), np.zeros(2 * size), np.full(size, -np.inf)])
        self.head = state[:3].copy()
        self.up, self.down, self.best = state[3:].reshape(3, size).copy()

    def state(self) -> np.ndarray:
        return np.concatenate([self.head, self.up, self.down, self.best])

    def add(self, y: float) -> None:
        n, total, spread = self.head
        t = n + 1
        var = (0.25 + spread) / t
        bet = math.sqrt(2 * math.log(2 / self.alpha) / (var * t * math.log1p(t)))
        total += y
        spread += (y - (0.5 + total) / (t + 1)) ** 2
        self.head[:] = (t, total, spread)
        gap = y - self.grid
        self.up += np.log1p(np.minimum(bet, self.up_cap) * gap)
        self.down += np.log1p(-np.minimum(bet, self.down_cap) * gap)
        capital = np.logaddexp(self.up, self.down) - math.log(2)
        np.maximum(self.best, capital, out=self.best)


class OneSided:
    """One-sided capital above ``m``, its state a numpy array of numpy scalars."""

    def __init__(self, m: float, level: float) -> None:
        self.m, self.level = m, level
        self.head = np.array([0.0, 0.0, 0.0, 0.0, -np.inf])

    def state(self) -> np.ndarray:
        return self.head.copy()

    def add(self, y: float) -> None:
        n, total, spread, growth, best = self.head
        t = n + 1
        var = (0.25 + spread) / t
        bet = math.sqrt(2 * math.log(1 / self.level) / (var * t * math.log1p(t)))
        total += y
        spread += (y - (0.5 + total) / (t + 1)) ** 2
        growth += math.log1p(min(bet, BET_CAP / self.m) * (y - self.m))
        self.head[:] = (t, total, spread, growth, max(best, growth))


def moments_figures(moments: Moments) -> tuple[float | None, float | None, float | None]:
    """Mean, sample sd and skewness from the ``Fraction`` sums, as ``stats.Moments`` reads them."""
    n = moments.count
    s1, s2, s3 = moments.sums
    mean = float(s1) / n if n else None
    sd = math.sqrt(float((s2 - s1 * s1 / n) / (n - 1))) if n >= 2 else None
    skew = None
    if n >= 3 and (m2 := (s2 - s1 * s1 / n) / n) != 0:
        skew = float((s3 - 3 * s1 * s2 / n + 2 * s1**3 / n**2) / n) / float(m2) ** 1.5
    return mean, sd, skew
