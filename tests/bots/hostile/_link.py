"""Shared by the referee-integrity bots: a raw link to the referee and a play loop with hooks.

These bots attack the referee itself (its descriptors, its clock, its reading loop), so they
speak the protocol without any checks: ``Link.send`` packs any map, over ZeroMQ (a DEALER on
``ARENA_ENDPOINT``), pipe (length-prefixed msgpack) or stdio (JSON lines), whichever
``ARENA_TRANSPORT`` says. ``play`` answers
every turn with a seeded random legal choice unless a hook takes the turn over.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Callable
from typing import Any

# called with (link, turn message, index of this turn); returns True when it answered itself
TurnHook = Callable[["Link", dict[str, Any], int], bool]


class Link:
    """The bot's end: a DEALER connected to ``ARENA_ENDPOINT``, or stdin and stdout."""

    def __init__(self, endpoint: str | None = None, routing_id: bytes | None = None) -> None:
        self.stdio = os.environ.get("ARENA_TRANSPORT") == "stdio"
        self.pipe = os.environ.get("ARENA_TRANSPORT") == "pipe"
        self.token = os.environ["ARENA_TOKEN"]
        self.seat = -1
        self.limits: dict[str, int] = {}
        if self.pipe:
            self.out = os.fdopen(os.dup(1), "wb")
            sys.stdout = sys.stderr
        elif not self.stdio:
            import zmq

            self.ctx = zmq.Context()
            self.sock = self.ctx.socket(zmq.DEALER)
            self.sock.setsockopt(zmq.LINGER, 1000)
            if routing_id is not None:
                self.sock.setsockopt(zmq.ROUTING_ID, routing_id)
            self.sock.connect(endpoint or os.environ["ARENA_ENDPOINT"])

    def send(self, msg: dict[str, Any]) -> None:
        if self.stdio:
            sys.stdout.write(json.dumps(msg, separators=(",", ":")) + "\n")
            sys.stdout.flush()
        else:
            import msgpack

            self.send_packed(msgpack.packb(msg, use_bin_type=True))

    def send_packed(self, data: bytes) -> None:
        """A message already packed with msgpack (ZeroMQ or pipe)."""
        if self.pipe:
            self.out.write(len(data).to_bytes(4, "big") + data)
            self.out.flush()
        else:
            self.sock.send(data)

    def recv(self) -> dict[str, Any]:
        if self.stdio:
            line = sys.stdin.readline()
            if not line:
                raise SystemExit(0)
            return json.loads(line)
        import msgpack

        if self.pipe:
            head = sys.stdin.buffer.read(4)
            if len(head) < 4:
                raise SystemExit(0)
            data = sys.stdin.buffer.read(int.from_bytes(head, "big"))
        else:
            data = self.sock.recv()
        return msgpack.unpackb(data, raw=False, strict_map_key=False)

    def hello(self, **fields: Any) -> None:
        msg = {"v": 1, "type": "hello", "versions": [1], "token": self.token, "name": "raw"}
        self.send({**msg, **fields})

    def action(self, seq: int, choice: int, **fields: Any) -> None:
        self.send({"v": 1, "type": "action", "seq": seq, "choice": choice, **fields})


def heavy(stdio: bool = False) -> dict[str, Any]:
    """A valid stale action of just under 1 MiB (msgpack, or a compact JSON line), slow to
    decode: thousands of small arrays of ints."""
    rows = 7_800 if stdio else 15_850
    return {"v": 1, "type": "action", "seq": 0, "choice": 0, "pad": [[7] * 63] * rows}


def play(link: Link, on_turn: TurnHook | None = None, seed: int = 0) -> dict[str, Any]:
    """Answer turns until game_over or a fatal error; return that last message."""
    rng = random.Random(seed)
    turns = 0
    while True:
        msg = link.recv()
        kind = msg.get("type")
        if kind == "welcome":
            link.limits, link.seat = msg["limits"], msg["seat"]
        elif kind == "game_over" or (kind == "error" and msg.get("fatal")):
            return msg
        elif kind == "turn":
            if on_turn is None or not on_turn(link, msg, turns):
                link.action(msg["seq"], rng.randrange(len(msg["options"])))
            turns += 1


def report(name: str, outcome: str) -> None:
    """One ``ATTACK name: outcome`` line on stderr (the referee keeps the tail of it)."""
    sys.stderr.write(f"ATTACK {name}: {outcome}\n")
    sys.stderr.flush()
