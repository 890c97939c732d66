"""The cheaper fold of one per-set value equals, bit for bit, the fold it replaced
(``fold_reference.py``): ``Moments`` texts and figures, the one-sided bettor's states, and the
confidence sequence's state at every candidate still folded (the others are ruled out in both,
so both give the same interval at every step)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from arena.ladder import betting, stats
from tests.ladder import fold_reference as reference

RNG_SEED = 20261127


def _values(kind: str, n: int, rng: np.random.Generator) -> list[float]:
    """Per-set values of one kind: random, whole, tiny, huge, negative, mixed."""
    draws = {
        "random": lambda: rng.normal(0.0, 1.0, n),
        "whole": lambda: rng.integers(-50, 50, n).astype(float),
        "tiny": lambda: rng.choice([5e-324, -5e-324, 2.2e-308, 1e-300, -3e-310, 0.0], n),
        "huge": lambda: rng.choice([1e300, -1.7e308, 3.5e200, 2.0**1000, -1.0], n),
        "negative": lambda: -rng.exponential(3.0, n),
        "mixed": lambda: rng.normal(0.0, 1.0, n) * 10.0 ** rng.integers(-300, 300, n),
    }
    return [float(v) for v in draws[kind]()]


def _outcome(figures: Callable[[], tuple[float | None, ...]]) -> str:
    """The figures to the bit, or the error reading them raised (a float overflows or
    underflows to no spread with huge and tiny values, as it did before)."""
    try:
        return repr([x.hex() if x is not None else None for x in figures()])
    except (OverflowError, ZeroDivisionError) as error:
        return type(error).__name__


@pytest.mark.parametrize("kind", ["random", "whole", "tiny", "huge", "negative", "mixed"])
def test_moments_give_the_fraction_sums_texts_and_figures(kind: str) -> None:
    rng = np.random.default_rng([RNG_SEED, len(kind)])
    values = _values(kind, 200, rng)
    fast, slow = stats.Moments(), reference.Moments()
    for i, value in enumerate(values):
        fast.add(value)
        slow.add(value)
        assert fast.text() == slow.text()
        assert fast.sums == slow.sums
        if i % 17 == 0 or i == len(values) - 1:
            assert _outcome(lambda: (fast.mean, fast.sd, fast.skew)) == _outcome(
                lambda: reference.moments_figures(slow)
            )
    resumed = stats.Moments(slow.text())  # a text saved before, read and added to
    for value in values[:50]:
        resumed.add(value)
        slow.add(value)
    assert resumed.text() == slow.text() and resumed.count == len(values) + 50


def test_moments_read_todays_texts_and_refuse_sums_no_float_makes() -> None:
    saved = "3 -11/8 149/64 -1721/512"  # -1.5, 0.25 and -0.125 as the Fraction fold saves them
    before = reference.Moments()
    for value in (-1.5, 0.25, -0.125):
        before.add(value)
    assert before.text() == saved
    moments = stats.Moments(saved)
    assert moments.text() == saved and moments.count == 3
    assert (moments.mean, moments.sd, moments.skew) == reference.moments_figures(before)
    assert stats.Moments().text() == "0 0 0 0"
    with pytest.raises(ValueError, match="1/3 is not a sum of floats"):
        stats.Moments("1 1/3 1/9 1/27")


def _unit_values(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Values in [0, 1] of a few data models."""
    draws = {
        "uniform": lambda: rng.uniform(0, 1, n),
        "beta": lambda: rng.beta(2, 5, n),
        "narrow": lambda: np.clip(rng.normal(0.5, 0.05, n), 0, 1),
        "coin": lambda: (rng.uniform(size=n) < 0.55).astype(float),
        "three": lambda: rng.choice([0.0, 0.5, 1.0], n, p=[0.3, 0.3, 0.4]),
        "jackpots": lambda: np.where(rng.uniform(size=n) < 0.05, 1.0, rng.uniform(0.4, 0.5, n)),
        "ends": lambda: rng.choice([0.0, 1.0], n),
        "top": lambda: np.ones(n),
    }
    return draws[kind]()


def _same(fast: np.ndarray, slow: np.ndarray) -> bool:
    return bool(np.array_equal(fast, slow)) and fast.tobytes() == slow.tobytes()


def _agrees(
    fast: betting.ConfidenceSequence, slow: reference.ConfidenceSequence, also: float | None
) -> None:
    """The fold of the live candidates against the whole grid's: the same head, the same
    state to the bit at every live candidate, every other one ruled out in both (its halves
    NaN, its most capital kept), so the same candidates ruled out, interval and verdict on
    ``also``; and the live ones are those from the first to the last not ruled out (all of
    the last ones when none is left)."""
    state, whole = fast.state(), slow.state()
    assert _same(state[:3], whole[:3])
    size = len(fast.grid)
    mine, theirs = state[3:].reshape(3, size), whole[3:].reshape(3, size)
    live = slice(fast.lo, fast.hi)
    assert _same(mine[:, live], theirs[:, live])
    dead = np.ones(size, dtype=bool)
    dead[live] = False
    assert np.isnan(mine[:2, dead]).all() and (mine[2, dead] >= fast.threshold).all()
    out = fast.ruled_out()
    assert np.array_equal(out, slow.best >= fast.threshold)
    if not out.all():
        inside = np.flatnonzero(~out)
        assert (fast.lo, fast.hi) == (inside[0], inside[-1] + 1)
        whole_grid = betting.ConfidenceSequence(fast.alpha, also, whole)  # every one live
        assert fast.interval() == whole_grid.interval()


@pytest.mark.parametrize("kind", ["uniform", "beta", "narrow", "coin", "three", "jackpots",
                                  "ends", "top"])  # fmt: skip
def test_confidence_sequence_states_equal_the_whole_grid_fold(kind: str) -> None:
    """Every step's state, over alphas and extra candidates, with caps in force (the first
    values' stakes exceed them) and logaddexp skipped on most of the grid (checked)."""
    rng = np.random.default_rng([RNG_SEED, len(kind), ord(kind[0])])
    for alpha, also in [(0.05, 0.5), (0.05, None), (0.01, 1 / 3), (0.3, 0.123456789)]:
        y = _unit_values(kind, 400, rng)
        fast = betting.ConfidenceSequence(alpha, also)
        slow = reference.ConfidenceSequence(alpha, also)
        for value in y:
            fast.add(float(value))
            slow.add(float(value))
            _agrees(fast, slow, also)
        resumed = betting.ConfidenceSequence(alpha, also, state=fast.state())
        for value in y[:100]:
            resumed.add(float(value))
            slow.add(float(value))
        _agrees(resumed, slow, also)
        lead, top = np.abs(slow.up - slow.down), np.maximum(slow.up, slow.down)
        dominated = (lead >= betting.DOMINATED) & (top >= 1.0)
        assert dominated.mean() > 0.5  # the skip was exercised (by the whole grid's fold)


def test_logaddexp_is_left_out_only_where_its_result_is_the_larger_half() -> None:
    """States on the edge of :data:`betting.DOMINATED`: after a million values (stakes of
    about 0.003), halves 39.5 to 41 apart, the larger within 0.02 of 0 (where the smaller
    still moves the last bit of their logaddexp, and of the capital, at a few candidates in a
    hundred) or of 1."""
    rng = np.random.default_rng(RNG_SEED)
    grid = betting.candidates(0.5)
    for _ in range(20):
        larger = rng.uniform(-0.02, 0.02, grid.size) + rng.choice([0.0, 1.0], grid.size)
        smaller = larger - rng.uniform(39.5, 41, grid.size)
        up_leads = rng.uniform(size=grid.size) < 0.5
        halves = np.where(up_leads, larger, smaller), np.where(up_leads, smaller, larger)
        best = np.maximum(*halves) - np.log(2) - rng.uniform(-0.01, 0.01, grid.size)
        n = float(rng.integers(500_000, 2_000_000))
        state = np.concatenate([[n, n * rng.uniform(0.1, 0.9), n * 0.05], *halves, best])
        fast = betting.ConfidenceSequence(0.05, 0.5, state=state)
        slow = reference.ConfidenceSequence(0.05, 0.5, state=state)
        y = float(rng.uniform())
        fast.add(y)
        slow.add(y)
        assert _same(fast.state(), slow.state())


def test_running_keeps_the_states_of_the_whole_grid_fold() -> None:
    """A table column (``stats.Running``: moments, and the sequence with 0 on its grid)."""
    rng = np.random.default_rng(RNG_SEED)
    bounds = stats.Bounds(-3.0, 3.0)
    running = stats.Running(bounds)
    moments, sequence = reference.Moments(), reference.ConfidenceSequence(1 - stats.CONFIDENCE, 0.5)
    for value in np.clip(rng.normal(0.4, 1.0, 300), -3, 3):
        running.add(float(value))
        moments.add(float(value))
        sequence.add(bounds.to_scale(float(value)))
    text, _ = running.state()
    assert text == moments.text()
    _agrees(running.sequence, sequence, 0.5)


@pytest.mark.parametrize("level", [stats.ALPHA / 2, 0.2])
def test_one_sided_states_equal_the_numpy_scalar_fold(level: float) -> None:
    rng = np.random.default_rng([RNG_SEED, int(level * 1000)])
    for m, y in [(0.5, rng.choice([0.0, 0.5, 1.0], 500)), (0.3, rng.uniform(0, 1, 500))]:
        fast, slow = betting.OneSided(m, level), reference.OneSided(m, level)
        for value in y:
            fast.add(float(value))
            slow.add(float(value))
            assert _same(fast.state(), slow.state())
        assert fast.best == float(slow.head[4])
        resumed = betting.OneSided(m, level, fast.state())
        resumed.add(0.25)
        slow.add(0.25)
        assert _same(resumed.state(), slow.state())


def test_with_every_candidate_ruled_out_the_interval_is_one_of_the_last_live_ones() -> None:
    """The rare path: every candidate ruled out. The last live ones (folded to the end) say
    where the sequence was least sure, not a candidate ruled out long ago, whose most capital
    stopped being kept up to date then; a state saved before the live rule has every
    candidate live."""
    alpha, size = 0.05, len(betting.candidates(0.5))
    threshold = math.log(1 / alpha)
    halves = np.full((2, size), np.nan)
    halves[:, 500:510] = 4.0
    best = np.full(size, threshold + 0.1)  # ruled out early, by little
    best[500:510] = threshold + np.linspace(2.0, 1.0, 10)  # the last live: least sure at 509
    state = np.concatenate([[300.0, 150.0, 20.0], halves.ravel(), best])
    sequence = betting.ConfidenceSequence(alpha, 0.5, state)
    assert (sequence.lo, sequence.hi) == (500, 510) and sequence.ruled_out().all()
    grid = betting.candidates(0.5)
    assert sequence.interval() == (grid[509], grid[509])
    state[3 : 3 + 2 * size] = 4.0  # saved before the rule: every candidate live
    assert betting.ConfidenceSequence(alpha, 0.5, state).interval() == (grid[0], grid[0])
