"""TrueSkill's closed-form update of two sides agrees with the trueskill library's factor
graph, which rates every match of more sides."""

from __future__ import annotations

import random

import pytest
import trueskill

from arena.ladder.two_sides import TwoSides


def library(env: trueskill.TrueSkill, sides: list[list[tuple[float, float]]], ranks: list[int]):
    rated = env.rate([[env.create_rating(mu, sigma) for mu, sigma in s] for s in sides], ranks)
    return [[(r.mu, r.sigma) for r in side] for side in rated]


@pytest.mark.parametrize("tau,draw", [(0.0, 0.10), (25 / 300, 0.10), (0.5, 0.4)])
def test_two_sides_agree_with_the_factor_graph(tau: float, draw: float) -> None:
    """Wins and draws, single seats and teams of up to three, near and far ratings: every
    mu and sigma within 1e-6 of the library's (on upsets of dozens of standard deviations the
    library's second pass of messages rounds: compared with the same formulas in 60 digits,
    the closed form was the exact one), and the library's error where
    it gives up."""
    env = trueskill.TrueSkill(tau=tau, draw_probability=draw)
    closed, rng = TwoSides(env), random.Random(7)
    compared = refused = 0
    for _ in range(3000):
        sizes = (rng.randint(1, 3), rng.randint(1, 3)) if rng.random() < 0.3 else (1, 1)
        spread = rng.choice([25, 400])  # 400: upsets past what the library can compute
        sides = [[(rng.uniform(-spread, spread), rng.uniform(0.3, 9)) for _ in range(n)]
                 for n in sizes]  # fmt: skip
        ranks = [rng.randint(0, 1), rng.randint(0, 1)]
        try:
            expected = library(env, sides, ranks)
        except FloatingPointError:  # its v or w function gave up: so does the closed form
            with pytest.raises(FloatingPointError):
                closed.rate(sides, ranks)
            refused += 1
            continue
        except ValueError:  # w above 1 (a draw far from even): a variance below 0, in both
            with pytest.raises(ValueError):
                closed.rate(sides, ranks)
            refused += 1
            continue
        got, near = closed.rate(sides, ranks), 1e-6
        for side, want in zip(got, expected, strict=True):
            for (mu, sigma), (mu0, sigma0) in zip(side, want, strict=True):
                assert mu == pytest.approx(mu0, rel=near, abs=near)
                assert sigma == pytest.approx(sigma0, rel=near)
        compared += 1
    assert compared > 1500 and refused > 100
