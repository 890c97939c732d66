"""A stdio bot that plays randomly, then breaks the JSON-lines framing in one chosen way.

Usage: stdio_misbehave.py MODE [--after N]
MODE: ok (never misbehaves), garbage (a line that is not JSON), unterminated (writes half a
line and exits), endless (writes a line with no end, 2 MiB and counting, then waits), chatter
(prints a line that is not a protocol message, as a careless ``print`` would), crash (exit 5
with a message on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

MODES = ("ok", "garbage", "unterminated", "endless", "chatter", "crash")


def send(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--after", type=int, default=0, help="turns played well first")
    args = parser.parse_args()
    hello = {"v": 1, "type": "hello", "versions": [1], "token": os.environ["ARENA_TOKEN"]}
    send(json.dumps({**hello, "name": f"stdio-{args.mode}"}).encode() + b"\n")
    rng = random.Random(0)
    turns = 0
    for line in sys.stdin.buffer:
        msg = json.loads(line)
        if msg["type"] == "game_over" or (msg["type"] == "error" and msg["fatal"]):
            return
        if msg["type"] != "turn":
            continue
        if turns == args.after and args.mode != "ok":
            if args.mode == "garbage":
                send(b"this is not json\n")
            elif args.mode == "unterminated":
                send(b'{"v": 1, "type": "act')
                return
            elif args.mode == "endless":
                send(b'{"v": 1, "type": "action", "info": "' + b"x" * (2 << 20))
                time.sleep(3600)
            elif args.mode == "chatter":
                send(b"thinking about my move...\n")
            elif args.mode == "crash":
                sys.stderr.write("stdio bot: giving up\n")
                sys.exit(5)
        turns += 1
        action = {"v": 1, "type": "action", "seq": msg["seq"]}
        send(json.dumps({**action, "choice": rng.randrange(len(msg["options"]))}).encode() + b"\n")


if __name__ == "__main__":
    main()
