"""The statistics: exact small cases, then calibration by simulation against a known truth.

The simulations (:mod:`arena.ladder.simulate`) draw whole ladders of duplicate sets from three
generative models none of the methods was tuned on (Thurstone ranks, Plackett-Luce win/loss,
skewed points with jackpots), 2, 4 and 6 seats, seat effects that differ by bot, vectorised
over many ladders at once. Tolerances are binomial: a rate measured over R ladders is allowed
3 standard errors, ``3 sqrt(p (1 - p) / R)``, past its bound. ``bench/stats.py`` runs the same
with more ladders and prints the tables.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

from arena.ladder import betting
from arena.ladder.ratings import MatchRecord, SeatRecord, set_relative_scores
from arena.ladder.simulate import KINDS, Model, per_set, truth
from arena.ladder.stats import (
    ALPHA,
    SIGNS,
    Bounds,
    OutOfRange,
    SprtSettings,
    difference_bounds,
    estimate,
    evidence,
    fewest_sets,
    holm,
    p_above,
    relative_bounds,
    signs,
    sprt,
    verdict,
)

WINLOSS = difference_bounds((0.0, 1.0))


def tolerance(p: float, runs: int) -> float:
    return 3 * math.sqrt(p * (1 - p) / runs)


# -- exact small cases ---------------------------------------------------------------------------


def test_a_level_set_is_exactly_zero_whatever_the_order_of_its_matches() -> None:
    """Six seats, win/loss: A and B each win one rotation. Summed naively, A's and B's relative
    scores differ by a residue of about 1e-17; here they are equal, so the set is level."""
    bots = ["A", "B", "c", "d", "e", "f"]
    matches = []
    for r in range(6):
        order = bots[r:] + bots[:r]
        winner = ["c", "A", "d", "B", "e", "f"][r]
        seats = tuple(SeatRecord(b, float(b == winner), int(b != winner), "ok") for b in order)
        matches.append(MatchRecord(10 - r, f"m{r}", "s", seats))
    values = set_relative_scores(matches)["s"]
    assert values["A"] == values["B"] and values["A"] - values["B"] == 0.0
    assert signs([values["A"] - values["B"], 0.5, -2.0]) == [0.0, 1.0, -1.0]


def test_values_outside_the_game_range_are_refused() -> None:
    with pytest.raises(OutOfRange, match=r"per-set value 1.5 is outside \[-1, 1\]"):
        estimate([0.0, 1.5], WINLOSS)


def test_no_verdict_below_the_fewest_sets_any_results_could_decide() -> None:
    """Win/loss, 2 seats: even a set won every time needs 7 sets; three won sets (or three
    level ones) decide nothing, where a t interval of zero width once said "stronger"."""
    assert fewest_sets(WINLOSS) == fewest_sets(difference_bounds((-344, 0))) == 7
    for values in ([1.0] * 3, [0.0] * 3, [1.0] * 6):
        est = estimate(values, WINLOSS)
        assert not est.zero_out and est.ci is not None and est.ci[0] < 0 < est.ci[1]
        assert "no results of fewer than 7 sets can decide it" in verdict(values, WINLOSS, "a", "b")
    won = estimate([1.0] * 7, WINLOSS)
    assert won.zero_out and won.ci is not None and won.ci[0] > 0
    assert verdict([1.0] * 7, WINLOSS, "a", "b").startswith("a is stronger: a higher mean score")
    level = verdict([0.0] * 20, WINLOSS, "a", "b")
    assert level.startswith("mean score not distinguishable yet: about ")


def test_a_jackpot_lead_is_told_apart_from_winning_more_sets() -> None:
    """B wins most sets by a little, A a few by a lot: the mean says A, the sets say B."""
    bounds = difference_bounds((0.0, 100.0))
    values = [-2.0] * 160 + [40.0] * 40
    values = [values[(i * 37) % 200] for i in range(200)]  # spread the jackpots out
    line = verdict(values, bounds, "a", "b")
    assert line == (
        "a has the higher mean score but b finishes ahead in more sets (each 95%, anytime): "
        "a's lead rests on a few large sets"
    )
    assert estimate(values, bounds).skewed


def test_the_interval_agrees_with_the_test_at_every_candidate() -> None:
    """A candidate inside the printed interval, more than one grid step from its ends, is one
    the betting test has not ruled out, and one outside is (the interval is read from a grid of
    candidates and widened outwards to the nearest ruled-out one, never narrowed)."""
    rng = np.random.default_rng(3)
    bounds = difference_bounds((0.0, 10.0))
    values = list(np.round(rng.normal(2, 3, 60).clip(-10, 10), 1))
    est = estimate(values, bounds)
    assert est.ci is not None
    y = bounds.scaled(values)
    bets = betting.plugin_bets(y, ALPHA / 2)
    low, high = est.ci
    step = (bounds.high - bounds.low) / (betting.GRID - 1)
    for m in np.linspace(low + step * 1.01, high - step * 1.01, 25):
        assert not betting.ruled_out(y, bets, bounds.to_scale(m), ALPHA)
    assert high - low > 4 * step
    for m in (low - 1e-6, high + 1e-6, low - 0.05, high + 0.05):
        assert betting.ruled_out(y, bets, bounds.to_scale(m), ALPHA)


def test_holm_steps_down_and_p_values_are_anytime() -> None:
    # 0.01 <= 0.05 / 3, then 0.03 > 0.05 / 2 stops the steps
    assert holm({("a", "b"): 0.01, ("b", "c"): 0.03, ("c", "d"): 0.04}) == {("a", "b")}
    assert holm({("a", "b"): 0.02, ("b", "c"): 0.02, ("c", "d"): 0.02}) == set()
    assert p_above([], SIGNS, 0.05) == 1.0 and p_above([-1.0] * 50, SIGNS, 0.05) == 1.0
    assert p_above([1.0] * 12, SIGNS, 0.05) < 0.01


def test_sequential_test_decides_on_its_thresholds_and_ignores_later_sets() -> None:
    settings = SprtSettings(d0=0.0, d1=0.5, bounds=WINLOSS)
    assert settings.thresholds == pytest.approx((math.log(20), math.log(20)))
    assert sprt([0.0, 0.0, 0.0], settings).decision is None  # no spread decides nothing
    won = [1.0] * 30
    decided = sprt(won, settings)
    assert decided.decision == "H1" and 5 <= decided.sets <= 12
    assert decided.for_h1 >= decided.h1_at
    assert sprt([*won[: decided.sets], -1.0, -1.0], settings) == decided
    lost = sprt([-1.0, 0.0] * 20, settings)
    assert lost.decision == "H0" and lost.for_h0 >= lost.h0_at
    with pytest.raises(ValueError, match="d1 must be greater"):
        SprtSettings(d0=1.0, d1=1.0, bounds=WINLOSS).check()
    with pytest.raises(ValueError, match="alpha"):
        SprtSettings(alpha=0.7, bounds=WINLOSS).check()
    with pytest.raises(ValueError, match=r"must lie inside \(-1, 1\)"):
        SprtSettings(d1=1.0, bounds=WINLOSS).check()


# -- calibration by simulation -------------------------------------------------------------------

SEATS = (2, 4, 6)
LADDERS = 400
LOOKS = 500
SET_COUNTS = (3, 5, 10, 30, 100, 500)


def _ruled_out_by(values: np.ndarray, bounds: Bounds, truth_value: float) -> np.ndarray:
    """For each ladder and each set count n: has the confidence sequence ruled the truth out
    by set n (what ``estimate`` prints, vectorised)?"""
    y = bounds.scaled(values)
    log = betting.log_capital(y, betting.plugin_bets(y, ALPHA / 2), bounds.to_scale(truth_value))
    return np.maximum.accumulate(log, axis=-1) >= math.log(1 / ALPHA)


@pytest.mark.parametrize("seats", SEATS)
@pytest.mark.parametrize("kind", KINDS)
def test_intervals_hold_the_truth_at_every_look(kind: str, seats: int) -> None:
    """For equal bots and for a real gap, 400 ladders of 500 sets each: the mean difference's
    interval (compare), the sets-won interval (compare, the marks) and A's own relative-score
    interval (the table's column) hold the true value at 3, 5, 10, 30, 100 and 500 sets in at
    least 95 % of ladders (less the binomial tolerance, 3.3 points), and the share of ladders
    in which anyone looking after every set up to 500 ever saw the truth ruled out, a false
    verdict when the bots are equal, is at most 5 % (plus the tolerance)."""
    failures = []
    for gap in (0.0, 0.5):
        model = Model(kind, seats, gap)
        true = truth(model, sets=40_000)
        rng = np.random.default_rng(zlib.crc32(f"{kind}/{seats}/{gap}".encode()))
        difference, own = per_set(model.scores(rng, LADDERS, LOOKS))
        for what, values, bounds in (
            ("difference", difference, difference_bounds(model.score_range)),
            ("sets_won", np.sign(difference), SIGNS),
            ("own", own, relative_bounds(model.score_range, seats)),
        ):
            out = _ruled_out_by(values, bounds, true[what])
            for n in SET_COUNTS:
                miss = out[:, n - 1].mean()
                if miss > ALPHA + tolerance(ALPHA, LADDERS):
                    failures.append((seats, gap, what, n, miss))
    assert failures == []


@pytest.mark.parametrize("kind", KINDS)
def test_sequential_test_keeps_alpha_and_beta(kind: str) -> None:
    """alpha and beta 5 %: with equal bots (d0 = 0) H1 is accepted in at most 5 % of 300
    tests (plus the tolerance, 3.8 points), and with a real gap, testing d1 = the true
    difference, H0 in at most 5 %; every test decides within 800 sets. 6 seats: bench/stats.py.
    """
    for seats in SEATS[:2]:
        model = Model(kind, seats, 1.5)
        d1 = truth(model, sets=40_000)["difference"]
        settings = SprtSettings(d0=0.0, d1=d1, bounds=difference_bounds(model.score_range))
        for gap, wrong in ((0.0, "H1"), (1.5, "H0")):
            rng = np.random.default_rng(zlib.crc32(f"sprt/{kind}/{seats}/{gap}".encode()))
            values, _ = per_set(Model(kind, seats, gap).scores(rng, 300, 800))
            for_h1, for_h0 = evidence(values, settings)
            h0_at, h1_at = settings.thresholds
            first_h1 = _first(for_h1 >= h1_at)
            first_h0 = _first(for_h0 >= h0_at)
            assert (np.minimum(first_h1, first_h0) < values.shape[1]).all(), (kind, seats, gap)
            chose = np.where(first_h1 < first_h0, "H1", "H0")
            errors = (chose == wrong).mean()
            assert errors <= 0.05 + tolerance(0.05, 300), (kind, seats, gap, errors)


def _first(crossed: np.ndarray) -> np.ndarray:
    """Index of the first True per row, the row's length when there is none."""
    return np.where(crossed.any(axis=-1), crossed.argmax(axis=-1), crossed.shape[-1])


def test_table_orders_keep_the_family_wise_rate() -> None:
    """Five equal bots, every pair meeting in win/loss duplicate sets: over 300 ladders of 200
    sets per pair, the share of ladders where Holm over the 20 ordered pairs established any
    order, at any look, is at most 5 % (plus the tolerance). A looser look at one pair with a
    real gap establishes it."""
    bots, ladders, sets = 5, 300, 200
    pairs = bots * (bots - 1)
    rng = np.random.default_rng(11)
    lead = np.sign(per_set(Model("winloss", 2).scores(rng, ladders * pairs // 2, sets))[0])
    lead = lead.reshape(ladders, pairs // 2, sets)
    both = np.concatenate([lead, -lead], axis=1)  # A over B, then B over A
    y = SIGNS.scaled(both)
    stakes = np.minimum(betting.plugin_bets(y, ALPHA / pairs), betting.BET_CAP / 0.5)
    best = betting.log_growth(y, stakes, 0.5).max(axis=-1)
    p_values = np.minimum(1.0, np.exp(-np.maximum(best, 0.0)))
    any_order = [bool(holm({(str(i), ""): p for i, p in enumerate(row)})) for row in p_values]
    assert np.mean(any_order) <= ALPHA + tolerance(ALPHA, ladders)
    gap = np.sign(per_set(Model("winloss", 2, 1.5).scores(rng, 1, sets))[0][0])
    assert p_above(list(gap), SIGNS, ALPHA / pairs) < ALPHA / pairs
