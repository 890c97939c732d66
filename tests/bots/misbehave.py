"""A bot that plays randomly, then misbehaves in one chosen way on its Nth turn.

Usage: misbehave.py MODE [--after N]
MODE: crash (exit code 3), abort (SIGABRT), hang (sleeps forever), spin (burns CPU forever
without answering), garbage (bytes that are not
msgpack), bad_field (choice as a string), illegal (an index past the options), illegal_always
(the same on every turn from the Nth on), stale (answers with an old seq, then correctly),
slow (sleeps move_ms * 1.5 before every answer, so each answer draws on its bank), silent
(never says hello).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

import zmq

from protocol import codec, messages

MODES = (
    "crash",
    "abort",
    "hang",
    "spin",
    "garbage",
    "bad_field",
    "illegal",
    "illegal_always",
    "stale",
    "slow",
    "silent",
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--after", type=int, default=0, help="turns played well first")
    args = parser.parse_args()
    if args.mode == "silent":
        time.sleep(3600)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 1000)
    sock.connect(os.environ["ARENA_ENDPOINT"])
    sock.send(codec.encode(messages.hello(os.environ["ARENA_TOKEN"], f"misbehave-{args.mode}")))
    rng = random.Random(0)
    turns = 0
    move_ms = 1000
    while True:
        msg = codec.decode(sock.recv(), max_bytes=64 << 20)
        if msg["type"] == "welcome":
            move_ms = msg["limits"]["move_ms"]
        if msg["type"] == "game_over" or (msg["type"] == "error" and msg["fatal"]):
            return
        if msg["type"] != "turn":
            continue
        seq, n = msg["seq"], len(msg["options"])
        if args.mode == "slow":
            time.sleep(move_ms * 1.5 / 1000)
        if args.mode == "illegal_always" and turns >= args.after:
            sock.send(codec.encode(messages.action(seq, n)))
            continue
        if turns == args.after:
            if args.mode == "crash":
                sys.stderr.write("misbehave: crashing on purpose\n")
                os._exit(3)
            if args.mode == "abort":
                os.abort()
            if args.mode == "hang":
                time.sleep(3600)
            while args.mode == "spin":
                pass
            if args.mode == "garbage":
                sock.send(b"\xc1 this is not msgpack")
                continue
            if args.mode == "bad_field":
                sock.send(codec.encode({"v": 1, "type": "action", "seq": seq, "choice": "0"}))
                continue
            if args.mode == "illegal":
                sock.send(codec.encode(messages.action(seq, n)))
                continue
            if args.mode == "stale":
                sock.send(codec.encode(messages.action(seq - 1, 0)))
        turns += 1
        sock.send(codec.encode(messages.action(seq, rng.randrange(n))))


if __name__ == "__main__":
    main()
