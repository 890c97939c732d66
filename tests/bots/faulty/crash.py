"""Exits with status 3 on its third turn, after a message on stderr (``crashed``)."""

import os
import sys

from _wire import action, play


def answer(turn: dict, count: int) -> list[dict]:
    if count == 2:
        sys.stderr.write(f"crash.py: giving up at seq {turn['seq']}: no strategy for this\n")
        sys.stderr.flush()
        os._exit(3)
    return [action(turn["seq"], 0)]


play(answer)
