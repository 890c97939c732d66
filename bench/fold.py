"""The runner's CPU per duplicate set added to the ladder's table: the fold of one value.

Per complete duplicate set the runner adds each bot's and each seat position's relative score
to its column (``stats.Running``: exact moments and a confidence sequence on a grid of 1023
candidates) and each ordered pair's sign to a one-sided bettor (``Tally.add_set``). For each
step this gives the CPU per call after (the code) and before (the fold it replaced, kept as the
tests' oracle in ``tests/ladder/fold_reference.py``; for ``Running.add`` and ``Tally.add_set``
patched into the same classes), the ratio after / before, and each "before" beside its floor
measured in the same run:

* the grid's floor: one numpy pass over the grid (``np.add`` of two grid-long arrays into a
  third), the least any step over every candidate costs;
* the scalar floor: a Python method adding a value to three float sums (what moments kept in
  floats, not exactly, would cost).

Values: per-set values in schedule order from a few data models (uniform, beta(2, 5), narrow
normal, a 0.55 coin, three points, rare jackpots), a sequence of ``--sets`` values per model,
each step folded over the whole sequence from a fresh object, so a figure is the mean over a
sequence's life (its first values cost more: ``logaddexp`` is skipped nowhere yet). The
``Tally.add_set`` rows fold a 2-seat ladder of 4 bots with random scores (``--sets`` sets of
2 matches: 1200 matches by default, a short ladder). Before and after alternate block by
block; the median over the blocks is reported. The table ends with the share of the grid where
``logaddexp`` is skipped (:data:`arena.ladder.betting.DOMINATED`) after 10 to 1000 values.

    .venv/bin/python bench/fold.py [--sets N] [--blocks N]

Prints a table and saves bench/results/fold.json.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests' reference fold

from throughput import report, row  # noqa: E402

from arena.ladder import betting, stats  # noqa: E402
from arena.ladder.ratings import MatchRecord, SeatRecord  # noqa: E402
from arena.ladder.tally import Tally  # noqa: E402
from tests.ladder import fold_reference as reference  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "fold.json"
ALPHA = 1 - stats.CONFIDENCE
BOUNDS = stats.Bounds(-1.0, 1.0)  # the relative score's range of the models' values
SCORE_RANGE = (0.0, 10.0)  # the Tally rows' game
BOTS = 4
LOOKS = (10, 30, 100, 300, 1000)  # values after which the skipped share is given


class Adds(Protocol):
    def add(self, value: float) -> None: ...


def models(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Per-set values in [0, 1] of a few kinds, ``n`` each."""
    return {
        "uniform": rng.uniform(0, 1, n),
        "beta(2, 5)": rng.beta(2, 5, n),
        "narrow normal": np.clip(rng.normal(0.5, 0.05, n), 0, 1),
        "coin 0.55": (rng.uniform(size=n) < 0.55).astype(float),
        "three points": rng.choice([0.0, 0.5, 1.0], n, p=[0.3, 0.3, 0.4]),
        "jackpots": np.where(rng.uniform(size=n) < 0.05, 1.0, rng.uniform(0.4, 0.5, n)),
    }


def duplicate_sets(sets: int, rng: np.random.Generator) -> list[list[MatchRecord]]:
    """``sets`` duplicate sets of a 2-seat ladder of :data:`BOTS` bots: each deal played with
    the seats swapped, random whole scores, the higher ranked first."""
    bots = [f"bot{i}" for i in range(BOTS)]
    tables = [(a, b) for i, a in enumerate(bots) for b in bots[i + 1 :]]
    groups = []
    for index in range(sets):
        pair = tables[index % len(tables)]
        group = []
        for rotation, seated in enumerate((pair, pair[::-1])):
            scores = [float(s) for s in rng.integers(0, 11, 2)]
            seats = tuple(
                SeatRecord(bot, score, 1 + (score < max(scores)), "ok")
                for bot, score in zip(seated, scores, strict=True)
            )
            group.append(
                MatchRecord(2 * index + rotation, f"m{index}.{rotation}", f"s{index}", seats)
            )
        groups.append(group)
    return groups


@contextlib.contextmanager
def before() -> Iterator[None]:
    """The fold as it was, in the same ``Running`` and ``Tally``."""
    with (
        mock.patch.object(stats, "Moments", reference.Moments),
        mock.patch.object(betting, "ConfidenceSequence", reference.ConfidenceSequence),
        mock.patch.object(betting, "OneSided", reference.OneSided),
    ):
        yield


def cpu_per_call(make: Callable[[], Adds], values: Sequence[float]) -> float:
    """Microseconds of CPU per ``add`` folding ``values`` into a fresh ``make()``."""
    folder = make()
    start = time.process_time()
    for value in values:
        folder.add(value)
    return (time.process_time() - start) / len(values) * 1e6


def cpu_per_set(groups: Sequence[Sequence[MatchRecord]]) -> float:
    """Microseconds of CPU per ``Tally.add_set`` over ``groups``, from a fresh tally."""
    tally = Tally(SCORE_RANGE, 2)
    start = time.process_time()
    for group in groups:
        tally.add_set(group)
    return (time.process_time() - start) / len(groups) * 1e6


class FloatSums:
    """The scalar floor: three float sums, as inexact moments would keep them."""

    def __init__(self) -> None:
        self.count, self.s1, self.s2, self.s3 = 0, 0.0, 0.0, 0.0

    def add(self, value: float) -> None:
        self.count += 1
        self.s1 += value
        self.s2 += value * value
        self.s3 += value * value * value


def grid_pass(size: int, passes: int) -> float:
    """The grid's floor: microseconds per numpy pass over ``size`` candidates."""
    a, b, out = np.ones(size), np.ones(size), np.empty(size)
    start = time.process_time()
    for _ in range(passes):
        np.add(a, b, out=out)
    return (time.process_time() - start) / passes * 1e6


def skipped_shares(values: dict[str, np.ndarray]) -> dict[str, dict[int, float]]:
    """Per model, the share of the grid where the add after ``n`` values leaves ``logaddexp``
    out: the candidates no longer live (ruled out, past the first or last one that is not),
    and the live ones whose leading half is ahead by :data:`betting.DOMINATED` and at least
    1."""
    shares: dict[str, dict[int, float]] = {}
    for name, y in values.items():
        sequence = betting.ConfidenceSequence(ALPHA, 0.5)
        shares[name] = {}
        for n, value in enumerate(y, 1):
            sequence.add(float(value))
            if n in LOOKS:
                live = slice(sequence.lo, sequence.hi)
                up, down = sequence.up[live], sequence.down[live]
                lead, top = np.abs(up - down), np.maximum(up, down)
                dominated = int(np.sum((lead >= betting.DOMINATED) & (top >= 1.0)))
                left_out = len(sequence.grid) - len(up) + dominated
                shares[name][n] = left_out / len(sequence.grid)
    return shares


def fold_all(make: Callable[[], Adds], sequences: Iterable[Sequence[float]]) -> float:
    """Microseconds of CPU per ``add``, the mean over ``sequences`` each folded afresh."""
    return statistics.fmean(cpu_per_call(make, values) for values in sequences)


def patched(measure: Callable[[], float]) -> Callable[[], float]:
    """``measure`` run with the fold as it was (:func:`before`)."""

    def run() -> float:
        with before():
            return measure()

    return run


GOALS = {
    "ConfidenceSequence.add": "<= 0.8",
    "Moments.add": "<= 0.2",
    "OneSided.add (a pair's signs)": "<= 0.5",
    "Running.add (a table column)": "<= 0.7",
    "Tally.add_set (2 seats, 4 bots)": "<= 0.7",
}
"""After / before for each step: what this change set out to reach."""


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", type=int, default=600, help="values a sequence, sets a tally")
    parser.add_argument("--blocks", type=int, default=5, help="before/after blocks alternated")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(20261127)
    unit = [[float(v) for v in y] for y in models(args.sets, rng).values()]
    scores = [[BOUNDS.from_scale(v) for v in y] for y in unit]
    signs = [[float(v) for v in rng.choice([0.0, 0.5, 1.0], args.sets)]]
    groups = duplicate_sets(args.sets, rng)
    size = len(betting.candidates(0.5))

    def column() -> stats.Running:
        return stats.Running(BOUNDS)

    steps = {  # name: (before, after, floor)
        "ConfidenceSequence.add": (
            lambda: fold_all(lambda: reference.ConfidenceSequence(ALPHA, 0.5), unit),
            lambda: fold_all(lambda: betting.ConfidenceSequence(ALPHA, 0.5), unit),
            "grid",
        ),
        "Moments.add": (
            lambda: fold_all(reference.Moments, scores),
            lambda: fold_all(stats.Moments, scores),
            "scalar",
        ),
        "OneSided.add (a pair's signs)": (
            lambda: fold_all(lambda: reference.OneSided(0.5, ALPHA / 2), signs),
            lambda: fold_all(lambda: betting.OneSided(0.5, ALPHA / 2), signs),
            "scalar",
        ),
        "Running.add (a table column)": (
            patched(lambda: fold_all(column, scores)),
            lambda: fold_all(column, scores),
            "grid",
        ),
        "Tally.add_set (2 seats, 4 bots)": (
            patched(lambda: cpu_per_set(groups)),
            lambda: cpu_per_set(groups),
            "grid",
        ),
    }
    floors = {
        "grid": (f"one numpy pass over the grid ({size})", lambda: grid_pass(size, 20_000)),
        "scalar": ("3 float sums", lambda: fold_all(FloatSums, scores * 10)),
    }
    samples: dict[str, list[float]] = {}
    for _ in range(args.blocks):
        for name, (_, measure) in floors.items():
            samples.setdefault(name, []).append(measure())
        for name, (old, new, _) in steps.items():
            samples.setdefault(f"{name}, before", []).append(old())
            samples.setdefault(f"{name}, after", []).append(new())
    median = {name: statistics.median(values) for name, values in samples.items()}

    rows: list[dict[str, Any]] = []
    for name, (_, _, floor) in steps.items():
        old, new = median[f"{name}, before"], median[f"{name}, after"]
        rows.append(row(f"{name}, before", old, floors[floor][0], median[floor], "us", ""))
        rows.append(row(f"{name}, after", new, f"{name}, before", old, "us", GOALS[name]))
    tally = "Tally.add_set (2 seats, 4 bots)"
    saved = (median[f"{tally}, before"] - median[f"{tally}, after"]) / 2  # 2 matches a set
    shares = skipped_shares(models(max(LOOKS), rng))
    report(rows, RESULTS, sets=args.sets, blocks=args.blocks,
           saved_per_match_us=round(saved, 1), skipped_shares=shares)  # fmt: skip
    print(f"the runner's CPU saved per stored match (a set is 2 matches): {saved:.1f} us")
    print("share of the grid where logaddexp is skipped, after n values:")
    for name, by_n in shares.items():
        print(f"  {name:14s}", "  ".join(f"{n}: {share:.0%}" for n, share in by_n.items()))


if __name__ == "__main__":
    main()
