"""A stdio bot that floods stale actions and never reads its stdin.

Usage: stdio_flood.py [--count N]
Each stale action earns a non-fatal error from the referee, which the bot never reads: without
a bound the referee's outbox grows for as long as the flood lasts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--count", type=int, default=1_000_000)
args = parser.parse_args()
hello = {"v": 1, "type": "hello", "versions": [1], "token": os.environ["ARENA_TOKEN"], "name": "f"}
stale = json.dumps({"v": 1, "type": "action", "seq": 0, "choice": 0}) + "\n"
out = sys.stdout
out.write(json.dumps(hello) + "\n")
for _ in range(args.count):
    try:
        out.write(stale)
    except BrokenPipeError:
        break
out.flush()
