"""A bot that tries to read the deal of every match, then plays randomly (Happy Mochi, 2 seats).

Usage: deal_reader.py --bots A,B [--ladder-seed N] [--brute N] [--rounds R]

It knows what a bot author can know of a ladder: its bots (``--bots``), its rounds, perhaps its
seed (``--ladder-seed``; else it brute-forces 0..N-1 against its match id, and a kept process
keeps what it found). At the first turn of each match it reports on stderr (``_deals``):

    ATTACK ladder seed <match>: ok <seed> <deal identity> | none
    ATTACK deal <match>: matched=<the derivation that deals its own hand>|none predicted=<ids>

``predicted`` is its best guess of the other seat's starting hand: the matched deal's, else the
deal this engine would make from the public deal identity.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import report
from _deals import find_set, fingerprint, public_deal, read_deal

from protocol.bot import Bot, Turn, Welcome, run


class DealReader(Bot):
    reusable = True

    def __init__(self, bots: list[str], ladder_seed: int | None, brute: int, rounds: int):
        self.bots, self.brute, self.rounds = bots, brute, rounds
        self.ladder_seed = ladder_seed  # told, or found once by this process
        self.identity: int | None = None
        self.read = False
        self.rng = random.Random(0)

    def on_welcome(self, welcome: Welcome) -> None:
        super().on_welcome(welcome)
        self.read = False
        self.rng = random.Random(welcome.match)
        game = welcome.game
        fp = fingerprint(game["id"], welcome.players, game["options"])
        known = [] if self.ladder_seed is None else [self.ladder_seed]
        found = find_set(welcome.match, [*known, *range(self.brute)], fp, self.bots, self.rounds)
        self.identity = None
        if found is None:
            report(f"ladder seed {welcome.match}", "none")
            return
        self.ladder_seed, set_id = found
        self.identity = public_deal(set_id)
        report(f"ladder seed {welcome.match}", f"ok {self.ladder_seed} {self.identity}")

    def choose(self, turn: Turn) -> int:
        if not self.read and self.welcome is not None:
            self.read = True
            start = next(e for e in turn.events if e.get("type") == "round_start")
            duo = [start["T"][-1], start["U"][-1]]
            options = self.welcome.game["options"]
            how, predicted = read_deal(
                self.seat, start["hand"], duo, options, self.identity, self.brute
            )
            shown = ",".join(str(c) for c in predicted)
            report(f"deal {self.welcome.match}", f"matched={how or 'none'} predicted={shown}")
        return self.rng.randrange(len(turn.options))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", required=True, help="the table's bot names, comma-separated")
    parser.add_argument("--ladder-seed", type=int)
    parser.add_argument("--brute", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    run(DealReader(args.bots.split(","), args.ladder_seed, args.brute, args.rounds))
