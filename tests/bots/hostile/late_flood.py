"""Answers one turn late while keeping the referee busy with messages (below the flood caps).

Usage: late_flood.py [--after K] [--flood N] [--late-ms MS] [--heavy]
On its Kth turn it sends N stale actions spread over the wait (1 MiB ones with ``--heavy``),
then answers MS milliseconds after the turn arrived. An answer past move_ms + bank + grace must
be ruled late however busy the referee was, never accepted as merely ``slow``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from _link import Link, heavy, play


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--after", type=int, default=1)
    parser.add_argument("--flood", type=int, default=20)
    parser.add_argument("--late-ms", type=int, default=3000)
    parser.add_argument("--heavy", action="store_true")
    args = parser.parse_args()
    link = Link()
    link.hello(name="late-flood")

    def on_turn(link: Link, turn: dict[str, Any], index: int) -> bool:
        if index != args.after:
            return False
        started = time.monotonic()
        pause = args.late_ms / 1000 / (args.flood + 1)
        for _ in range(args.flood):
            link.send(
                heavy(link.stdio)
                if args.heavy
                else {"v": 1, "type": "action", "seq": 0, "choice": 0}
            )
            time.sleep(pause)
        time.sleep(max(0.0, started + args.late_ms / 1000 - time.monotonic()))
        link.action(turn["seq"], 0)
        return True

    play(link, on_turn)


if __name__ == "__main__":
    main()
