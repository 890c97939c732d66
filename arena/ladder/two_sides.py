"""TrueSkill's update of a match between two sides, in closed form.

The trueskill library rates any number of sides by passing messages on a factor graph that it
builds anew for every match, a few dozen Python objects: about 95 us for two single seats, a
fifth of the runner's CPU per short match. With two sides the graph is a tree and the messages
settle in one pass, so the update is the textbook one (Herbrich, Minka and Graepel, "TrueSkill:
A Bayesian Skill Rating System", 2007): with ``c^2`` the sum over every player of ``sigma^2 +
tau^2 + beta^2``, ``t`` the first side's summed mu minus the second's over ``c``, each mu moves
by ``(sigma^2 + tau^2) / c * v(t)`` and each variance shrinks by a factor ``1 - (sigma^2 +
tau^2) / c^2 * w(t)``. It is computed with the library's own ``v`` and ``w`` functions (which
raise the library's FloatingPointError on a hopeless upset) and its draw margin, and a test
holds it to the library's result on random matches. More sides go to the library.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Pair = tuple[float, float]  # (mu, sigma)


class TwoSides:
    """The update under one ``trueskill.TrueSkill`` environment, its draw margins kept by the
    number of players (the library's ``calc_draw_margin``, an inverse CDF each time)."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.margins: dict[int, float] = {}

    def margin(self, players: int) -> float:
        if players not in self.margins:
            import trueskill

            env = self.env
            self.margins[players] = trueskill.calc_draw_margin(env.draw_probability, players, env)
        return self.margins[players]

    def rate(self, sides: Sequence[Sequence[Pair]], ranks: Sequence[int]) -> list[list[Pair]]:
        """The ratings after a match of two ``sides`` (each a list of (mu, sigma)) placed
        ``ranks`` (equal: a draw), in their order."""
        env = self.env
        first = 0 if ranks[0] <= ranks[1] else 1  # the better side, the first one on a draw
        order = (first, 1 - first)
        tau2, beta2 = env.tau**2, env.beta**2
        variances = [[sigma * sigma + tau2 for _, sigma in sides[i]] for i in order]
        c2 = sum(v + beta2 for side in variances for v in side)
        c = math.sqrt(c2)
        ahead = sum(mu for mu, _ in sides[order[0]]) - sum(mu for mu, _ in sides[order[1]])
        t, margin = ahead / c, self.margin(len(sides[0]) + len(sides[1])) / c
        if ranks[0] == ranks[1]:
            v, w = env.v_draw(t, margin), env.w_draw(t, margin)
        else:
            v, w = env.v_win(t, margin), env.w_win(t, margin)
        rated: list[list[Pair]] = [[], []]
        for i, sign, side in zip(order, (1, -1), variances, strict=True):
            rated[i] = [
                (mu + sign * var / c * v, math.sqrt(var * (1 - var / c2 * w)))
                for (mu, _), var in zip(sides[i], side, strict=True)
            ]
        return rated
