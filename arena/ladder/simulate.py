"""Synthetic duplicate sets with a known truth, to check the statistics against.

Each model plays ladders of duplicate sets the way a ladder schedules them: bot A, bot B and
``seats - 2`` fillers at one table, one deal per set, played once in each cyclic rotation of
the seats. A deal gives every seat position its own luck (heavy-tailed and skewed: most hands
middling, a few very good), and every bot has its own edge in each seat position, so seat
effects differ by bot. The models differ in how a match turns performances into scores:

* ``thurstone``: performance = skill + hand + seat edge + normal noise; the score is the
  number of seats beaten (0 to seats - 1): ranks, a coarse lattice.
* ``winloss``: Plackett-Luce, as a Gumbel race (skill + hand + edge + Gumbel noise): the
  fastest wins 1, everyone else 0.
* ``jackpot``: points: a base score from the performance, clipped to [0, 40], and a rare
  jackpot of 60 (2 % of matches for most bots). In the alternative, B plays for jackpots
  (8 % of matches, weaker otherwise): its per-set scores are strongly skewed.

None is the model a method here was tuned on (the betting constructions assume nothing but the
range). Everything is vectorised with numpy over many ladders at once; :func:`per_set` turns
the scores into the per-set values the ladder computes (A's mean per-deal relative score
minus B's), and :func:`truth` measures a model's true mean by a very large sample.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KINDS = ("thurstone", "winloss", "jackpot")
JACKPOT = 60.0
BASE_CAP = 40.0


@dataclass(frozen=True)
class Model:
    """One generative model: ``kind``, seats at the table, and A's skill advantage over B
    (``gap`` = 0: A and B are the same bot, so the truth is 0 by symmetry)."""

    kind: str
    seats: int
    gap: float = 0.0

    @property
    def score_range(self) -> tuple[float, float]:
        if self.kind == "thurstone":
            return (0.0, float(self.seats - 1))
        if self.kind == "winloss":
            return (0.0, 1.0)
        return (0.0, BASE_CAP + JACKPOT)

    def _bots(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per bot (A, B, fillers): skill, jackpot rate, and its edge in each seat position."""
        k = self.seats
        rng = np.random.default_rng(1000 + k)  # the same fillers and edges for every gap
        edges = rng.normal(0, 0.3, (k, k))
        edges[1] = edges[0]  # A and B alike but for the gap: the truth is 0 without one
        edges -= edges.mean(axis=1, keepdims=True)
        skill = np.concatenate([[self.gap / 2, -self.gap / 2], rng.normal(0, 0.5, k - 2)])
        rates = np.full(k, 0.02)
        if self.kind == "jackpot" and self.gap:
            rates[1] = 0.08  # B gambles: rarely a jackpot, weaker the rest of the time
        return skill, rates, edges

    def scores(self, rng: np.random.Generator, ladders: int, sets: int) -> np.ndarray:
        """Scores, shape (ladders, sets, rotation, bot). Each set puts the bots in a random
        order around the table (as different tables of a ladder do); rotation r moves every
        bot r seats on, so over a set each bot sits in each seat once on the same deal."""
        k = self.seats
        skill, rates, edges = self._bots()
        order = np.argsort(rng.random((ladders, sets, 1, k)), axis=-1)
        seat = (order + np.arange(k)[:, None]) % k  # [ladder, set, rotation, bot]
        hands = rng.lognormal(0, 0.8, (ladders, sets, 1, k)) - np.exp(0.32)  # mean 0, skewed
        perf = skill + np.take_along_axis(hands, seat, axis=-1) + edges[np.arange(k), seat]
        if self.kind == "winloss":
            race = perf + rng.gumbel(0, 1, perf.shape)
            return (race == race.max(axis=-1, keepdims=True)).astype(float)
        perf = perf + rng.normal(0, 1, perf.shape)
        if self.kind == "thurstone":
            return (perf[..., :, None] > perf[..., None, :]).sum(axis=-1).astype(float)
        weaker = 6.0 * (np.arange(k) == 1) * (self.gap != 0)
        base = np.clip(10 + 4 * perf - weaker, 0, BASE_CAP)
        return base + JACKPOT * (rng.random(perf.shape) < rates)


def per_set(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """From :meth:`Model.scores`: per set, A's relative score minus B's (each match's table
    mean cancels, so it is the mean over rotations of A's score minus B's), and A's own mean
    per-deal relative score; shape (ladders, sets)."""
    difference = (scores[..., 0] - scores[..., 1]).mean(axis=-1)
    own = (scores[..., 0] - scores.mean(axis=-1)).mean(axis=-1)
    return difference, own


def truth(model: Model, sets: int = 400_000, chunk: int = 50_000) -> dict[str, float]:
    """The model's true means, by a large sample (0 by symmetry when ``gap`` is 0): per-set
    difference, sets won (mean of the difference's sign) and A's own relative score."""
    rng = np.random.default_rng(7)
    chunk = min(chunk, sets)
    parts = [per_set(model.scores(rng, 1, chunk)) for _ in range(sets // chunk)]
    difference = np.concatenate([d.ravel() for d, _ in parts])
    own = np.concatenate([o.ravel() for _, o in parts])
    if model.gap == 0:
        return {"difference": 0.0, "sets_won": 0.0, "own": float(own.mean())}
    return {
        "difference": float(difference.mean()),
        "sets_won": float(np.sign(difference).mean()),
        "own": float(own.mean()),
    }
