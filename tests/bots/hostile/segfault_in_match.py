"""Plays K turns, then dies of SIGSEGV by reading address 0.

Usage: segfault_in_match.py [--after K]
"""

import argparse
import ctypes
from typing import Any

from _link import Link, play, report

parser = argparse.ArgumentParser()
parser.add_argument("--after", type=int, default=2)
args = parser.parse_args()


def on_turn(link: Link, turn: dict[str, Any], index: int) -> bool:
    if index == args.after:
        report("segfault", "now")
        ctypes.string_at(0)
    return False


link = Link()
link.hello(name="segfault")
play(link, on_turn)
