"""Answers its Kth turn exactly MS milliseconds after it arrived (others at once).

Usage: timed.py --answer-ms MS [--after K]   (either transport)
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from _link import Link, play


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answer-ms", type=int, required=True)
    parser.add_argument("--after", type=int, default=1)
    args = parser.parse_args()
    link = Link()
    link.hello(name="timed")

    def on_turn(link: Link, turn: dict[str, Any], index: int) -> bool:
        if index == args.after:
            time.sleep(args.answer_ms / 1000)
        return False

    play(link, on_turn)


if __name__ == "__main__":
    main()
