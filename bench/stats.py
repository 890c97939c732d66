"""Calibration of Arena's statistics against a known truth, beside the fixed-sample methods.

Ladders of duplicate sets come from :mod:`arena.ladder.simulate` (Thurstone ranks,
Plackett-Luce win/loss, skewed points with jackpots; 2, 4 and 6 seats; seat effects by bot),
vectorised with numpy, and go through the same functions Arena prints from.

* Coverage: how often the 95 % interval of A minus B holds the true difference at 3, 5, 10
  and 30 sets: Arena's confidence sequence (anytime), beside the Student-t interval it
  replaced (valid only for a number of sets fixed in advance, and only near normality).
* Peeking: with equal bots, how often someone who looks after every set up to 500 and stops
  at the first "stronger" gets a false verdict, for both.
* Sequential test: alpha (H1 accepted with equal bots), beta (H0 accepted at d1 = the true
  difference) and the mean and 90th percentile of sets used by Arena's e-value test, beside
  the sets a fixed-size z test with the same error rates needs (spread known, normal values:
  a yardstick no test of a bounded mean can promise to meet).
* Lattices: on win/loss and few-point scores (the per-set difference on a lattice of
  multiples of 1/seats), Arena's test beside the two sequential tests the issue names: the
  generalised SPRT on the multinomial of per-set values (fishtest's pentanomial GSPRT on game
  pairs, which a 2-seat duplicate set is; the N-seat analogue on more points), and the
  sequential t-test (the normal-likelihood GSPRT, ``n/2 ln(S0/S1)``), both with Wald's
  bounds. They approximate a likelihood ratio, so their error rates are not guaranteed; the
  table says what Arena's guarantee costs in sets (``ladders/README.md`` draws the conclusion).

    python bench/stats.py [--ladders N] [--tests N]

Prints the tables and saves bench/results/stats.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
import zlib
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
from tabulate import tabulate

from arena.ladder import betting
from arena.ladder.simulate import KINDS, Model, per_set, truth
from arena.ladder.stats import ALPHA, SprtSettings, difference_bounds, evidence, fixed_sets

RESULTS = Path(__file__).parent / "results" / "stats.json"
SEATS = (2, 4, 6)
GAP = 0.5  # A's skill over B in the coverage rows
TEST_GAPS = (1.5, 0.5)  # in the sequential tests' (d1: the true difference at that gap)
SET_COUNTS = (3, 5, 10, 30)
LOOKS = 500
MAX_SETS = 3000
WALD = (math.log(0.95 / 0.05), math.log(0.05 / 0.95))  # H1 at or above, H0 at or below
PRIOR_COUNT = 1e-3  # added to every lattice point's count, as fishtest regularises
BLOCK = 100  # sets per step of the GSPRT, which stops when every test has decided
CHUNK = 100  # tests drawn at once (6 seats x 3000 sets: 86 MB of scores per chunk)
METHODS = ("arena", "gsprt", "t")
Firsts = tuple[np.ndarray, np.ndarray]


def _rng(*key: object) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("/".join(map(str, key)).encode()))


def _streams(model: Model, key: tuple, count: int, sets: int) -> np.ndarray:
    """Per-set differences of ``count`` independent ladders (or tests) of ``sets`` sets,
    drawn CHUNK at a time to bound memory."""
    rng = _rng(*key)
    chunks = [per_set(model.scores(rng, min(CHUNK, count - i), sets))[0]
              for i in range(0, count, CHUNK)]  # fmt: skip
    return np.concatenate(chunks)


def _t_quantile(df: np.ndarray) -> np.ndarray:
    """t(0.975, df) by the Cornish-Fisher expansion, exact to 1e-3 from df = 2 (df 1: 12.71)."""
    z = NormalDist().inv_cdf(0.975)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    q = z + g1 / df + g2 / df**2 + g3 / df**3
    return np.where(df == 1, 12.706, q)


def _t_excludes(values: np.ndarray, truth_value: float) -> np.ndarray:
    """Per ladder and set count n: the Student-t interval of the first n values excludes it."""
    n = np.arange(1, values.shape[-1] + 1)
    mean = np.cumsum(values, axis=-1) / n
    squares = np.cumsum(values**2, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(np.maximum(squares - n * mean**2, 0) / (n - 1))
        half = _t_quantile(np.maximum(n - 1, 1)) * sd / np.sqrt(n)
    out = np.abs(mean - truth_value) > half
    out[..., 0] = False  # no interval from one set
    return out


def _cs_excludes(values: np.ndarray, bounds: Any, truth_value: float) -> np.ndarray:
    """Per ladder and set count n: Arena's confidence sequence has ruled it out by set n."""
    y = bounds.scaled(values)
    log = betting.log_capital(y, betting.plugin_bets(y, ALPHA / 2), bounds.to_scale(truth_value))
    return np.maximum.accumulate(log, axis=-1) >= math.log(1 / ALPHA)


def coverage(ladders: int) -> list[dict[str, Any]]:
    rows = []
    for kind in KINDS:
        for seats in SEATS:
            for gap in (0.0, GAP):
                model = Model(kind, seats, gap)
                true = truth(model)["difference"]
                values = _streams(model, ("cover", kind, seats, gap), ladders, LOOKS)
                bounds = difference_bounds(model.score_range)
                cs, t = _cs_excludes(values, bounds, true), _t_excludes(values, true)
                row: dict[str, Any] = {"model": kind, "seats": seats, "truth": true}
                for n in SET_COUNTS:
                    row[f"cs_{n}"] = 1 - float(cs[:, n - 1].mean())
                    row[f"t_{n}"] = 1 - float(t[:, n - 1].mean())
                if gap == 0:  # peeking: any false verdict up to 100 and 500 looks
                    for looks in (100, LOOKS):
                        row[f"cs_peek_{looks}"] = float(cs[:, looks - 1].mean())
                        row[f"t_peek_{looks}"] = float(t[:, 2:looks].any(axis=-1).mean())
                rows.append(row)
    return rows


def _first(crossed: np.ndarray) -> np.ndarray:
    return np.where(crossed.any(axis=-1), crossed.argmax(axis=-1), crossed.shape[-1])


def lattice(model: Model) -> np.ndarray | None:
    """The values a per-set difference can take when scores are integers (ranks, win/loss):
    multiples of 1/seats across the range; None for points (jackpot)."""
    if model.kind == "jackpot":
        return None
    k, (low, high) = model.seats, model.score_range
    reach = round((high - low) * k)
    return np.arange(-reach, reach + 1) / k


def _closest_log_ratio(share: np.ndarray, points: np.ndarray, mean: float) -> np.ndarray:
    """For each empirical distribution ``share`` over ``points``: ``log(p / share)`` of the
    distribution ``p`` with the given mean closest to it (maximum likelihood):
    ``p = share / (1 + lam (points - mean))``, ``lam`` found by bisection so ``p`` sums to 1."""
    a = points - mean
    low = np.full(share.shape[:-1], -1 / a.max())
    high = np.full(share.shape[:-1], 1 / -a.min())
    for _ in range(60):
        lam = (low + high) / 2
        above = (share * a / (1 + lam[..., None] * a)).sum(axis=-1) > 0
        low, high = np.where(above, lam, low), np.where(above, high, lam)
    return -np.log1p((low + high)[..., None] / 2 * a)


def gsprt_first(values: np.ndarray, points: np.ndarray, d0: float, d1: float) -> Firsts:
    """First set (index) at which the multinomial GSPRT accepts H1, and H0, per test (the
    number of values when never): ``LLR_n = n sum share log(p1 / p0)``, ``p0`` and ``p1`` the
    distributions with mean d0 and d1 closest to the per-set values' shares so far, each
    lattice point's count starting at PRIOR_COUNT; Wald's bounds."""
    tests, n = values.shape
    index = np.abs(values[..., None] - points).argmin(axis=-1)
    counts = np.full((tests, len(points)), PRIOR_COUNT)
    h1, h0 = np.full(tests, n), np.full(tests, n)
    for start in range(0, n, BLOCK):
        alive = np.flatnonzero((h1 == n) & (h0 == n))
        if not alive.size:
            break
        block = index[alive, start : start + BLOCK]
        onehot = (block[..., None] == np.arange(len(points))).astype(float)
        running = counts[alive, None, :] + np.cumsum(onehot, axis=1)
        counts[alive] = running[:, -1]
        share = running / running.sum(axis=-1, keepdims=True)
        ratio = _closest_log_ratio(share, points, d1) - _closest_log_ratio(share, points, d0)
        llr = (start + 1 + np.arange(block.shape[1])) * (share * ratio).sum(axis=-1)
        for crossed, first in ((llr >= WALD[0], h1), (llr <= WALD[1], h0)):
            hit = crossed.any(axis=-1)
            first[alive[hit]] = start + crossed[hit].argmax(axis=-1)
    return h1, h0


def t_first(values: np.ndarray, d0: float, d1: float) -> Firsts:
    """The same for the sequential t-test: ``LLR_n = n/2 ln(S0 / S1)``, ``Sj = sum (x - dj)^2``
    (the normal likelihood, its variance estimated under each hypothesis); Wald's bounds; no
    decision before 2 sets or from values with no spread."""
    n = np.arange(1, values.shape[-1] + 1)
    total, squares = np.cumsum(values, axis=-1), np.cumsum(values**2, axis=-1)
    s0 = squares - 2 * d0 * total + n * d0**2
    s1 = squares - 2 * d1 * total + n * d1**2
    with np.errstate(divide="ignore", invalid="ignore"):
        llr = n / 2 * np.log(s0 / s1)
    spread = squares - total**2 / n > 1e-9 * np.maximum(1.0, squares)
    llr = np.where((n >= 2) & spread, llr, 0.0)
    return _first(llr >= WALD[0]), _first(llr <= WALD[1])


def sequential(tests: int) -> list[dict[str, Any]]:
    """alpha (equal bots) and beta (the true difference at d1) of Arena's test, beside the
    multinomial GSPRT (integer scores only) and the sequential t-test on the same streams."""
    rows = []
    for gap in TEST_GAPS:
        for kind in KINDS:
            for seats in SEATS:
                model = Model(kind, seats, gap)
                d1 = truth(model)["difference"]
                bounds = difference_bounds(model.score_range)
                settings = SprtSettings(d0=0.0, d1=d1, bounds=bounds)
                h0_at, h1_at = settings.thresholds
                points = lattice(model)
                for true_gap in (0.0, gap):
                    key = ("sprt", kind, seats, gap, true_gap)
                    values = _streams(Model(kind, seats, true_gap), key, tests, MAX_SETS)
                    for_h1, for_h0 = evidence(values, settings)
                    firsts = {
                        "arena": (_first(for_h1 >= h1_at), _first(for_h0 >= h0_at)),
                        "t": t_first(values, 0.0, d1),
                    }
                    if points is not None:
                        firsts["gsprt"] = gsprt_first(values, points, 0.0, d1)
                    sd = float(values.std())
                    row: dict[str, Any] = {
                        "model": kind,
                        "seats": seats,
                        "gap": gap,
                        "d1": d1,
                        "true_difference": 0.0 if true_gap == 0 else d1,
                        "error": "alpha" if true_gap == 0 else "beta",
                        "range": [bounds.low, bounds.high],
                        "lattice_points": None if points is None else len(points),
                        "sd_per_set": sd,
                        "fixed_design_sets": fixed_sets(settings, sd),
                    }
                    for name, (h1, h0) in firsts.items():
                        wrong = h1 < h0 if true_gap == 0 else h0 < h1
                        used = np.minimum(np.minimum(h1, h0) + 1, MAX_SETS)
                        row[name] = {
                            "error": float(wrong.mean()),
                            "undecided": float((np.minimum(h1, h0) >= MAX_SETS).mean()),
                            "mean_sets": float(used.mean()),
                            "p90_sets": float(np.quantile(used, 0.9)),
                        }
                    rows.append(row)
    return rows


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ladders", type=int, default=2000, help="per coverage row")
    parser.add_argument("--tests", type=int, default=1000, help="sequential tests per row")
    args = parser.parse_args()
    started = time.monotonic()
    cover = coverage(args.ladders)
    seq = sequential(args.tests)
    elapsed = time.monotonic() - started
    print(f"95% coverage of A minus B (CS: Arena's anytime interval; t: Student t), "
          f"{args.ladders} ladders per row")  # fmt: skip
    print(
        tabulate(
            [
                [r["model"], r["seats"], f"{r['truth']:.3g}"]
                + [f"{_pct(r[f'cs_{n}'])} / {_pct(r[f't_{n}'])}" for n in SET_COUNTS]
                + [
                    f"{_pct(r['cs_peek_500'])} / {_pct(r['t_peek_500'])}"
                    if "cs_peek_500" in r
                    else ""
                ]
                for r in cover
            ],
            headers=[
                "model",
                "seats",
                "truth",
                *(f"{n} sets" for n in SET_COUNTS),
                "false verdict, 500 looks",
            ],
        )
    )
    print()
    print(f"sequential tests, alpha = beta = 5 %, d0 = 0, d1 = the true difference at a gap; "
          f"{args.tests} tests per row; error (alpha with equal bots, beta at d1) and mean "
          f"sets of Arena's test / the multinomial GSPRT (fishtest's pentanomial at 2 seats; "
          f"integer scores) / the sequential t-test")  # fmt: skip
    print(
        tabulate(
            [
                [r["model"], r["seats"], r["gap"], f"{r['true_difference']:.3g}",
                 f"{r['sd_per_set']:.3g}", r["error"],
                 " / ".join(_pct(r[m]["error"]) if m in r else "-" for m in METHODS),
                 " / ".join(f"{r[m]['mean_sets']:.1f}" if m in r else "-" for m in METHODS),
                 f"{r['arena']['p90_sets']:.0f}", _pct(r["arena"]["undecided"]),
                 r["fixed_design_sets"]]
                for r in seq
            ],
            headers=["model", "seats", "gap", "true d", "sd/set", "rate", "error",
                     "mean sets", "Arena 90% within", "Arena undecided", "fixed z design"],
        )
    )  # fmt: skip
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "coverage": cover,
                "sequential": seq,
                "ladders": args.ladders,
                "tests": args.tests,
                "looks": LOOKS,
                "seconds": round(elapsed, 1),
                "load_average": os.getloadavg(),
                "python": platform.python_version(),
            },
            indent=2,
        )
        + "\n"
    )
    print(f"\nsaved {RESULTS}")


if __name__ == "__main__":
    main()
