"""The statistics: exact small cases, then calibration by simulation.

The simulations play synthetic duplicate sets with a known true difference (deal luck that
dominates, 2 to 4 seats; :mod:`arena.ladder.simulate`) through the real per-set relative
scores, with fixed seeds. ``bench/stats.py`` prints the same tables with more repetitions.
"""

from __future__ import annotations

import math
import random
from statistics import fmean

import pytest

from arena.ladder.simulate import Model
from arena.ladder.stats import (
    MIN_SETS,
    NO_SETS,
    SprtSettings,
    estimate,
    fixed_sets,
    llr,
    overlap,
    prob_greater,
    prob_positive,
    sets_needed,
    sprt,
    t_cdf,
    t_quantile,
    verdict,
)


@pytest.mark.parametrize(
    ("p", "df", "t"),
    [
        (0.975, 1, 12.706205),
        (0.975, 2, 4.302653),
        (0.975, 5, 2.570582),
        (0.975, 29, 2.045230),
        (0.8, 4, 0.940965),
        (0.025, 2, -4.302653),
        (0.5, 7, 0.0),
    ],
)
def test_t_quantiles_match_the_tables(p: float, df: int, t: float) -> None:
    assert t_quantile(p, df) == pytest.approx(t, abs=1e-6)
    assert t_cdf(t, df) == pytest.approx(p, abs=1e-6)


def test_t_cdf_in_closed_form_for_two_degrees_of_freedom() -> None:
    """For df = 2, P(T <= t) = 1/2 + t / (2 sqrt(2 + t^2))."""
    for t in (-3.0, -0.4, 0.0, 1.0, 3.4641):
        assert t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * math.sqrt(2 + t * t)), abs=1e-12)


def test_estimate_is_the_student_t_interval() -> None:
    est = estimate([1.0, 2.0, 3.0])
    assert (est.sets, est.mean, est.sd) == (3, 2.0, 1.0)
    half = 4.302653 / math.sqrt(3)
    assert est.ci == pytest.approx((2 - half, 2 + half), abs=1e-6)
    assert prob_positive(est) == pytest.approx(0.5 + 3.4641016 / (2 * math.sqrt(14)), abs=1e-6)


def test_too_few_sets_give_no_interval_and_say_so() -> None:
    assert MIN_SETS == 3
    two = estimate([1.0, 5.0])
    assert (two.mean, two.ci, two.enough) == (3.0, None, False)
    assert two.shortfall == "not enough sets: 2 of 3 needed"
    assert prob_positive(two) is None
    assert estimate([]) == NO_SETS
    assert verdict(two, "a", "b") == "not distinguishable yet: not enough sets: 2 of 3 needed"


def test_verdicts() -> None:
    assert verdict(estimate([3.0, 4.0, 5.0]), "a", "b") == "a is stronger (95%)"
    assert verdict(estimate([-3.0, -4.0, -5.0]), "a", "b") == "b is stronger (95%)"
    # mean 2, sd 1: (t(.975, n-1) + t(.8, n-1)) / sqrt(n) <= 2 first at n = 5, 2 more than 3
    assert sets_needed(1.0, 2.0) == 5
    assert verdict(estimate([1.0, 2.0, 3.0]), "a", "b") == (
        "not distinguishable yet: about 2 more duplicate sets would resolve a difference of 2"
    )
    same = verdict(estimate([0.0, 0.0, 0.0]), "a", "b")
    assert same == "not distinguishable yet: all 3 sets gave exactly the same scores"


def test_sets_needed_grows_as_the_difference_shrinks() -> None:
    needs = [sets_needed(1.0, d) for d in (2.0, 1.0, 0.5, 0.25)]
    assert needs == sorted(needs) and needs[-1] > 100
    # large n: close to the normal approximation ((1.96 + 0.84) / 0.25)^2 = 125.6
    assert 126 <= needs[-1] <= 130


def test_probabilities_and_overlap() -> None:
    assert prob_greater(0.0, 1.0) == 0.5
    assert prob_greater(1.6448536, 1.0) == pytest.approx(0.95, abs=1e-6)
    assert prob_greater(1.0, 0.0) == 1.0 and prob_greater(-1.0, 0.0) == 0.0
    assert overlap((0, 2), (1, 3)) and not overlap((0, 1), (2, 3)) and overlap(None, (0, 1))


def test_sprt_bounds_llr_and_decisions() -> None:
    settings = SprtSettings(alpha=0.05, beta=0.05, d0=0.0, d1=1.0)
    assert settings.bounds == pytest.approx((-math.log(19), math.log(19)))
    # sum (x - 0)^2 = 5, sum (x - 1)^2 = 2: (3 - 2) / 2 * ln(5 / 2)
    assert llr([1.0, 0.0, 2.0], 0.0, 1.0) == pytest.approx(0.5 * math.log(2.5))
    assert sprt([1.0, 0.0], settings).decision is None  # below MIN_SETS
    h0 = sprt([0.0, 0.0, 0.0, 5.0], settings)
    assert (h0.decision, h0.sets) == ("H0", 3)  # no spread at exactly d0: decided at once
    h1 = sprt([1.0] * 3, settings)
    assert (h1.decision, h1.sets) == ("H1", 3)
    values = [0.9, 1.4, 0.2, 1.8, 1.1, 0.7, 1.6, 1.3, 0.8, 1.2]
    decided = sprt(values, settings)
    assert decided.decision == "H1"
    assert sprt([*values, -50.0, -50.0], settings) == decided  # later sets never change it
    assert decided.llr == pytest.approx(llr(values[: decided.sets], 0.0, 1.0))
    with pytest.raises(ValueError, match="d1 must be greater"):
        SprtSettings(d0=1.0, d1=1.0).check()
    with pytest.raises(ValueError, match="alpha"):
        SprtSettings(alpha=0.7).check()


def test_fixed_size_design() -> None:
    """((z_.95 + z_.95) * 1 / 1)^2 = 10.82: 11 sets."""
    assert fixed_sets(SprtSettings(), 1.0) == 11
    assert fixed_sets(SprtSettings(), 2.0) == 44


# -- calibration by simulation ------------------------------------------------------------------

SEATS = (2, 3, 4)
DIFFERENCES = (0.0, 1.0, 3.0)
SET_COUNTS = (3, 5, 10, 30)
REPETITIONS = 1000


def test_intervals_cover_the_truth_95_percent_of_the_time() -> None:
    """Every (seats, true difference, sets) cell: A-minus-B and A's own interval cover their
    true values in 93-97 % of 1000 repetitions. A repetition plays 30 sets and reads the
    intervals of its first 3, 5, 10 and 30 (each cell's rate is still over 1000 repetitions)."""
    outside = []
    for seats in SEATS:
        for difference in DIFFERENCES:
            model = Model(seats, difference)
            rng = random.Random(f"coverage/{seats}/{difference}")
            covered = {(n, what): 0 for n in SET_COUNTS for what in ("A-B", "A")}
            for _ in range(REPETITIONS):
                own, diff = model.set_values(rng, max(SET_COUNTS))
                for n in SET_COUNTS:
                    for what, values, truth in (
                        ("A-B", diff, difference),
                        ("A", own, difference / 2),
                    ):
                        low, high = estimate(values[:n]).ci or (math.inf, -math.inf)
                        covered[n, what] += low <= truth <= high
            outside += [
                (seats, difference, n, what, count / REPETITIONS)
                for (n, what), count in covered.items()
                if not 0.93 <= count / REPETITIONS <= 0.97
            ]
    assert outside == []


def _run_sprt(model: Model, rng: random.Random, settings: SprtSettings) -> tuple[str | None, int]:
    values: list[float] = []
    while True:
        values += model.set_values(rng, 4)[1]
        state = sprt(values, settings)
        if state.decision or len(values) >= 400:
            return state.decision, state.sets


def test_sprt_error_rates_and_sets_used() -> None:
    """At d0, H1 is accepted in at most alpha (+ 2 points of simulation tolerance) of 400 runs;
    at d1, H0 in at most beta; and the test uses fewer sets on average than the fixed-size
    design with the same error rates."""
    settings = SprtSettings(alpha=0.05, beta=0.05, d0=0.0, d1=1.0)
    for seats in SEATS:
        sd = estimate(Model(seats, 0.0).set_values(random.Random(f"sd/{seats}"), 400)[1]).sd
        assert sd is not None
        fixed = fixed_sets(settings, sd)
        for truth, wrong, rate in ((0.0, "H1", settings.alpha), (1.0, "H0", settings.beta)):
            rng = random.Random(f"sprt/{seats}/{truth}")
            runs = [_run_sprt(Model(seats, truth), rng, settings) for _ in range(400)]
            errors = sum(decision == wrong for decision, _ in runs) / len(runs)
            assert errors <= rate + 0.02, (seats, truth, errors)
            assert all(decision is not None for decision, _ in runs)
            assert fmean(n for _, n in runs) < fixed, (seats, truth, fixed)
