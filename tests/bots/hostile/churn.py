"""Opens and closes connections to its own socket over and over, sending nothing large.

Usage: churn.py [--after K] [--count N]
On its Kth turn it opens a second DEALER, sends one stale action on it and closes it, N times,
then answers. A drop followed by a new connection once read as an oversized frame: this is
churn, and must be named so.
"""

from __future__ import annotations

import argparse
from typing import Any

from _link import Link, play


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--after", type=int, default=1)
    parser.add_argument("--count", type=int, default=20)
    args = parser.parse_args()
    link = Link()
    link.hello(name="churn")

    def on_turn(link: Link, turn: dict[str, Any], index: int) -> bool:
        if index == args.after:
            for _ in range(args.count):
                other = Link()
                other.action(0, 0)
                other.sock.close(linger=200)
                other.ctx.term()
        return False

    play(link, on_turn)


if __name__ == "__main__":
    main()
