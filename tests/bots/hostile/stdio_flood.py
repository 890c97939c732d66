"""A bot on its stdin and stdout (stdio or pipe) that floods stale actions and never reads.

Usage: stdio_flood.py [--count N]
Each stale action earns a non-fatal error from the referee, which the bot never reads: without
a bound the referee's outbox grows for as long as the flood lasts.
"""

from __future__ import annotations

import argparse
import json
import os

import msgpack

parser = argparse.ArgumentParser()
parser.add_argument("--count", type=int, default=1_000_000)
args = parser.parse_args()
hello = {"v": 1, "type": "hello", "versions": [1], "token": os.environ["ARENA_TOKEN"], "name": "f"}
stale = {"v": 1, "type": "action", "seq": 0, "choice": 0}
if os.environ.get("ARENA_TRANSPORT") == "pipe":
    hello_bytes, stale_bytes = (
        len(packed).to_bytes(4, "big") + packed for packed in map(msgpack.packb, (hello, stale))
    )
else:
    hello_bytes, stale_bytes = (json.dumps(msg).encode() + b"\n" for msg in (hello, stale))
out = os.fdopen(1, "wb")
out.write(hello_bytes)
for _ in range(args.count):
    try:
        out.write(stale_bytes)
    except BrokenPipeError:
        break
out.flush()
