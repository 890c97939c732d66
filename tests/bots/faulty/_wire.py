"""The wire under the faulty bots: hello, then each turn handed to a bot's ``answer`` function.

Written against the protocol directly (not the SDK) so a bot can send exactly the broken message
it is meant to send. Speaks ZeroMQ or stdio JSON lines, as ``ARENA_TRANSPORT`` says, so the same
bots check both transports. ``answer(turn, count)`` returns the messages to send for one turn;
``count`` is how many turns came before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from protocol import codec, messages

Message = dict[str, Any]
Answer = Callable[[Message, int], list[Message]]


def action(seq: Any, choice: Any) -> Message:
    """An action with any field values, right or wrong (``None`` leaves the field out)."""
    msg: Message = {"v": 1, "type": "action"}
    if seq is not None:
        msg["seq"] = seq
    if choice is not None:
        msg["choice"] = choice
    return msg


def play(answer: Answer) -> None:
    if os.environ.get("ARENA_TRANSPORT") == "stdio":
        out = sys.stdout.buffer

        def send(msg: Message) -> None:
            out.write(codec.encode_line(msg))
            out.flush()

        def receive() -> Message | None:
            line = sys.stdin.buffer.readline()
            return codec.decode_line(line, 64 << 20) if line else None

    else:
        import zmq

        sock = zmq.Context().socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 1000)
        sock.connect(os.environ["ARENA_ENDPOINT"])

        def send(msg: Message) -> None:
            sock.send(codec.encode(msg))

        def receive() -> Message | None:
            return codec.decode(sock.recv(), 64 << 20)

    send(messages.hello(os.environ["ARENA_TOKEN"], os.environ.get("ARENA_BOT_NAME", "faulty")))
    turns = 0
    while (msg := receive()) is not None:
        if msg["type"] == "game_over" or (msg["type"] == "error" and msg["fatal"]):
            return
        if msg["type"] == "turn":
            for reply in answer(msg, turns):
                send(reply)
            turns += 1
