"""The Python bot SDK: subclass :class:`Bot`, implement :meth:`Bot.choose`, call :func:`run`.

    from protocol.bot import Bot, Turn, run

    class FirstOption(Bot):
        def choose(self, turn: Turn) -> int:
            return 0

    if __name__ == "__main__":
        run(FirstOption())

``run`` reads ``ARENA_ENDPOINT`` and ``ARENA_TOKEN`` from the environment (the referee sets them),
connects a ZeroMQ DEALER, says hello, answers every ``turn`` with ``choose`` and returns after
``game_over``. Nothing here imports the referee: bots depend on ``protocol`` only.
"""

from __future__ import annotations

import os
import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from . import codec, messages


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


def run(bot: Bot, endpoint: str | None = None, token: str | None = None) -> None:
    """Play one match as ``bot`` against the referee at ``endpoint`` (default: from the env)."""
    import zmq  # imported here so that offline users of Turn/Bot need no pyzmq

    endpoint = endpoint or os.environ["ARENA_ENDPOINT"]
    token = token if token is not None else os.environ["ARENA_TOKEN"]
    name = bot.name or os.environ.get("ARENA_BOT_NAME", "") or type(bot).__name__
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 1000)
    sock.connect(endpoint)
    try:
        sock.send(codec.encode(messages.hello(token, name)))
        while True:
            msg = codec.decode(sock.recv(), max_bytes=64 << 20)
            kind = msg.get("type")
            if kind == "welcome":
                bot.on_welcome(
                    Welcome(msg["match"], msg["seat"], msg["players"], msg["game"], msg["limits"])
                )
            elif kind == "turn":
                choice = bot.choose(turn_from_message(msg))
                sock.send(codec.encode(messages.action(msg["seq"], int(choice))))
            elif kind == "game_over":
                bot.on_game_over(msg["outcome"], msg["you"]["status"])
                return
            elif kind == "error":
                print(f"referee error {msg.get('code')}: {msg.get('message')}", file=sys.stderr)
                if msg.get("fatal"):
                    return
    finally:
        sock.close()
        ctx.term()
