"""The Python bot SDK: subclass :class:`Bot`, implement :meth:`Bot.choose`, call :func:`run`.

    from protocol.bot import Bot, Turn, run

    class FirstOption(Bot):
        def choose(self, turn: Turn) -> int:
            return 0

    if __name__ == "__main__":
        run(FirstOption())

``run`` reads ``ARENA_ENDPOINT`` and ``ARENA_TOKEN`` from the environment (the referee sets them),
connects a ZeroMQ DEALER (or, with ``ARENA_TRANSPORT=stdio``, uses JSON lines on stdin and
stdout), says hello, answers every ``turn`` with ``choose`` and returns after ``game_over``.
Nothing here imports the referee: bots depend on ``protocol`` only.
"""

from __future__ import annotations

import os
import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from . import codec, messages

MAX_INBOUND = 64 << 20  # what the SDK accepts from the referee (views can be large)


@dataclass(frozen=True)
class Welcome:
    """What the referee tells a bot once it has said hello."""

    match: str
    seat: int
    players: int
    game: dict[str, Any]
    limits: dict[str, int]


@dataclass(frozen=True)
class Turn:
    """One decision to make: answer with the index of one of ``options``."""

    seq: int
    kind: str
    prompt: str
    options: list[dict[str, Any]]
    view: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    clock: dict[str, int] = field(default_factory=dict)


class Bot(ABC):
    """Base class for Python bots. Only :meth:`choose` is required."""

    name: str = ""
    seat: int = -1
    welcome: Welcome | None = None

    def on_welcome(self, welcome: Welcome) -> None:
        """Called once before the first turn; the default remembers it."""
        self.welcome = welcome
        self.seat = welcome.seat

    @abstractmethod
    def choose(self, turn: Turn) -> int:
        """Return the index of the chosen option."""

    def on_game_over(self, outcome: dict[str, Any], status: str) -> None:
        """Called at the end with the outcome (scores, ranks) and this bot's status."""


def turn_from_message(msg: dict[str, Any]) -> Turn:
    return Turn(
        seq=msg["seq"],
        kind=msg["kind"],
        prompt=msg.get("prompt", ""),
        options=msg["options"],
        view=msg["view"],
        events=msg.get("events", []),
        clock=msg.get("clock", {}),
    )


class _ZmqLink:
    """A DEALER connected to the referee; one message per frame."""

    def __init__(self, endpoint: str) -> None:
        import zmq  # imported here so that offline users of Turn/Bot need no pyzmq

        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 1000)
        self.sock.connect(endpoint)

    def send(self, msg: dict[str, Any]) -> None:
        self.sock.send(codec.encode(msg))

    def recv(self) -> dict[str, Any] | None:
        return codec.decode(self.sock.recv(), max_bytes=MAX_INBOUND)

    def close(self) -> None:
        self.sock.close()
        self.ctx.term()


class _StdioLink:
    """JSON lines on stdin and stdout; ``print`` is sent to stderr so it cannot break framing."""

    def __init__(self) -> None:
        self.out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
        self.inp = sys.stdin.buffer
        sys.stdout = sys.stderr

    def send(self, msg: dict[str, Any]) -> None:
        self.out.write(codec.encode_line(msg))
        self.out.flush()

    def recv(self) -> dict[str, Any] | None:
        line = self.inp.readline()
        return codec.decode_line(line, max_bytes=MAX_INBOUND) if line else None

    def close(self) -> None:
        self.out.close()


def run(bot: Bot, endpoint: str | None = None, token: str | None = None) -> None:
    """Play one match as ``bot``; the transport, endpoint and token come from the environment.

    ``ARENA_TRANSPORT=stdio`` selects JSON lines on stdin/stdout; otherwise the bot connects to
    ``ARENA_ENDPOINT`` over ZeroMQ.
    """
    token = token if token is not None else os.environ["ARENA_TOKEN"]
    name = bot.name or os.environ.get("ARENA_BOT_NAME", "") or type(bot).__name__
    if endpoint is None and os.environ.get("ARENA_TRANSPORT") == "stdio":
        link: _ZmqLink | _StdioLink = _StdioLink()
    else:
        link = _ZmqLink(endpoint or os.environ["ARENA_ENDPOINT"])
    try:
        link.send(messages.hello(token, name))
        while (msg := link.recv()) is not None:
            kind = msg.get("type")
            if kind == "welcome":
                bot.on_welcome(
                    Welcome(msg["match"], msg["seat"], msg["players"], msg["game"], msg["limits"])
                )
            elif kind == "turn":
                choice = bot.choose(turn_from_message(msg))
                link.send(messages.action(msg["seq"], int(choice)))
            elif kind == "game_over":
                bot.on_game_over(msg["outcome"], msg["you"]["status"])
                return
            elif kind == "error":
                print(f"referee error {msg.get('code')}: {msg.get('message')}", file=sys.stderr)
                if msg.get("fatal"):
                    return
    finally:
        link.close()
