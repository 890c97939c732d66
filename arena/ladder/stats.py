"""Pure: intervals, verdicts and the sequential test over duplicate sets, valid at every look.

The unit of every statistic is the **duplicate set** (one deal played once per seat rotation):
deal and seat luck cancel inside a set, so per-set values are independent given the bots.
Everything here works on per-set values in schedule order (a bot's relative score, or A's
minus B's) and reads no clock, file or random source.

Every statement is **anytime-valid** and holds **for any distribution of scores inside the
game's score range** (:meth:`arena.games.base.Game.score_range`): skewed, discrete or win/loss.
The intervals are confidence sequences by betting (:mod:`arena.ladder.betting`), so a verdict
keeps its 5 % error rate however often anyone looks (after every set, on a live page) and
whenever they stop. The price is width: wider than a fixed-sample interval, and wider the
looser the game's range is against its typical scores (a rare huge score cannot be ruled out
until enough sets have been played).

* :func:`estimate`: the mean of per-set values with its 95 % confidence sequence.
* Sets won: the same on the sign of A's per-set lead (+1, 0, -1), whose range is always
  [-1, 1]: who finishes ahead in more sets, a question a rare big win cannot fool.
* :func:`verdict`: one line on A against B, with how many more sets would resolve it.
* :func:`sprt`: the sequential test of ``arena test``: two e-processes, one against each
  hypothesis, error rates alpha and beta guaranteed by Ville's inequality.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

import numpy as np

from arena.ladder import betting

CONFIDENCE = 0.95
ALPHA = 1 - CONFIDENCE
SKEWED = 1.0
"""Per-set skewness beyond which the mean is said to be driven by rare large sets."""
MAX_MORE = 100_000
"""Sets beyond which "how many more sets" stops counting."""


class OutOfRange(ValueError):
    """A per-set value outside the range the game's scores allow: the game broke its contract."""


@dataclass(frozen=True)
class Bounds:
    """The range per-set values can take: every guarantee here rests on it."""

    low: float
    high: float

    def scaled(
        self, values: Sequence[float] | np.ndarray, what: str = "per-set value"
    ) -> np.ndarray:
        """``values`` mapped onto [0, 1]; raises OutOfRange for any value outside."""
        x = np.asarray(values, dtype=float)
        if x.size and (x.min() < self.low or x.max() > self.high):
            bad = x[(x < self.low) | (x > self.high)][0]
            raise OutOfRange(
                f"{what} {bad:g} is outside [{self.low:g}, {self.high:g}], the range the game's "
                "score range allows (a bug in the game's score_range)"
            )
        return (x - self.low) / (self.high - self.low)

    def to_scale(self, value: float) -> float:
        return (value - self.low) / (self.high - self.low)

    def from_scale(self, y: float) -> float:
        return self.low + y * (self.high - self.low)


SIGNS = Bounds(-1.0, 1.0)


def difference_bounds(score_range: tuple[float, float]) -> Bounds:
    """A's per-set relative score minus B's: each match's difference is A's score minus B's."""
    spread = score_range[1] - score_range[0]
    return Bounds(-spread, spread)


def relative_bounds(score_range: tuple[float, float], seats: int) -> Bounds:
    """A seat's score minus its table's mean: at most (k - 1) / k of the range either way."""
    reach = (score_range[1] - score_range[0]) * (seats - 1) / seats
    return Bounds(-reach, reach)


def signs(values: Sequence[float]) -> list[float]:
    """+1 for a set A finished ahead in, -1 behind, 0 level (values are exact: see ratings)."""
    return [1.0 if v > 0 else -1.0 if v < 0 else 0.0 for v in values]


# -- estimates ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """The mean of per-set values, their spread and skewness, and the 95 % confidence sequence
    at this many sets (None with no set). ``zero_out`` says the sequence has ruled 0 out."""

    sets: int
    mean: float | None
    sd: float | None
    ci: tuple[float, float] | None
    skew: float | None = None
    zero_out: bool = False

    @property
    def skewed(self) -> bool:
        return self.skew is not None and abs(self.skew) > SKEWED

    def as_dict(self) -> dict[str, object]:
        return {
            "sets": self.sets,
            "mean": self.mean,
            "sd": self.sd,
            "ci": list(self.ci) if self.ci else None,
            "skewness": self.skew,
        }


NO_SETS = Estimate(0, None, None, None)


class Moments:
    """Count and exact sums of the values, their squares and cubes, so the mean, spread and
    skewness do not depend on the order values were added, and a database's copy
    (``running.py``) equals a fold in memory. ``text``: a saved :meth:`text`.

    A value is a float, so each sum is a dyadic rational: it is kept as an integer numerator
    over a power of two (shifts and integer adds: a tenth of the cost of adding fractions),
    and read as a ``Fraction`` only for a figure or the saved text."""

    def __init__(self, text: str = "0 0 0 0") -> None:
        count, *sums = text.split()
        self.count = int(count)
        self._sums = [_dyadic(Fraction(x), text) for x in sums]

    @property
    def sums(self) -> list[Fraction]:
        """The sums of the values, their squares and cubes."""
        return [Fraction(numerator, 1 << shift) for numerator, shift in self._sums]

    def text(self) -> str:
        """The count and the sums as ``Fraction``'s ``str`` writes them (lowest terms)."""
        return " ".join([str(self.count), *(_fraction_text(*s) for s in self._sums)])

    def add(self, value: float) -> None:
        numerator, denominator = float(value).as_integer_ratio()
        shift = denominator.bit_length() - 1
        square = numerator * numerator
        s1, s2, s3 = self._sums
        self.count += 1
        self._sums = [_plus(s1, numerator, shift), _plus(s2, square, 2 * shift),
                      _plus(s3, square * numerator, 3 * shift)]  # fmt: skip

    @property
    def mean(self) -> float | None:
        return float(self.sums[0]) / self.count if self.count else None

    @property
    def sd(self) -> float | None:
        """The sample standard deviation (None below 2 values)."""
        if self.count < 2:
            return None
        s1, s2, _ = self.sums
        return math.sqrt(float((s2 - s1 * s1 / self.count) / (self.count - 1)))

    @property
    def skew(self) -> float | None:
        """Sample skewness ``mean((x - mean)^3) / sd^3`` (None below 3 values or with no
        spread), computed exactly before the last rounding."""
        n = self.count
        if n < 3:
            return None
        s1, s2, s3 = self.sums
        m2 = (s2 - s1 * s1 / n) / n
        if m2 == 0:
            return None
        m3 = (s3 - 3 * s1 * s2 / n + 2 * s1**3 / n**2) / n
        return float(m3) / float(m2) ** 1.5


def _plus(total: tuple[int, int], numerator: int, shift: int) -> tuple[int, int]:
    """``total + numerator / 2**shift``, both numerators over a power of two."""
    kept, kept_shift = total
    if shift > kept_shift:
        return (kept << (shift - kept_shift)) + numerator, shift
    return kept + (numerator << (kept_shift - shift)), kept_shift


def _dyadic(x: Fraction, text: str) -> tuple[int, int]:
    """``x`` as a numerator over a power of two (ValueError if its denominator is not one:
    no sum of floats has it)."""
    shift = x.denominator.bit_length() - 1
    if x.denominator != 1 << shift:
        raise ValueError(f"moments {text!r}: {x} is not a sum of floats")
    return x.numerator, shift


def _fraction_text(numerator: int, shift: int) -> str:
    """``str(Fraction(numerator, 2**shift))``: the power of two it shares cancelled."""
    common = min(shift, (numerator & -numerator).bit_length() - 1) if numerator else shift
    numerator, shift = numerator >> common, shift - common
    return f"{numerator}/{1 << shift}" if shift else str(numerator)


def skewness(values: Sequence[float]) -> float | None:
    """Sample skewness ``mean((x - mean)^3) / sd^3`` (None below 3 values or with no spread)."""
    moments = Moments()
    for value in values:
        moments.add(value)
    return moments.skew


class Running:
    """One sequence of per-set values as it grows: its moments and its confidence sequence
    (:class:`arena.ladder.betting.ConfidenceSequence` on the scaled values, 0 on the grid).
    The table's columns are kept this way, set by set (``running.py``); :func:`estimate`
    folds a list of values through the same steps."""

    def __init__(
        self,
        bounds: Bounds,
        confidence: float = CONFIDENCE,
        state: tuple[str, np.ndarray] | None = None,
    ) -> None:
        self.bounds = bounds
        self.moments = Moments(state[0]) if state else Moments()
        zero = bounds.to_scale(0.0)
        saved = state[1] if state else None
        self.sequence = betting.ConfidenceSequence(1 - confidence, also=zero, state=saved)

    def state(self) -> tuple[str, np.ndarray]:
        return self.moments.text(), self.sequence.state()

    def add(self, value: float) -> None:
        """Add one per-set value (OutOfRange outside the bounds)."""
        if not self.bounds.low <= value <= self.bounds.high:
            self.bounds.scaled([value])  # raises, saying which value and range
        self.sequence.add(self.bounds.to_scale(value))
        self.moments.add(value)

    def estimate(self) -> Estimate:
        if not self.moments.count:
            return NO_SETS
        low, high = self.sequence.interval()
        return Estimate(
            sets=self.moments.count,
            mean=self.moments.mean,
            sd=self.moments.sd,
            ci=(float(self.bounds.from_scale(low)), float(self.bounds.from_scale(high))),
            skew=self.moments.skew,
            zero_out=self.sequence.excludes(self.bounds.to_scale(0.0)),
        )


def estimate(values: Sequence[float], bounds: Bounds, confidence: float = CONFIDENCE) -> Estimate:
    """Mean of ``values`` (in schedule order) with its anytime-valid confidence sequence."""
    bounds.scaled(values)  # the first value out of range named, before any is added
    running = Running(bounds, confidence)
    for value in values:
        running.add(value)
    return running.estimate()


def fewest_sets(bounds: Bounds, confidence: float = CONFIDENCE) -> int:
    """The fewest sets after which any results at all could rule 0 out: every set at the top of
    the range. Below it no verdict is possible, whatever is played."""
    y = np.full(2000, bounds.to_scale(bounds.high))
    bets = betting.plugin_bets(y, (1 - confidence) / 2)
    capital = betting.log_capital(y, bets, bounds.to_scale(0.0))
    above = np.flatnonzero(capital >= math.log(1 / (1 - confidence)))
    return int(above[0]) + 1 if above.size else len(y) + 1


def sets_needed(values: Sequence[float], bounds: Bounds, target: float) -> int | None:
    """About how many sets in all the sequence needs to rule 0 out if the coming sets were like
    those so far, moved to mean ``target`` (kept inside the range), repeated in order; None
    beyond :data:`MAX_MORE`. An estimate: the sets to come will differ."""
    x = np.asarray(values, dtype=float)
    shifted = np.clip(x - x.mean() + target, bounds.low, bounds.high)
    y = bounds.scaled(np.concatenate([x, np.resize(shifted, MAX_MORE)]))
    log = betting.log_capital(y, betting.plugin_bets(y, ALPHA / 2), bounds.to_scale(0.0))
    above = np.flatnonzero(log >= math.log(1 / ALPHA))
    return int(above[0]) + 1 if above.size else None


# -- verdicts ----------------------------------------------------------------------------------


def _stronger(est: Estimate) -> int:
    """+1 when the sequence put the mean above 0, -1 below, 0 when it has not ruled 0 out."""
    if not est.zero_out or est.mean is None:
        return 0
    return 1 if est.mean > 0 else -1


def verdict(
    values: Sequence[float],
    bounds: Bounds,
    a: str,
    b: str,
    estimates: tuple[Estimate, Estimate] | None = None,
) -> str:
    """One line on A minus B (per-set values in schedule order): who has the higher mean and
    who finishes ahead in more sets (each at 95 %, anytime), or what it would take to tell;
    ``estimates``: those of the values and of their signs, when already computed."""
    if not values:
        return "not distinguishable yet: no duplicate set both played"
    mean, won = estimates or (estimate(values, bounds), estimate(signs(values), SIGNS))
    names = {1: (a, b), -1: (b, a)}
    by_mean, by_sets = _stronger(mean), _stronger(won)
    if by_mean and by_mean == by_sets:
        x, y = names[by_mean]
        return f"{x} is stronger: a higher mean score and ahead in more sets (95%, anytime)"
    if by_mean and by_sets:
        x, y = names[by_mean]
        return (
            f"{x} has the higher mean score but {y} finishes ahead in more sets (each 95%, "
            f"anytime): {x}'s lead rests on a few large sets"
        )
    if by_mean:
        x, y = names[by_mean]
        return (
            f"{x} is stronger by mean score (95%, anytime); finishing ahead in more sets is not "
            "established yet"
        )
    lead = ""
    if by_sets:
        x, y = names[by_sets]
        lead = f"{x} finishes ahead of {y} in more sets (95%, anytime); "
    fewest = fewest_sets(bounds)
    if len(values) < fewest:
        return (
            f"{lead}mean score not distinguishable yet: no results of fewer than {fewest} sets "
            f"can decide it in this game's score range [{bounds.low:g}, {bounds.high:g}]"
        )
    assert mean.ci is not None and mean.mean is not None
    target = max(abs(mean.mean), (mean.ci[1] - mean.ci[0]) / 8)
    total = sets_needed(values, bounds, target if mean.mean >= 0 else -target)
    more = f"about {total - len(values)}" if total else f"more than {MAX_MORE}"
    return (
        f"{lead}mean score not distinguishable yet: {more} more duplicate sets would resolve "
        f"a difference of {target:.2g} if the sets to come were like these"
    )


def skew_warning(est: Estimate) -> str | None:
    """A note when the per-set values are strongly skewed: the mean then rests on rare sets."""
    if not est.skewed:
        return None
    return (
        f"per-set values are skewed (skewness {est.skew:+.1f}): the mean rests on a few large "
        "sets; the sets-won line says who finishes ahead in more of them"
    )


# -- many bots: which orders are established ---------------------------------------------------


def pair_capital(level: float) -> betting.OneSided:
    """The one-sided bettor behind :func:`p_above` on sets won (signs scaled to [0, 1])."""
    return betting.OneSided(SIGNS.to_scale(0.0), level)


def p_above(values: Sequence[float], bounds: Bounds, level: float) -> float:
    """Anytime p-value of "the mean is at most 0": one over the most capital a one-sided
    bettor on "above 0" ever held (stakes tuned for ``level``), capped at 1. Valid at any look
    (Ville's inequality), so a Holm procedure over these keeps its family-wise rate at every
    look (a smaller p-value can only add rejections, and the running maximum is taken)."""
    bettor = betting.OneSided(bounds.to_scale(0.0), level)
    for y in bounds.scaled(values):
        bettor.add(float(y))
    return p_value(bettor.best)


def p_value(best: float) -> float:
    """The anytime p-value of a bettor whose log capital reached at most ``best``."""
    return min(1.0, math.exp(-best)) if best > 0 else 1.0


def holm(p_values: Mapping[tuple[str, str], float], alpha: float = ALPHA) -> set[tuple[str, str]]:
    """The hypotheses Holm's step-down rejects at family-wise error rate ``alpha`` (ties in
    p-value broken by key, so the result does not depend on dict order)."""
    ordered = sorted(p_values.items(), key=lambda kv: (kv[1], kv[0]))
    rejected = set()
    for rank, (key, p) in enumerate(ordered):
        if p > alpha / (len(ordered) - rank):
            break
        rejected.add(key)
    return rejected


# -- the sequential test -----------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SprtSettings:
    """H0: mean per-set difference <= d0; H1: >= d1; error rates alpha (H1 accepted when H0
    holds) and beta (H0 accepted when H1 holds); ``bounds``: the range per-set differences can
    take (:func:`difference_bounds` of the game's score range)."""

    alpha: float = 0.05
    beta: float = 0.05
    d0: float = 0.0
    d1: float = 1.0
    bounds: Bounds

    def check(self) -> None:
        """Raise ValueError naming the setting that cannot work."""
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, got {getattr(self, name)}")
        if not self.d1 > self.d0:
            raise ValueError(f"d1 must be greater than d0, got d0={self.d0}, d1={self.d1}")
        low, high = self.bounds.low, self.bounds.high
        if not (low < self.d0 and self.d1 < high):
            raise ValueError(
                f"d0 and d1 must lie inside ({low:g}, {high:g}), the per-set differences this "
                f"game's scores allow; got d0={self.d0:g}, d1={self.d1:g}"
            )

    @property
    def thresholds(self) -> tuple[float, float]:
        """Log capital at which H0 is accepted (the bettor against H1) and H1 (against H0)."""
        return math.log(1 / self.beta), math.log(1 / self.alpha)


@dataclass(frozen=True)
class SprtState:
    """Where a sequential test stands after ``sets`` sets; ``decision`` is "H0", "H1" or None.
    ``for_h1`` is the log capital of the bettor against H0 (H1 is accepted when it reaches
    ``h1_at``), ``for_h0`` that of the bettor against H1 (H0 at ``h0_at``)."""

    sets: int
    for_h1: float
    for_h0: float
    h1_at: float
    h0_at: float
    decision: str | None
    estimate: Estimate

    @property
    def progress(self) -> float:
        """From 0 (H0 accepted) to 1 (H1 accepted), 1/2 while the evidence is even."""
        h1, h0 = max(0.0, self.for_h1) / self.h1_at, max(0.0, self.for_h0) / self.h0_at
        return min(1.0, max(0.0, 0.5 + (h1 - h0) / 2))

    def as_dict(self) -> dict[str, object]:
        return {
            "sets": self.sets,
            "log_capital_for_h1": self.for_h1,
            "log_capital_for_h0": self.for_h0,
            "h1_at": self.h1_at,
            "h0_at": self.h0_at,
            "decision": self.decision,
            "estimate": self.estimate.as_dict(),
        }


def evidence(values: Sequence[float], settings: SprtSettings) -> tuple[np.ndarray, np.ndarray]:
    """Log capital, after each set, of a bettor against H0 and of one against H1.

    Against H0 (mean <= d0), each set's stake on ``x - d0`` is the Kelly stake
    ``e / (v + e^2)`` for an edge ``e``, the larger of ``d1 - d0`` and the running mean (one
    prior set at d1) minus d0, with ``v`` the running variance (one prior set at the range's
    largest variance), capped so a set at the bottom of the range keeps a quarter of the
    capital. The capital is a nonnegative supermartingale whenever H0 holds, so it ever reaches
    ``1 / alpha`` with probability at most alpha (Ville's inequality); against H1 in mirror.
    Works on many sequences at once (leading axes)."""
    s = settings
    x = np.asarray(values, dtype=float)
    width = s.bounds.high - s.bounds.low
    step = s.d1 - s.d0
    t = np.arange(1, x.shape[-1] + 1, dtype=float)
    for_h1 = _kelly_growth(x, t, s.d1, width, step, s.d0, s.d0 - s.bounds.low)
    for_h0 = _kelly_growth(-x, t, -s.d0, width, step, -s.d1, s.bounds.high - s.d1)
    return for_h1, for_h0


def _kelly_growth(
    x: np.ndarray, t: np.ndarray, prior: float, width: float, step: float, null: float, room: float
) -> np.ndarray:
    """Log capital of betting that the mean of ``x`` is above ``null`` (see :func:`evidence`);
    ``room`` is how far below ``null`` a value can fall."""
    shape = (*x.shape[:-1], 1)
    mean = (prior + np.cumsum(x, axis=-1)) / (t + 1)
    mean_before = np.concatenate([np.full(shape, prior), mean[..., :-1]], axis=-1)
    var = ((width / 2) ** 2 + np.cumsum((x - mean_before) ** 2, axis=-1)) / (t + 1)
    var_before = np.concatenate([np.full(shape, (width / 2) ** 2), var[..., :-1]], axis=-1)
    edge = np.maximum(step, mean_before - null)
    stakes = np.minimum(edge / (var_before + edge**2), betting.BET_CAP / room)
    return betting.log_growth(x, stakes, null)


def sprt(values: Sequence[float], settings: SprtSettings) -> SprtState:
    """Walk the per-set values in order and stop at the first threshold reached.

    Values after the decision are ignored, so sets played while it was reached (in flight on
    other workers) never change it, and a resumed test reaches the same one. Should both
    bettors reach theirs at the same set, the one further past its threshold decides.
    """
    h0_at, h1_at = settings.thresholds
    if not values:
        return SprtState(0, 0.0, 0.0, h1_at, h0_at, None, NO_SETS)
    for_h1, for_h0 = evidence(values, settings)
    over = (for_h1 - h1_at >= 0) | (for_h0 - h0_at >= 0)
    n = int(np.argmax(over)) + 1 if over.any() else len(values)
    g1, g0 = float(for_h1[n - 1]), float(for_h0[n - 1])
    decision = None
    if over.any():
        decision = "H1" if g1 - h1_at >= g0 - h0_at else "H0"
    return SprtState(n, g1, g0, h1_at, h0_at, decision, estimate(values[:n], settings.bounds))


def fixed_sets(settings: SprtSettings, sd: float) -> int:
    """Sets a fixed-size one-sided z test needs for the same error rates at d0 and d1, with
    the spread known and the values normal: ``((z_{1-alpha} + z_{1-beta}) sd / (d1 - d0))^2``;
    the yardstick a sequential test is measured against (``bench/stats.py``)."""
    z = NormalDist().inv_cdf(1 - settings.alpha) + NormalDist().inv_cdf(1 - settings.beta)
    return math.ceil((z * sd / (settings.d1 - settings.d0)) ** 2)
