"""Tries to answer for its seat from a connection that does not own it.

Usage: spoof.py routing_id|second
routing_id: its own connection sets a chosen routing id, and a second connection claims the
same id; second: a plain second connection. Either way the second connection answers every
turn first, with an out-of-range choice: if the referee took it for the seat's, the seat would
be ruled ``illegal_action``. The first connection plays properly, a moment later.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from _link import Link, play


def main() -> None:
    routing_id = b"seat-owner" if sys.argv[1] == "routing_id" else None
    link = Link(routing_id=routing_id)
    link.hello(name="spoof")
    time.sleep(0.2)  # the hello is in: the first connection owns the seat
    impostor = Link(routing_id=routing_id)

    def on_turn(link: Link, turn: dict[str, Any], index: int) -> bool:
        impostor.action(turn["seq"], 999)
        time.sleep(0.01)  # the impostor's answer arrives first
        return False

    play(link, on_turn)


if __name__ == "__main__":
    main()
