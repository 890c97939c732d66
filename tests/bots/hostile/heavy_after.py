"""Sends heavy messages after every answer: a valid action, then N stale 1 MiB ones.

Usage: heavy_after.py [--count N]
"""

from __future__ import annotations

import argparse
from typing import Any

import msgpack
from _link import Link, heavy, play


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=4)
    args = parser.parse_args()
    link = Link()
    link.hello(name="heavy-after")
    packed = msgpack.packb(heavy())

    def on_turn(link: Link, turn: dict[str, Any], index: int) -> bool:
        link.action(turn["seq"], 0)
        for _ in range(args.count):
            link.send_packed(packed)
        return True

    play(link, on_turn)


if __name__ == "__main__":
    main()
