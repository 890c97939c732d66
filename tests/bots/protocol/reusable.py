"""A bot that offers reuse (``hello.reuse``) and misbehaves in one of its matches.

    reusable.py MODE N

MODE ``fine`` never misbehaves; ``crash`` exits with code 7 at its first turn of its N-th
match; ``refuse`` leaves when welcomed to its N-th match; ``chatter`` sends an action nobody
asked for after the game_over of its N-th match, while it waits to be reused. Every welcome
prints ``match K process X`` on stderr (X drawn at start: a sandbox's pid namespace gives
every bot the same pid), so the seat's log tells which process played which match.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from _raw import Link, play

mode, number = sys.argv[1], int(sys.argv[2])
link = Link()
link.hello(reuse=True)
count = 0
process = os.urandom(8).hex()


def on_turn(_link: Link, _turn: dict[str, Any], _index: int) -> bool:
    if mode == "crash" and count == number:
        os._exit(7)
    return False


while True:
    welcome = link.recv()
    assert welcome["type"] == "welcome", welcome
    count += 1
    print(f"match {count} process {process}", file=sys.stderr, flush=True)
    if mode == "refuse" and count == number:
        sys.exit(0)
    last = play(link, on_turn, seed=count)
    if last["type"] != "game_over" or not welcome.get("reuse"):
        break
    if mode == "chatter" and count == number:
        link.action(999, 0)
        print("chattered", file=sys.stderr, flush=True)
