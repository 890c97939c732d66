"""A bot that plays randomly but answers its Nth turn (``--after N``) with one bad message.

Usage: bad_answer.py VARIANT [--after N]

Malformed frames: c1 (a byte msgpack never uses), truncated (a map cut short), trailing (bytes
after the map), deep (100 000 nested arrays), array32 (claims 2**32-1 items), bad_utf8 (a str
that is not UTF-8), ext (an ext type), multipart (the answer split over two frames),
oversized (a frame of 2 MiB).
Wrong types: float, bin, uint64, none, list (as the choice), no_seq, int_keys (non-str keys).
Other: illegal (a choice past the options), late (answers after its deadline, during the next
turn), duplicate (answers twice), unsolicited (an action before hello and one before any turn),
close (closes its socket or stdout, then takes 500 ms to exit with code 3: a crash, not an
oversized frame).
Pipe only: half (a length and half the message it announces, then silence), half_exit (the
same, then it exits with code 0), header (two bytes of a length, then silence), endless (a
length of 4 GiB, then zeros as fast as the pipe takes them).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import msgpack
from _raw import Link, play

GOOD = {"v": 1, "type": "action"}


def packed(msg: Any) -> bytes:
    return msgpack.packb(msg, use_bin_type=True)


def frames(variant: str, seq: int) -> list[bytes]:
    """The raw frames of a malformed answer to turn ``seq``."""
    answer = packed({**GOOD, "seq": seq, "choice": 0})
    return {
        "c1": [b"\xc1"],
        "truncated": [answer[:-3]],
        "trailing": [answer + b"\x00"],
        "deep": [b"\x91" * 100_000 + b"\x00"],
        "array32": [b"\xdd\xff\xff\xff\xff"],
        "bad_utf8": [
            b"\x84\xa1v\x01\xa4type\xa6action\xa3seq" + packed(seq) + b"\xa6choice\xa2\xff\xfe"
        ],
        "ext": [packed({**GOOD, "seq": seq, "choice": msgpack.ExtType(5, b"\x00")})],
        "multipart": [answer[:4], answer[4:]],
        "oversized": [b"\x81\xa1v\xc6" + (2 << 20).to_bytes(4, "big") + b"\x00" * (2 << 20)],
    }[variant]


WRONG_TYPES: dict[str, Any] = {
    "float": lambda seq: {**GOOD, "seq": seq, "choice": 0.0},
    "bin": lambda seq: {**GOOD, "seq": seq, "choice": b"\x00"},
    "uint64": lambda seq: {**GOOD, "seq": seq, "choice": (1 << 64) - 1},
    "none": lambda seq: {**GOOD, "seq": seq, "choice": None},
    "list": lambda seq: {**GOOD, "seq": seq, "choice": [0]},
    "no_seq": lambda seq: {**GOOD, "choice": 0},
    "int_keys": lambda seq: {**GOOD, "seq": seq, "choice": 0, 1: 2},
}
MALFORMED = ("c1", "truncated", "trailing", "deep", "array32", "bad_utf8", "ext", "multipart")
VARIANTS = (
    *MALFORMED,
    "oversized",
    *WRONG_TYPES,
    "illegal",
    "late",
    "duplicate",
    "unsolicited",
    "close",
    "half",
    "half_exit",
    "header",
    "endless",
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("variant", choices=VARIANTS)
    parser.add_argument("--after", type=int, default=2, help="turns answered well first")
    args = parser.parse_args()
    variant = args.variant
    link = Link()
    if variant == "unsolicited":
        link.action(1, 0)  # before hello
    link.hello(name=f"bad-{variant}")
    if variant == "unsolicited":
        welcome = link.recv()
        link.limits = welcome.get("limits", {})
        link.action(1_000_000, 0)  # before any turn, and a seq never issued

    def on_turn(link: Link, turn: dict[str, Any], index: int) -> bool:
        if index != args.after:
            return False
        seq = turn["seq"]
        if variant in WRONG_TYPES:
            link.send(WRONG_TYPES[variant](seq))
        elif variant == "illegal":
            link.action(seq, len(turn["options"]))
        elif variant == "late":
            limits = link.limits
            time.sleep((limits["move_ms"] + limits["bank_ms"] + limits["grace_ms"] + 300) / 1000)
            link.action(seq, 0)  # the referee has moved on: this one is stale
        elif variant == "duplicate":
            link.action(seq, 0)
            link.action(seq, 0)
        elif variant == "unsolicited":
            return False
        elif variant == "close":
            if link.pipe:
                link.out.close()
            else:
                link.sock.close(linger=0)
            time.sleep(0.5)
            os._exit(3)
        elif variant == "endless":
            link.write(b"\xff\xff\xff\xff")
            zeros = bytes(1 << 16)
            while True:
                link.write(zeros)
        elif variant in ("half", "half_exit", "header"):
            answer = packed({**GOOD, "seq": seq, "choice": 0})
            framed = len(answer).to_bytes(4, "big") + answer
            link.write(framed[:2] if variant == "header" else framed[: 4 + len(answer) // 2])
            if variant == "half_exit":
                os._exit(0)
            time.sleep(3600)
        else:
            link.send_raw(*frames(variant, seq))
        return True

    play(link, on_turn)


if __name__ == "__main__":
    main()
