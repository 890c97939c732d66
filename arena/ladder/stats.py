"""Pure: intervals, verdicts and the sequential test over duplicate sets.

The unit of every statistic is the **duplicate set** (one deal played once per seat rotation):
deal and seat luck cancel inside a set, so per-set values are close to independent and close
to normal even when single matches are not. Everything here works on a list of per-set values
(a bot's relative score, or A's minus B's) and reads no clock, file or random source.

* Interval: Student-t over per-set values. It holds its coverage with a handful of sets where a
  percentile bootstrap cannot (with 3 sets a bootstrap has only 10 distinct resamples and its
  95 % interval is far too narrow). Below :data:`MIN_SETS` there is no interval at all.
* Verdict: the interval clear of 0, or how many more sets would resolve the difference.
* Sequential test: a generalised SPRT on the mean per-set difference (``ladders/README.md``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist, fmean

CONFIDENCE = 0.95
MIN_SETS = 3
"""Fewest sets with an interval: with 2 the t quantile is 12.7 and the spread rests on one
degree of freedom; from 3 the simulations (bench/stats.py) hold 95 % coverage."""
POWER = 0.80
"""Chance the interval excludes 0, if the true difference is D, at the suggested set count."""


# -- Student-t distribution --------------------------------------------------------------------


def _beta_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz evaluation)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return result


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1 - math.exp(log_front) * _beta_fraction(b, a, 1 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * _incomplete_beta(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t > 0 else tail


@lru_cache(maxsize=1024)
def t_quantile(p: float, df: float) -> float:
    """The t with P(T <= t) = p (bisection on :func:`t_cdf`, to 1e-12)."""
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        low, high = high, 2 * high
    while high - low > 1e-12 * max(1.0, high):
        mid = (low + high) / 2
        low, high = (mid, high) if t_cdf(mid, df) < p else (low, mid)
    return (low + high) / 2


# -- intervals ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """The mean of per-set values, with its spread and Student-t interval.

    ``ci`` and ``sd`` are None below :data:`MIN_SETS` sets (``mean`` is None with no set).
    """

    sets: int
    mean: float | None
    sd: float | None
    ci: tuple[float, float] | None

    @property
    def enough(self) -> bool:
        return self.ci is not None

    @property
    def shortfall(self) -> str:
        """What to print instead of an interval."""
        return f"not enough sets: {self.sets} of {MIN_SETS} needed"

    def as_dict(self) -> dict[str, object]:
        return {
            "sets": self.sets,
            "mean": self.mean,
            "sd": self.sd,
            "ci": list(self.ci) if self.ci else None,
        }


NO_SETS = Estimate(0, None, None, None)


def half_width(sd: float, sets: int, confidence: float = CONFIDENCE) -> float:
    """Half the two-sided t interval's width for ``sets`` values of spread ``sd``."""
    return t_quantile((1 + confidence) / 2, sets - 1) * sd / math.sqrt(sets)


def estimate(values: Sequence[float], confidence: float = CONFIDENCE) -> Estimate:
    """Mean of ``values`` with the Student-t interval (none below :data:`MIN_SETS` values)."""
    n = len(values)
    if n == 0:
        return NO_SETS
    mean = fmean(values)
    if n < MIN_SETS:
        return Estimate(n, mean, None, None)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    h = half_width(sd, n, confidence)
    return Estimate(n, mean, sd, (mean - h, mean + h))


def prob_positive(est: Estimate) -> float | None:
    """How likely the true mean is above 0: the t posterior of the mean under a flat prior.

    None below :data:`MIN_SETS`; with no spread at all, 1, 0 or 1/2 by the sign of the mean.
    """
    if est.sd is None or est.mean is None:
        return None
    if est.sd == 0:
        return 1.0 if est.mean > 0 else 0.0 if est.mean < 0 else 0.5
    return t_cdf(est.mean / (est.sd / math.sqrt(est.sets)), est.sets - 1)


def prob_greater(difference: float, sd: float) -> float:
    """P(X > 0) for X normal with mean ``difference`` and deviation ``sd`` (>= 0)."""
    if sd == 0:
        return 1.0 if difference > 0 else 0.0 if difference < 0 else 0.5
    return 1 - NormalDist(difference, sd).cdf(0)


def overlap(a: tuple[float, float] | None, b: tuple[float, float] | None) -> bool:
    """Whether two intervals share a point; a missing interval overlaps everything."""
    if a is None or b is None:
        return True
    return a[0] <= b[1] and b[0] <= a[1]


# -- verdicts ----------------------------------------------------------------------------------


def sets_needed(sd: float, difference: float, confidence: float = CONFIDENCE) -> int:
    """Sets at which a t interval excludes 0 with probability :data:`POWER`, if the true mean
    is ``difference`` and the per-set spread ``sd``: the smallest n with
    (t_{(1+confidence)/2, n-1} + t_{POWER, n-1}) * sd / sqrt(n) <= |difference|."""
    z = NormalDist().inv_cdf((1 + confidence) / 2) + NormalDist().inv_cdf(POWER)

    def resolves(n: int) -> bool:
        t = t_quantile((1 + confidence) / 2, n - 1) + t_quantile(POWER, n - 1)
        return t * sd / math.sqrt(n) <= abs(difference)

    low = max(MIN_SETS, math.ceil((z * sd / abs(difference)) ** 2))  # t > z: never more
    if resolves(low):
        return low
    high = 2 * low
    while not resolves(high):
        low, high = high, 2 * high
    while high - low > 1:  # resolves(high), not resolves(low)
        mid = (low + high) // 2
        low, high = (low, mid) if resolves(mid) else (mid, high)
    return high


def verdict(est: Estimate, a: str, b: str) -> str:
    """One line on A minus B: who is stronger at 95 %, or what it would take to tell."""
    if est.ci is None or est.sd is None or est.mean is None:
        return f"not distinguishable yet: {est.shortfall}"
    low, high = est.ci
    if low > 0:
        return f"{a} is stronger ({CONFIDENCE:.0%})"
    if high < 0:
        return f"{b} is stronger ({CONFIDENCE:.0%})"
    if est.sd == 0:
        return f"not distinguishable yet: all {est.sets} sets gave exactly the same scores"
    target = max(abs(est.mean), (high - low) / 4)
    more = max(1, sets_needed(est.sd, target) - est.sets)
    return (
        f"not distinguishable yet: about {more} more duplicate sets would resolve "
        f"a difference of {target:.2g}"
    )


# -- the sequential test -----------------------------------------------------------------------


@dataclass(frozen=True)
class SprtSettings:
    """H0: mean per-set difference <= d0; H1: >= d1; error rates alpha (H1 accepted when H0
    holds) and beta (H0 accepted when H1 holds)."""

    alpha: float = 0.05
    beta: float = 0.05
    d0: float = 0.0
    d1: float = 1.0

    def check(self) -> None:
        """Raise ValueError naming the setting that cannot work."""
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, got {getattr(self, name)}")
        if not self.d1 > self.d0:
            raise ValueError(f"d1 must be greater than d0, got d0={self.d0}, d1={self.d1}")

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's bounds on the log-likelihood ratio: accept H0 at or below the first, H1 at or
        above the second."""
        return (
            math.log(self.beta / (1 - self.alpha)),
            math.log((1 - self.beta) / self.alpha),
        )


def llr(values: Sequence[float], d0: float, d1: float) -> float:
    """Generalised log-likelihood ratio of mean d1 against d0 for normal per-set values of
    unknown spread, each hypothesis with its own maximum-likelihood variance:
    LLR = (n - 2)/2 * ln(sum (x - d0)^2 / sum (x - d1)^2).

    The textbook exponent is n/2; two sets' worth are discounted for the two quantities the
    data must also estimate (mean and spread). With n/2 the simulations accepted the wrong
    hypothesis 6-8 % of the time at alpha = beta = 5 %; with n - 2, 3-5 % (bench/stats.py).
    """
    return _llr(len(values), sum(values), sum(v * v for v in values), d0, d1)


def _llr(n: int, total: float, squares: float, d0: float, d1: float) -> float:
    """:func:`llr` from the count, sum and sum of squares of the values."""
    s0 = squares - 2 * d0 * total + n * d0 * d0
    s1 = squares - 2 * d1 * total + n * d1 * d1
    floor = 1e-12 * (d1 - d0) ** 2 * n  # no spread at all: a finite, decisive ratio
    return (n - 2) / 2 * math.log(max(s0, floor) / max(s1, floor))


@dataclass(frozen=True)
class SprtState:
    """Where a sequential test stands after ``sets`` sets; ``decision`` is "H0", "H1" or None."""

    sets: int
    llr: float
    lower: float
    upper: float
    decision: str | None
    estimate: Estimate

    def as_dict(self) -> dict[str, object]:
        return {
            "sets": self.sets,
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "decision": self.decision,
            "estimate": self.estimate.as_dict(),
        }


def sprt(values: Sequence[float], settings: SprtSettings) -> SprtState:
    """Walk the per-set values in order and stop at the first bound crossed.

    No decision before :data:`MIN_SETS` sets (a spread from fewer is not worth a verdict).
    Values after the decision are ignored, so sets played while it was reached (in flight on
    other workers) never change it, and a resumed test reaches the same one.
    """
    lower, upper = settings.bounds
    n, ratio, decision = 0, 0.0, None
    total = squares = 0.0
    for n, value in enumerate(values, 1):
        total += value
        squares += value * value
        ratio = _llr(n, total, squares, settings.d0, settings.d1) if n >= MIN_SETS else 0.0
        if ratio >= upper:
            decision = "H1"
        elif ratio <= lower:
            decision = "H0"
        if decision:
            break
    return SprtState(n, ratio, lower, upper, decision, estimate(values[:n]))


def fixed_sets(settings: SprtSettings, sd: float) -> int:
    """Sets a fixed-size one-sided test needs for the same error rates at d0 and d1:
    n = ((z_{1-alpha} + z_{1-beta}) * sd / (d1 - d0))^2 (normal approximation)."""
    z = NormalDist().inv_cdf(1 - settings.alpha) + NormalDist().inv_cdf(1 - settings.beta)
    return math.ceil((z * sd / (settings.d1 - settings.d0)) ** 2)
