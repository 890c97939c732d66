"""Plays any Arena game by picking a uniformly random option, seeded for reproducibility.

Usage: python sample_bots/python/random_bot.py [--seed N] [--deltas]
The random stream is seeded from N and the seat, so a replayed match makes the same choices.
With ``--deltas`` it takes views as deltas (protocol 1.2).
"""

from __future__ import annotations

import argparse
import random

from protocol.bot import Bot, Turn, Welcome, run


class RandomBot(Bot):
    reusable = True  # on_welcome reseeds: every match plays as in a fresh process

    def __init__(self, seed: int = 0, deltas: bool = False) -> None:
        self.base_seed = seed
        self.deltas = deltas  # views as deltas: it never changes one (it never reads one)
        self.rng = random.Random(seed)

    def on_welcome(self, welcome: Welcome) -> None:
        super().on_welcome(welcome)
        self.rng = random.Random(f"{self.base_seed}/{welcome.seat}")

    def choose(self, turn: Turn) -> int:
        return self.rng.randrange(len(turn.options))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--deltas", action="store_true", help="offer views as deltas")
    args = parser.parse_args()
    run(RandomBot(args.seed, deltas=args.deltas))
