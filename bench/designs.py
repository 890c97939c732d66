"""What a balanced design costs to draw, and how even it is, beside its floor.

A ladder whose round has more than ``max_tables`` tables plays a balanced incomplete design
(``arena/ladder/design.py``). For fields up to 128 bots at 2 to 6 seats and designs of 1,000 to
5,000 tables, this measures:

* draw: the design alone (``design``), and the whole schedule built from it
  (``build_schedule``: the tables, then each one's duplicate set with its ids and deal), its
  design drawn anew each time (a process keeps the last designs it drew, ``first_tables``);
* floor: the part of the schedule every table needs whatever chose it, measured in the same
  run: its duplicate set (``duplicate_set``: the sha256 identities of the set, its deal and its
  matches). The ratio design / floor says what choosing the tables adds to what naming them
  costs; draws of 1,000 and 4,000 tables at 128 bots show the cost grows with the design's
  length, not with the C(bots, seats) combinations (10.7 million at 4 seats), which nothing
  enumerates;
* balance: the spread of tables per bot (max - min) and of meetings per pair (min, max, the
  mean, and the share of pairs that meet as often as an even design would have them: the
  mean rounded down or up).

Times are the best of ``--repeat`` runs (CPU time of this process: the machine is shared).

    .venv/bin/python bench/designs.py [--repeat N]

Prints a table and saves bench/results/designs.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from collections import Counter
from collections.abc import Callable
from itertools import combinations, islice
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.ladder.design import design, first_tables  # noqa: E402
from arena.ladder.schedule import build_schedule, digest, duplicate_set  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "designs.json"
SIZES = [(32, 3, 1000), (64, 4, 2000), (128, 2, 3000), (128, 3, 3000), (128, 4, 1000),
         (128, 4, 4000), (128, 5, 3000), (128, 6, 3000)]  # fmt: skip


def best(run: Callable[[], object], repeat: int) -> float:
    """The fewest CPU seconds ``run`` took in ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def fresh_schedule(names: list[str], seats: int, length: int) -> object:
    """One round of ``length`` tables, its design drawn anew (not from the kept ones)."""
    first_tables.cache_clear()
    return build_schedule(names, seats, 1, 0, "f", None, length)


def measure(bots: int, seats: int, length: int, repeat: int) -> dict[str, object]:
    names = [f"bot{i:03}" for i in range(bots)]
    tables = list(islice(design(names, seats, "bench"), length))
    draw = best(lambda: list(islice(design(names, seats, "bench"), length)), repeat)
    floor = best(lambda: [duplicate_set(digest(i), t, 0, 0) for i, t in enumerate(tables)],
                 repeat)  # fmt: skip
    whole = best(lambda: fresh_schedule(names, seats, length), repeat)
    played = Counter(b for t in tables for b in t)
    met = Counter(p for t in tables for p in combinations(t, 2))
    meetings = [met[p] for p in combinations(names, 2)]
    mean = length * math.comb(seats, 2) / math.comb(bots, 2)
    even = sum(math.floor(mean) <= m <= math.ceil(mean) for m in meetings)
    return {
        "bots": bots,
        "seats": seats,
        "tables": length,
        "combinations": math.comb(bots, seats),
        "design_s": round(draw, 4),
        "schedule_s": round(whole, 4),
        "floor_s": round(floor, 4),
        "design_per_floor": round(draw / floor, 2),
        "bot_spread": max(played.values()) - min(played.values()),
        "pair_min": min(meetings),
        "pair_max": max(meetings),
        "pair_mean": round(mean, 2),
        "pairs_even_pct": round(100 * even / len(meetings), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (best kept)")
    args = parser.parse_args()
    rows = [measure(*size, args.repeat) for size in SIZES]
    print(tabulate(rows, headers="keys", intfmt=","))
    result = {
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load": os.getloadavg()[0],
        },
        "rows": rows,
    }
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
