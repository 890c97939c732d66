"""What the following ladder's matchmaking buys: duplicate sets needed to order 8 bots.

Eight simulated bots of known strength (skills ``gap * beta`` apart, 0.25 by default) play
duplicate sets of ``seats`` seats; in each match every seat performs its skill plus Gaussian
noise of deviation ``beta`` and is ranked by performance. Ratings are updated after every
match by TrueSkill with the ladder's default settings, as the ladder rates. Two ways of
choosing the next table:

* ``round-robin``: every combination of the bots once per round, in a fresh seeded order each
  round (what a ladder file's schedule plays);
* ``information``: :func:`arena.ladder.matchmaking.next_table` (placement first, then the
  table whose result is expected to remove the most rating variance).

A run is *ordered* after N sets when the conservative ratings (mu - 3 sigma) put all 8 bots in
their true order. The figure is the smallest N at which at least 95 % of the runs are ordered.

    python bench/matchmaking.py [--runs N] [--seats S] [--gap G] [--max-sets M]

Prints the table and saves bench/results/matchmaking.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from itertools import combinations
from pathlib import Path

import trueskill
from tabulate import tabulate

from arena.ladder.matchmaking import next_table
from arena.ladder.ratings import RatingSettings

RESULTS = Path(__file__).parent / "results" / "matchmaking.json"
BOTS = 8
TARGET = 0.95
POLICIES = ("round-robin", "information")


def simulate(policy: str, run: int, seats: int, gap: float, max_sets: int) -> list[bool]:
    """Whether the ratings order the bots correctly after each set, for one seeded run."""
    settings = RatingSettings()
    env = trueskill.TrueSkill(
        mu=settings.mu, sigma=settings.sigma, beta=settings.beta, tau=settings.tau,
        draw_probability=0.0,
    )  # fmt: skip
    rng = random.Random(f"{policy}/{run}")
    names = [f"b{i}" for i in range(BOTS)]  # b0 is the strongest
    skill = {n: (BOTS - i) * gap * settings.beta for i, n in enumerate(names)}
    ratings = {n: env.create_rating() for n in names}
    sets_played = dict.fromkeys(names, 0)
    table_sets: dict[tuple[str, ...], int] = {}
    every = list(combinations(names, seats))
    queue: list[tuple[str, ...]] = []
    ordered = []
    for _ in range(max_sets):
        if policy == "round-robin":
            if not queue:
                queue = rng.sample(every, len(every))
            table = queue.pop()
        else:
            current = {n: (r.mu, r.sigma) for n, r in ratings.items()}
            table = next_table(names, seats, current, sets_played, settings.beta, 1, table_sets)
            table_sets[table] = table_sets.get(table, 0) + 1
        for rotation in range(seats):
            seated = table[rotation:] + table[:rotation]
            perf = [skill[n] + rng.gauss(0, settings.beta) for n in seated]
            ranks = [sorted(perf, reverse=True).index(p) for p in perf]
            new = env.rate([(ratings[n],) for n in seated], ranks=ranks)
            for n, (r,) in zip(seated, new, strict=True):
                ratings[n] = r
        for n in table:
            sets_played[n] += 1
        order = sorted(names, key=lambda n: -(ratings[n].mu - 3 * ratings[n].sigma))
        ordered.append(order == names)
    return ordered


def sets_needed(curves: list[list[bool]]) -> int | None:
    """The smallest number of sets from which on at least TARGET of the runs stay ordered."""
    needed = None
    for n in reversed(range(len(curves[0]))):
        if sum(c[n] for c in curves) < TARGET * len(curves):
            break
        needed = n + 1
    return needed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--gap", type=float, default=0.25, help="skill step, in units of beta")
    parser.add_argument("--max-sets", type=int, default=900)
    args = parser.parse_args()
    started = time.monotonic()
    figures = {}
    for policy in POLICIES:
        curves = [
            simulate(policy, r, args.seats, args.gap, args.max_sets) for r in range(args.runs)
        ]
        needed = sets_needed(curves)
        at = {n: sum(c[n - 1] for c in curves) / len(curves) for n in (56, 112, 224, 448, 896)
              if n <= args.max_sets}  # fmt: skip
        figures[policy] = {"sets_for_95": needed, "ordered_share_at": at}
    rr, info = figures["round-robin"]["sets_for_95"], figures["information"]["sets_for_95"]
    ratio = rr / info if rr and info else None
    rows = [
        [p, f["sets_for_95"] or f"> {args.max_sets}",
         *(f"{share:.0%}" for share in f["ordered_share_at"].values())]
        for p, f in figures.items()
    ]  # fmt: skip
    shares = [f"ordered at {n} sets" for n in figures["information"]["ordered_share_at"]]
    print(tabulate(rows, headers=["policy", "sets for 95 %", *shares]))
    if ratio:
        print(f"round robin needs {ratio:.2f} times the sets of the information matchmaking")
    result = {
        "bench": "matchmaking",
        "bots": BOTS,
        "seats": args.seats,
        "gap_beta": args.gap,
        "runs": args.runs,
        "max_sets": args.max_sets,
        "target": TARGET,
        "policies": figures,
        "round_robin_over_information": ratio,
        "elapsed_s": round(time.monotonic() - started, 1),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
