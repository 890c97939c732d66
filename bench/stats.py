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
GAP = 0.5  # A's skill over B in the coverage rows; 1.5 in the sequential test's
TEST_GAP = 1.5
SET_COUNTS = (3, 5, 10, 30)
LOOKS = 500
MAX_SETS = 3000


def _rng(*key: object) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("/".join(map(str, key)).encode()))


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
                values, _ = per_set(model.scores(_rng("cover", kind, seats, gap), ladders, LOOKS))
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


def sequential(tests: int) -> list[dict[str, Any]]:
    rows = []
    for kind in KINDS:
        for seats in SEATS:
            model = Model(kind, seats, TEST_GAP)
            d1 = truth(model)["difference"]
            bounds = difference_bounds(model.score_range)
            settings = SprtSettings(d0=0.0, d1=d1, bounds=bounds)
            h0_at, h1_at = settings.thresholds
            for gap in (0.0, TEST_GAP):
                rng = _rng("sprt", kind, seats, gap)
                values, _ = per_set(Model(kind, seats, gap).scores(rng, tests, MAX_SETS))
                for_h1, for_h0 = evidence(values, settings)
                h1, h0 = _first(for_h1 >= h1_at), _first(for_h0 >= h0_at)
                used = np.minimum(np.minimum(h1, h0) + 1, MAX_SETS)
                sd = float(values.std())
                rows.append(
                    {
                        "model": kind,
                        "seats": seats,
                        "true_difference": 0.0 if gap == 0 else d1,
                        "d1": d1,
                        "range": [bounds.low, bounds.high],
                        "sd_per_set": sd,
                        "accept_h1": float((h1 < h0).mean()),
                        "undecided": float((np.minimum(h1, h0) >= MAX_SETS).mean()),
                        "mean_sets": float(used.mean()),
                        "p90_sets": float(np.quantile(used, 0.9)),
                        "fixed_design_sets": fixed_sets(settings, sd),
                    }
                )
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
    print(f"sequential tests, alpha = beta = 5 %, d0 = 0, d1 = the true difference at gap "
          f"{TEST_GAP}; {args.tests} tests per row")  # fmt: skip
    print(
        tabulate(
            [
                [
                    r["model"],
                    r["seats"],
                    f"{r['true_difference']:.3g}",
                    f"{r['sd_per_set']:.3g}",
                    _pct(r["accept_h1"]),
                    _pct(r["undecided"]),
                    f"{r['mean_sets']:.1f}",
                    f"{r['p90_sets']:.0f}",
                    r["fixed_design_sets"],
                ]
                for r in seq
            ],
            headers=[
                "model",
                "seats",
                "true d",
                "sd/set",
                "H1 accepted",
                "undecided",
                "mean sets",
                "90% within",
                "fixed z design",
            ],
        )
    )
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
