"""A bot that floods the referee with small messages, then plays normally.

Usage: flood.py [--count N] [--after K]
On its Kth turn it first sends N stale actions (seq 0) as fast as the link takes them, then
answers the turn. It never reads while flooding, so the referee's replies pile up on its side.
"""

from __future__ import annotations

import argparse
from typing import Any

import msgpack
from _raw import Link, play


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--after", type=int, default=1)
    args = parser.parse_args()
    link = Link()
    link.hello(name="flood")
    stale = msgpack.packb({"v": 1, "type": "action", "seq": 0, "choice": 0})

    def on_turn(link: Link, turn: dict[str, Any], index: int) -> bool:
        if index == args.after:
            for _ in range(args.count):
                link.send_raw(stale)
        return False

    play(link, on_turn)


if __name__ == "__main__":
    main()
