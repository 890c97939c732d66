"""Synthetic duplicate sets with a known true difference, to check the statistics against.

A card-game-like model where the deal dominates: each seat's hand is worth a skewed amount of
luck (much larger than any skill), a seat position has its own edge, and each match adds
noise. Bot A turns a good hand into points a little better than average and B a little worse,
so the deal's luck does not cancel exactly inside a duplicate set. A's skill is ``difference /
2`` above the table, B's as much below, the fillers' 0: A's true mean per-set relative score
minus B's is ``difference``. The tests and ``bench/stats.py`` run the real statistics on these
sets (:func:`arena.ladder.ratings.set_relative_scores`, then :mod:`arena.ladder.stats`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property

from arena.ladder.ratings import MatchRecord, SeatRecord, set_relative_scores


@dataclass(frozen=True)
class Model:
    seats: int
    difference: float
    luck_sd: float = 6.0
    noise_sd: float = 2.0
    exploit: float = 0.15
    seat_edge: float = 1.0

    @property
    def bots(self) -> tuple[str, ...]:
        return ("A", "B", *(f"f{i}" for i in range(1, self.seats - 1)))

    @cached_property
    def _skills(self) -> dict[str, tuple[float, float]]:
        """Per bot: (skill, share of luck gained beyond the hand's worth)."""
        half = self.difference / 2
        return {bot: (0.0, 0.0) for bot in self.bots} | {
            "A": (half, self.exploit),
            "B": (-half, -self.exploit),
        }

    @cached_property
    def _edges(self) -> list[float]:
        """Each seat position's edge; they sum to 0."""
        k = self.seats
        return [self.seat_edge * (1 if seat == 0 else -1 / (k - 1)) for seat in range(k)]

    def duplicate_set(self, rng: random.Random, set_id: str, start: int = 0) -> list[MatchRecord]:
        """One deal played in every cyclic rotation of the seats (as the ladder schedules it)."""
        k = self.seats
        luck = [self.luck_sd * (rng.expovariate(1.0) - 1.0) for _ in range(k)]  # mean 0, skewed
        base = list(self.bots)
        rng.shuffle(base)
        matches = []
        for rotation in range(k):
            order = base[rotation:] + base[:rotation]
            scores = []
            for seat, bot in enumerate(order):
                skill, gain = self._skills[bot]
                noise = rng.gauss(0, self.noise_sd)
                scores.append(skill + (1 + gain) * luck[seat] + self._edges[seat] + noise)
            ranked = sorted(scores, reverse=True)
            seat_records = tuple(
                SeatRecord(bot, score, ranked.index(score), "ok")
                for bot, score in zip(order, scores, strict=True)
            )
            matches.append(
                MatchRecord(start + rotation, f"{set_id}/{rotation}", set_id, seat_records)
            )
        return matches

    def set_values(self, rng: random.Random, sets: int) -> tuple[list[float], list[float]]:
        """For ``sets`` fresh sets: A's per-set relative score (truth: ``difference / 2``) and
        A's minus B's (truth: ``difference``)."""
        matches = [m for i in range(sets) for m in self.duplicate_set(rng, f"s{i:05d}", i * 10)]
        per_set = set_relative_scores(matches).values()
        return [v["A"] for v in per_set], [v["A"] - v["B"] for v in per_set]
