"""The Python bot SDK: subclass :class:`Bot`, implement :meth:`Bot.choose`, call :func:`run`.

    from protocol.bot import Bot, Turn, run

    class FirstOption(Bot):
        def choose(self, turn: Turn) -> int:
            return 0

    if __name__ == "__main__":
        run(FirstOption())

``run`` reads ``ARENA_ENDPOINT`` and ``ARENA_TOKEN`` from the environment (the referee sets them),
connects a ZeroMQ DEALER (or, with ``ARENA_TRANSPORT=pipe`` or ``stdio``, uses its stdin and
stdout: length-prefixed msgpack or JSON lines), says hello, answers every ``turn`` with
``choose`` and returns after ``game_over``.
A bot whose class sets ``reusable = True`` offers to play several matches in one process
(``hello.reuse``, PROTOCOL.md section 10.1): when the referee accepts, ``run`` waits after each
``game_over`` for the next ``welcome``, and ``on_welcome`` must reset everything per match.
A bot whose class sets ``deltas = True`` offers views as deltas (``hello.deltas``, PROTOCOL.md
section 8.5): ``run`` rebuilds the full view before ``choose`` sees it, and a kept process's
game data sent once is filled into each ``Welcome.game``. The promise it makes: ``turn.view``
is a fresh map each turn, but the values the referee did not resend are the very objects of the
previous turn's view (and ``Welcome.game["data"]`` those of the previous welcome); the bot must
not change them in place (copy a list before sorting it, for example).

Speed matters here: a bot's start-up is paid once per match and its decoding once per decision.
So the SDK imports only what it needs (no dataclasses; ZeroMQ only when it connects) and
trusts what the referee sends: it unpacks with plain msgpack, without the depth and key walk
that the referee applies to everything a bot sends. Nothing here imports the referee: bots
depend on ``protocol`` only.
"""

from __future__ import annotations

import json
import os
import sys
from abc import ABC, abstractmethod
from typing import Any

import msgpack

from . import codec, messages

MAX_INBOUND = 64 << 20  # what the SDK accepts from the referee (views can be large)


class Welcome:
    """What the referee tells a bot at the start of each match (once it has said hello)."""

    __slots__ = ("game", "limits", "match", "players", "reuse", "seat")

    def __init__(
        self,
        match: str,
        seat: int,
        players: int,
        game: dict[str, Any],
        limits: dict[str, int],
        reuse: bool = False,
    ) -> None:
        self.match = match
        self.seat = seat
        self.players = players
        self.game = game
        self.limits = limits
        self.reuse = reuse  # the process is kept for another match after game_over


class Turn:
    """One decision to make: answer with the index of one of ``options``. A bot may set
    ``info`` to a short note on its choice (sent as ``action.info``, kept in the replay)."""

    __slots__ = ("clock", "events", "info", "kind", "options", "prompt", "seq", "view")

    def __init__(
        self,
        seq: int,
        kind: str,
        prompt: str,
        options: list[dict[str, Any]],
        view: dict[str, Any],
        events: list[dict[str, Any]] | None = None,
        clock: dict[str, int] | None = None,
    ) -> None:
        self.seq = seq
        self.kind = kind
        self.prompt = prompt
        self.options = options
        self.view = view
        self.events = [] if events is None else events
        self.clock = {} if clock is None else clock
        self.info = ""


class Bot(ABC):
    """Base class for Python bots. Only :meth:`choose` is required."""

    name: str = ""
    seat: int = -1
    welcome: Welcome | None = None
    reusable: bool = False  # True: on_welcome resets all per-match state (see run)
    deltas: bool = False  # True: views as deltas; never changes what turn.view holds (see run)
    final_view: dict[str, Any] | None = None  # game_over's view, whole: set before on_game_over

    def on_welcome(self, welcome: Welcome) -> None:
        """Called before the first turn of each match; the default remembers it."""
        self.welcome = welcome
        self.seat = welcome.seat

    @abstractmethod
    def choose(self, turn: Turn) -> int:
        """Return the index of the chosen option."""

    def on_game_over(self, outcome: dict[str, Any], status: str) -> None:
        """Called at the end with the outcome (scores, ranks) and this bot's status; the last
        view of the match, the cards shown at the end included, is ``self.final_view``."""


def turn_from_message(msg: dict[str, Any]) -> Turn:
    return Turn(
        msg["seq"],
        msg["kind"],
        msg.get("prompt", ""),
        msg["options"],
        msg["view"],
        msg.get("events"),
        msg.get("clock"),
    )


def welcome_from_message(msg: dict[str, Any]) -> Welcome:
    return Welcome(
        msg["match"],
        msg["seat"],
        msg["players"],
        msg["game"],
        msg["limits"],
        msg.get("reuse") is True,
    )


class _ZmqLink:
    """A DEALER connected to the referee; one message per frame, unpacked as trusted."""

    def __init__(self, endpoint: str) -> None:
        import zmq  # here, so that stdio bots and offline users of Turn/Bot need no pyzmq

        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 1000)
        self.sock.setsockopt(zmq.MAXMSGSIZE, MAX_INBOUND)
        self.sock.connect(endpoint)

    def send(self, msg: dict[str, Any]) -> None:
        self.sock.send(codec.encode(msg))

    def recv(self) -> dict[str, Any] | None:
        msg: dict[str, Any] | None = msgpack.unpackb(self.sock.recv())
        return msg

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
        line = self.inp.readline(MAX_INBOUND)
        return json.loads(line) if line else None

    def close(self) -> None:
        self.out.close()


class _PipeLink(_StdioLink):
    """Length-prefixed msgpack on stdin and stdout (the ``pipe`` transport)."""

    def send(self, msg: dict[str, Any]) -> None:
        self.out.write(codec.frame(msg))
        self.out.flush()

    def recv(self) -> dict[str, Any] | None:
        head = self.inp.read(codec.HEADER.size)
        if len(head) < codec.HEADER.size:
            return None
        (size,) = codec.HEADER.unpack(head)
        if size > MAX_INBOUND:
            raise ValueError(f"a referee message of {size} bytes, over {MAX_INBOUND}")
        message: dict[str, Any] = msgpack.unpackb(self.inp.read(size))
        return message


_LINKS = {"stdio": _StdioLink, "pipe": _PipeLink}


class Views:
    """A bot's side of protocol 1.2 (PROTOCOL.md 8.5): the last full view of its match, kept
    up to date from deltas, and the game data of its last welcome."""

    __slots__ = ("data", "last")

    def __init__(self) -> None:
        self.last: dict[str, Any] = {}
        self.data: Any = None

    def welcome(self, msg: dict[str, Any]) -> None:
        """A new match: no view yet; ``game.same`` stands for the last welcome's data."""
        self.last = {}
        game = msg["game"]
        if game.get("same") is True:
            msg["game"] = {key: value for key, value in game.items() if key != "same"}
            msg["game"]["data"] = self.data
        else:
            self.data = game.get("data")

    def view(self, msg: dict[str, Any]) -> dict[str, Any]:
        """The full view of a ``turn`` or ``game_over``: a fresh map, never the one kept here."""
        if "dropped" not in msg:  # a whole view (deltas were not accepted)
            view: dict[str, Any] = msg["view"]
            return view
        last = self.last
        for key in msg["dropped"]:
            last.pop(key, None)
        last.update(msg["view"])
        return dict(last)


def run(bot: Bot, endpoint: str | None = None, token: str | None = None) -> None:
    """Play as ``bot`` until the last ``game_over``; transport, endpoint and token come from the
    environment.

    ``ARENA_TRANSPORT=pipe`` selects length-prefixed msgpack on stdin/stdout, ``stdio`` JSON
    lines there; otherwise the bot connects to ``ARENA_ENDPOINT`` over ZeroMQ. One match,
    unless ``bot.reusable`` and the referee's ``welcome`` says the process is kept
    (``reuse``): then the next match starts with a new ``welcome`` on the same connection,
    and the process ends when the referee stops it (or, over pipes, closes its stdin).
    """
    token = token if token is not None else os.environ["ARENA_TOKEN"]
    name = bot.name or os.environ.get("ARENA_BOT_NAME", "") or type(bot).__name__
    transport = os.environ.get("ARENA_TRANSPORT", "zmq")
    if endpoint is None and transport in _LINKS:
        link: _ZmqLink | _StdioLink = _LINKS[transport]()
    else:
        link = _ZmqLink(endpoint or os.environ["ARENA_ENDPOINT"])
    reuse = False
    views = Views()
    try:
        link.send(messages.hello(token, name, reuse=bot.reusable, deltas=bot.deltas))
        while (msg := link.recv()) is not None:
            kind = msg.get("type")
            if kind == "turn":
                msg["view"] = views.view(msg)
                turn = turn_from_message(msg)
                choice = bot.choose(turn)
                link.send(messages.action(msg["seq"], int(choice), str(turn.info)))
            elif kind == "welcome":
                views.welcome(msg)
                welcome = welcome_from_message(msg)
                reuse = bot.reusable and welcome.reuse
                bot.on_welcome(welcome)
            elif kind == "game_over":
                bot.final_view = views.view(msg)
                bot.on_game_over(msg["outcome"], msg["you"]["status"])
                if not reuse:
                    return
            elif kind == "error":
                print(f"referee error {msg.get('code')}: {msg.get('message')}", file=sys.stderr)
                if msg.get("fatal"):
                    return
    finally:
        link.close()
