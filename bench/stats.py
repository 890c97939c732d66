"""Calibration of Arena's statistics on synthetic duplicate sets with a known truth.

Sets come from :class:`arena.ladder.simulate.Model` (deal luck that dominates, skewed, partly
exploited by the better bot; 2, 3 and 4 seats) and go through the real per-set relative scores
and :mod:`arena.ladder.stats`, with fixed seeds.

* Coverage: how often the 95 % interval of A minus B holds the true difference, at 3, 5, 10
  and 30 sets: the Student-t interval Arena prints, beside the percentile bootstrap it replaced.
* Sequential test: how often it accepts the wrong hypothesis at d0 and at d1 (and half way),
  how many sets it used, beside the sets a fixed-size test with the same error rates needs.

    python bench/stats.py [--repetitions N] [--runs N]

Prints both tables and saves bench/results/stats.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from pathlib import Path
from statistics import fmean, quantiles
from typing import Any

from tabulate import tabulate

from arena.ladder.simulate import Model
from arena.ladder.stats import CONFIDENCE, SprtSettings, estimate, fixed_sets, sprt

RESULTS = Path(__file__).parent / "results" / "stats.json"
SEATS = (2, 3, 4)
DIFFERENCES = (0.0, 1.0, 3.0)
SET_COUNTS = (3, 5, 10, 30)
BOOTSTRAP_UP_TO = 10  # sets; the bootstrap column costs resamples x sets per repetition
RESAMPLES = 200
SETTINGS = SprtSettings(alpha=0.05, beta=0.05, d0=0.0, d1=1.0)
BUDGET = 2000


def bootstrap_covers(values: list[float], truth: float, rng: random.Random) -> bool:
    """The percentile bootstrap interval Arena used before: does it hold ``truth``?"""
    means = sorted(fmean(rng.choices(values, k=len(values))) for _ in range(RESAMPLES))
    tail = (1 - CONFIDENCE) / 2
    return means[int(tail * RESAMPLES)] <= truth <= means[int((1 - tail) * RESAMPLES) - 1]


def coverage(repetitions: int) -> list[dict[str, Any]]:
    rows = []
    for seats in SEATS:
        for difference in DIFFERENCES:
            model = Model(seats, difference)
            rng = random.Random(f"bench/coverage/{seats}/{difference}")
            t_hits = dict.fromkeys(SET_COUNTS, 0)
            boot_hits = dict.fromkeys(SET_COUNTS, 0)
            for _ in range(repetitions):
                diff = model.set_values(rng, max(SET_COUNTS))[1]
                for n in SET_COUNTS:
                    ci = estimate(diff[:n]).ci
                    t_hits[n] += ci is not None and ci[0] <= difference <= ci[1]
                    if n <= BOOTSTRAP_UP_TO:
                        boot_hits[n] += bootstrap_covers(diff[:n], difference, rng)
            for n in SET_COUNTS:
                rows.append(
                    {
                        "seats": seats,
                        "difference": difference,
                        "sets": n,
                        "t_coverage": t_hits[n] / repetitions,
                        "bootstrap_coverage": (
                            boot_hits[n] / repetitions if n <= BOOTSTRAP_UP_TO else None
                        ),
                    }
                )
    return rows


def sequential(runs: int) -> list[dict[str, Any]]:
    rows = []
    for seats in SEATS:
        sd = estimate(Model(seats, 0.0).set_values(random.Random(f"sd/{seats}"), 4000)[1]).sd
        assert sd is not None
        fixed = fixed_sets(SETTINGS, sd)
        for truth in (SETTINGS.d0, (SETTINGS.d0 + SETTINGS.d1) / 2, SETTINGS.d1):
            model = Model(seats, truth)
            rng = random.Random(f"bench/sprt/{seats}/{truth}")
            decisions, used = [], []
            for _ in range(runs):
                values: list[float] = []
                while True:
                    values += model.set_values(rng, 8)[1]
                    state = sprt(values, SETTINGS)
                    if state.decision or len(values) >= BUDGET:
                        break
                decisions.append(state.decision)
                used.append(state.sets)
            rows.append(
                {
                    "seats": seats,
                    "true_difference": truth,
                    "per_set_sd": sd,
                    "accept_h1": decisions.count("H1") / runs,
                    "accept_h0": decisions.count("H0") / runs,
                    "undecided": decisions.count(None) / runs,
                    "mean_sets": fmean(used),
                    "p90_sets": quantiles(used, n=10)[-1],
                    "fixed_design_sets": fixed,
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=2000, help="per coverage cell")
    parser.add_argument("--runs", type=int, default=2000, help="sequential tests per row")
    args = parser.parse_args()
    started = time.monotonic()
    cover = coverage(args.repetitions)
    cover_s = time.monotonic() - started
    seq = sequential(args.runs)
    elapsed = time.monotonic() - started
    print(f"95% interval coverage of A minus B, {args.repetitions} repetitions per cell")
    print(
        tabulate(
            [
                [
                    r["seats"],
                    r["difference"],
                    r["sets"],
                    f"{100 * r['t_coverage']:.1f}%",
                    "-"
                    if r["bootstrap_coverage"] is None
                    else f"{100 * r['bootstrap_coverage']:.1f}%",
                ]
                for r in cover
            ],
            headers=["seats", "true diff", "sets", "Student t", "percentile bootstrap"],
        )
    )
    print()
    print(
        f"sequential test: H0 d <= {SETTINGS.d0:g}, H1 d >= {SETTINGS.d1:g}, alpha "
        f"{SETTINGS.alpha:g}, beta {SETTINGS.beta:g}; {args.runs} runs per row"
    )
    print(
        tabulate(
            [
                [
                    r["seats"],
                    r["true_difference"],
                    f"{r['per_set_sd']:.2f}",
                    f"{100 * r['accept_h1']:.1f}%",
                    f"{100 * r['accept_h0']:.1f}%",
                    f"{r['mean_sets']:.1f}",
                    f"{r['p90_sets']:.0f}",
                    r["fixed_design_sets"],
                ]
                for r in seq
            ],
            headers=[
                "seats",
                "true diff",
                "sd/set",
                "H1 accepted",
                "H0 accepted",
                "mean sets",
                "90% within",
                "fixed design",
            ],
        )
    )
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "coverage": cover,
                "sequential": seq,
                "settings": vars(SETTINGS),
                "repetitions": args.repetitions,
                "runs": args.runs,
                "bootstrap_resamples": RESAMPLES,
                "coverage_seconds": round(cover_s, 1),
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
