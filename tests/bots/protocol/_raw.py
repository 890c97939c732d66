"""Shared by the protocol-level hostile bots: a raw link to the referee and a play loop.

The bots here break protocol v1 on purpose, so they do not use ``protocol.bot``: they send raw
frames (``Link.send_raw``) or maps packed without any checks (``Link.send``), over ZeroMQ or,
when ``ARENA_TRANSPORT`` is ``pipe``, over stdin and stdout (each frame after its 4-byte
length). ``play`` answers every turn with a seeded random legal choice unless a hook takes the
turn over.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable
from typing import Any

import msgpack

INBOUND_LIMIT = 64 << 20

# called with (link, turn message, index of this turn); returns True when it answered itself
TurnHook = Callable[["Link", dict[str, Any], int], bool]


class Link:
    """A DEALER connected to ``ARENA_ENDPOINT``, or the pipe transport's stdin and stdout."""

    def __init__(self) -> None:
        self.pipe = os.environ.get("ARENA_TRANSPORT") == "pipe"
        if self.pipe:
            self.out = os.fdopen(os.dup(1), "wb")
            self.inp = sys.stdin.buffer
            sys.stdout = sys.stderr
        else:
            import zmq

            self.ctx = zmq.Context()
            self.sock = self.ctx.socket(zmq.DEALER)
            self.sock.setsockopt(zmq.LINGER, 1000)
            self.sock.connect(os.environ["ARENA_ENDPOINT"])
        self.token = os.environ["ARENA_TOKEN"]
        self.limits: dict[str, int] = {}

    def send(self, msg: Any) -> None:
        """Pack anything, valid or not (non-str keys, floats, bin, ...), as one frame."""
        self.send_raw(msgpack.packb(msg, use_bin_type=True))

    def send_raw(self, *frames: bytes) -> None:
        """One message of these frames (ZeroMQ), or each frame as a message (pipe)."""
        if self.pipe:
            self.write(b"".join(len(f).to_bytes(4, "big") + f for f in frames))
        else:
            self.sock.send_multipart(list(frames))

    def write(self, data: bytes) -> None:
        """Raw bytes on the pipe, framed or not."""
        self.out.write(data)
        self.out.flush()

    def recv(self) -> dict[str, Any]:
        if self.pipe:
            head = self.inp.read(4)
            if len(head) < 4:
                raise SystemExit(0)
            data = self.inp.read(int.from_bytes(head, "big"))
        else:
            data = self.sock.recv()
        return msgpack.unpackb(data, raw=False, strict_map_key=False)

    def hello(self, **fields: Any) -> None:
        msg = {"v": 1, "type": "hello", "versions": [1], "token": self.token, "name": "raw"}
        msg.update(fields)
        self.send(msg)

    def action(self, seq: int, choice: int, **fields: Any) -> None:
        self.send({"v": 1, "type": "action", "seq": seq, "choice": choice, **fields})


def play(link: Link, on_turn: TurnHook | None = None, seed: int = 0) -> dict[str, Any]:
    """Answer turns until game_over or a fatal error; return that last message."""
    rng = random.Random(seed)
    turns = 0
    while True:
        msg = link.recv()
        kind = msg.get("type")
        if kind == "welcome":
            link.limits = msg["limits"]
        elif kind == "game_over" or (kind == "error" and msg.get("fatal")):
            return msg
        elif kind == "turn":
            if on_turn is None or not on_turn(link, msg, turns):
                link.action(msg["seq"], rng.randrange(len(msg["options"])))
            turns += 1
