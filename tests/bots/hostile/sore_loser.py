"""Plays randomly and kills its referee (its parent process) after every game it did not win: a
losing bot turning each loss into a void. Only possible unsandboxed (``rlimits``): at the
confining levels the referee is out of its reach (see ``killer.py``)."""

import os
import random
import signal

from protocol.bot import Bot, Turn, run


class SoreLoser(Bot):
    def choose(self, turn: Turn) -> int:
        return random.Random(turn.seq).randrange(len(turn.options))

    def on_game_over(self, outcome: dict, status: str) -> None:
        if outcome["ranks"][self.seat] != 0:
            os.kill(os.getppid(), signal.SIGKILL)


if __name__ == "__main__":
    run(SoreLoser())
