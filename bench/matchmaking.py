"""What the following ladder's matchmaking buys: how soon 8 bots are ordered, by three rules.

Eight simulated bots of known strength (skills ``--gap`` apart) play duplicate sets of 3 seats
the way a ladder plays them: one deal per set, whose luck differs by seat position (skewed and
heavy-tailed: most hands middling, a few very good), played once in each rotation, so each bot
of the table sits in each seat on the same deal; every bot has its own edge in each seat
position (seat effects by bot). A match ranks the seats by skill + the seat's luck + the bot's
edge there + normal noise, and is rated as the ladder rates it (TrueSkill with the ladder's
default settings, every match in order). Three ways of choosing the next table:

* ``round-robin``: every table of 3 of the 8 bots once per round, in a fresh seeded order each
  round (what a ladder file's schedule plays);
* ``shipped``: :func:`arena.ladder.matchmaking.next_table`, the following ladder's rule
  (placement sets first, then every table's k-th set before any table's (k+1)-th, the most
  expected rating information first within a pass);
* ``wrong-order``: the table whose pairs have the largest summed probability, under the current
  ratings, of being in the wrong order, ``Phi(-|mu_i - mu_j| / sqrt(sigma_i^2 + sigma_j^2))``:
  a real alternative, which spends its sets on the pairs still in doubt.

Every run draws its bots, deals and noise once, the same for the three rules (only the tables
differ). At 56, 112, 224 and 448 sets (1, 2, 4, 8 rounds of the 56 tables) it records whether
the table's order (``mu - 3 sigma``) is the true order, how many of the 28 pairs (all of
different strength) the table's marks establish in their true order
(:func:`arena.ladder.ratings.established_orders` on the per-set relative scores, Holm over
every ordered pair, as ``2=`` is decided) and whether any established order is wrong. Shares
come with 95 % Wilson intervals, and each rule's difference from the round robin with a 95 %
interval (normal approximation).

    python bench/matchmaking.py [--runs N] [--gap G] [--workers W]

Prints the table and saves bench/results/matchmaking.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import trueskill
from tabulate import tabulate

from arena.ladder.matchmaking import FollowSettings, next_table
from arena.ladder.ratings import RatingSettings
from arena.ladder.tally import established_orders

RESULTS = Path(__file__).parent / "results" / "matchmaking.json"
BOTS = 8
SEATS = 3
CHECKPOINTS = (56, 112, 224, 448)
POLICIES = ("round-robin", "shipped", "wrong-order")
NAMES = [f"b{i}" for i in range(BOTS)]  # b0 is the strongest
TABLES = list(combinations(NAMES, SEATS))
PAIRS = list(combinations(NAMES, 2))
Z = NormalDist().inv_cdf(0.975)


def _wrong_order(ratings: dict[str, trueskill.Rating]) -> tuple[str, ...]:
    """The table with the largest summed probability that a pair of it is ordered wrongly."""

    def doubt(a: str, b: str) -> float:
        ra, rb = ratings[a], ratings[b]
        spread = math.hypot(ra.sigma, rb.sigma)
        return NormalDist().cdf(-abs(ra.mu - rb.mu) / spread)

    pairs = {pair: doubt(*pair) for pair in PAIRS}
    return max(TABLES, key=lambda t: sum(pairs[p] for p in combinations(t, 2)))


def simulate(policy: str, run: int, gap: float) -> list[dict[str, Any]]:
    """One seeded run of ``policy``: at each checkpoint, whether the table's order is true,
    the pairs established in their true order, and whether any established order is wrong."""
    settings = RatingSettings()
    env = trueskill.TrueSkill(
        mu=settings.mu, sigma=settings.sigma, beta=settings.beta, tau=settings.tau,
        draw_probability=settings.draw_probability,
    )  # fmt: skip
    rng = np.random.default_rng([run, 1])  # the same bots, deals and noise for every policy
    skill = dict(zip(NAMES, (BOTS - 1 - np.arange(BOTS)) * gap, strict=True))
    edges = rng.normal(0, 0.3, (BOTS, SEATS))
    edge = {n: e - e.mean() for n, e in zip(NAMES, edges, strict=True)}
    sets = CHECKPOINTS[-1]
    luck = rng.lognormal(0, 0.8, (sets, SEATS)) - math.exp(0.32)  # mean 0, skewed
    noise = rng.normal(0, 1, (sets, SEATS, SEATS))
    order_rng = np.random.default_rng([run, 2])
    ratings = {n: env.create_rating() for n in NAMES}
    played = dict.fromkeys(NAMES, 0)
    table_sets: dict[tuple[str, ...], int] = {}
    queue: list[tuple[str, ...]] = []
    per_set: dict[str, dict[str, float]] = {}
    out = []
    placement = FollowSettings().placement
    for s in range(sets):
        if policy == "round-robin":
            if not queue:
                queue = [TABLES[i] for i in order_rng.permutation(len(TABLES))]
            table = queue.pop()
        elif policy == "shipped":
            current = {n: (r.mu, r.sigma) for n, r in ratings.items()}
            table = next_table(NAMES, SEATS, current, played, settings.beta, placement, table_sets)
        else:
            table = _wrong_order(ratings)
        table_sets[table] = table_sets.get(table, 0) + 1
        relative = dict.fromkeys(table, 0.0)
        for rotation in range(SEATS):
            seated = table[rotation:] + table[:rotation]
            perf = [skill[n] + luck[s, i] + edge[n][i] + noise[s, rotation, i]
                    for i, n in enumerate(seated)]  # fmt: skip
            ranks = [sum(p > q for p in perf) for q in perf]
            beaten = [SEATS - 1 - r for r in ranks]
            for n, score in zip(seated, beaten, strict=True):
                relative[n] += (score - (SEATS - 1) / 2) / SEATS
            new = env.rate([(ratings[n],) for n in seated], ranks=ranks)
            ratings.update({n: r for n, (r,) in zip(seated, new, strict=True)})
        per_set[f"s{s}"] = relative
        for n in table:
            played[n] += 1
        if s + 1 in CHECKPOINTS:
            order = sorted(NAMES, key=lambda n: (-(ratings[n].mu - 3 * ratings[n].sigma), n))
            established = established_orders(per_set, NAMES)
            out.append(
                {
                    "ordered": order == NAMES,
                    "established": sum(NAMES.index(a) < NAMES.index(b) for a, b in established),
                    "wrong": any(NAMES.index(a) > NAMES.index(b) for a, b in established),
                }
            )
    return out


def wilson(hits: float, n: int) -> tuple[float, float]:
    """95 % Wilson interval of a share of ``hits`` out of ``n``."""
    p = hits / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _share(values: list[float], n: int) -> dict[str, Any]:
    share = sum(values) / n
    return {"share": share, "ci95": list(wilson(sum(values), n))}


def summarise(runs: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """Per checkpoint: the shares with their intervals (established: of the 28 pairs)."""
    n = len(runs)
    out = {}
    for k, sets in enumerate(CHECKPOINTS):
        points = [r[k] for r in runs]
        established = [p["established"] / len(PAIRS) for p in points]
        mean = float(np.mean(established))
        half = Z * float(np.std(established, ddof=1)) / math.sqrt(n)
        out[str(sets)] = {
            "ordered": _share([p["ordered"] for p in points], n),
            "pairs_established": {"share": mean, "ci95": [mean - half, mean + half]},
            "any_wrong_established": _share([p["wrong"] for p in points], n),
        }
    return out


def _difference(a: dict[str, Any], b: dict[str, Any], n: int) -> list[float]:
    """95 % interval of share a minus share b, each over n independent runs."""
    p, q = a["share"], b["share"]
    half = Z * math.sqrt((p * (1 - p) + q * (1 - q)) / n)
    return [p - q - half, p - q + half]


def _job(args: tuple[str, int, float]) -> list[dict[str, Any]]:
    return simulate(*args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--gap", type=float, default=0.25, help="skill step (noise sd 1)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    started = time.monotonic()
    figures: dict[str, Any] = {}
    with ProcessPoolExecutor(args.workers) as pool:
        for policy in POLICIES:
            jobs = [(policy, run, args.gap) for run in range(args.runs)]
            figures[policy] = summarise(list(pool.map(_job, jobs, chunksize=8)))
    for policy in POLICIES[1:]:
        for sets in map(str, CHECKPOINTS):
            ours, base = figures[policy][sets]["ordered"], figures["round-robin"][sets]["ordered"]
            ours["minus_round_robin_ci95"] = _difference(ours, base, args.runs)
    rows = []
    for policy, at in figures.items():
        for sets, f in at.items():
            o, a, w = f["ordered"], f["pairs_established"], f["any_wrong_established"]
            versus = o.get("minus_round_robin_ci95")
            rows.append([
                policy, sets,
                f"{o['share']:.0%} [{o['ci95'][0]:.0%}, {o['ci95'][1]:.0%}]",
                f"[{versus[0]:+.0%}, {versus[1]:+.0%}]" if versus else "",
                f"{a['share']:.0%} [{a['ci95'][0]:.0%}, {a['ci95'][1]:.0%}]",
                f"{w['share']:.1%}",
            ])  # fmt: skip
    print(
        tabulate(
            rows,
            headers=["rule", "sets", "ordered [95%]", "minus round robin", "pairs established",
                     "any established order wrong"],
        )
    )  # fmt: skip
    result = {
        "bench": "matchmaking",
        "bots": BOTS,
        "seats": SEATS,
        "gap": args.gap,
        "runs": args.runs,
        "policies": figures,
        "elapsed_s": round(time.monotonic() - started, 1),
        "load_average": os.getloadavg(),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
