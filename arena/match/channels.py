"""The referee's end of one bot's connection: ZeroMQ or stdio, the same messages either way.

A channel turns what arrives from a bot into :class:`Inbound` items (a checked message, or the
protocol error it broke) and sends referee messages. The referee polls every channel's
``handles`` in one ``zmq.Poller`` beside the bots' pidfds and calls :meth:`Channel.receive` for
the ones that are ready, so neither transport can block the match.

* ZeroMQ: one ROUTER per bot on its own ``ipc://`` socket file. The first connection to speak
  owns the seat; anything from another connection is ``unexpected``. A socket monitor
  watches connections: libzmq drops a connection that sends a frame over ``MAXMSGSIZE`` and
  the bot's DEALER connects again at once, so a drop followed by a new connection is ruled
  ``too_large`` (a bot that just closes its socket does not come back: its exit or its clock
  rules it).
* stdio: JSON lines on the bot's stdin and stdout pipes. A line longer than the message limit is
  ``too_large`` as soon as that many bytes are buffered (the referee never waits for its end),
  and output that ends without a newline is ``malformed``.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from typing import Any

import zmq
from zmq.utils.monitor import recv_monitor_message

from protocol import codec, messages
from protocol.codec import ProtocolError

RCVHWM = 64
EXCERPT_CHARS = 300
READ_CHUNK = 1 << 16
BATCH = 256  # messages taken from one socket per wake, so a flooding bot cannot starve others


@dataclass
class Inbound:
    """One message from a bot: ``msg`` when it is valid, else ``error``; ``excerpt`` for reports."""

    msg: dict[str, Any] | None
    error: ProtocolError | None
    excerpt: str
    foreign: bool = False  # from a ZeroMQ connection other than the one that said hello


def excerpt(data: object) -> str:
    """A short printable rendering of what a bot sent (JSON for a decoded message, a msgpack
    bin as ``<bin 'text'>`` or ``<bin 0x...>``, raw bytes as text or hex), safe for logs."""
    if isinstance(data, dict):
        text = json.dumps(data, ensure_ascii=False, default=_bin, separators=(", ", ": "))
    elif isinstance(data, bytes):
        text = messages.show_bytes(data)
    else:
        text = repr(data)
    return printable(text, EXCERPT_CHARS)


def _bin(data: bytes) -> str:
    return "<bin " + messages.show_bytes(data, quote="'") + ">"


def printable(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, every control or format character made ``?``."""
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return "".join(c if c.isprintable() else "?" for c in text)


def _check(payload: bytes, decode: Any, max_bytes: int) -> Inbound:
    """Decode and validate; the excerpt shows the message as decoded when it could be."""
    try:
        decoded = decode(payload, max_bytes)
    except ProtocolError as exc:
        return Inbound(None, exc, excerpt(payload[:EXCERPT_CHARS]))
    try:
        msg = messages.check_bot_message(decoded)
    except ProtocolError as exc:
        return Inbound(None, exc, excerpt(decoded))
    return Inbound(msg, None, excerpt(msg))


class ZmqChannel:
    """A ROUTER bound to ``ipc://{path}``, with a monitor for dropped connections."""

    transport = "zmq"

    def __init__(self, ctx: zmq.Context, path: str, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.endpoint = f"ipc://{path}"
        self.socket = ctx.socket(zmq.ROUTER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self.socket.setsockopt(zmq.MAXMSGSIZE, max_bytes)
        self.socket.setsockopt(zmq.RCVHWM, RCVHWM)
        events = zmq.EVENT_DISCONNECTED | zmq.EVENT_ACCEPTED
        self.monitor = self.socket.get_monitor_socket(events)
        self.socket.bind(self.endpoint)
        self.identity: bytes | None = None
        self.dropped = False
        self.reconnected = False  # connected again after a drop: see ``oversized``

    @property
    def handles(self) -> list[Any]:
        return [self.socket, self.monitor]

    def env(self) -> dict[str, str]:
        return {"ARENA_ENDPOINT": self.endpoint, "ARENA_TRANSPORT": self.transport}

    def receive(self, ready: dict[Any, int]) -> list[Inbound]:
        if self.monitor in ready:
            while self.monitor.poll(0):
                event = recv_monitor_message(self.monitor)["event"]
                self.dropped = self.dropped or event == zmq.EVENT_DISCONNECTED
                self.reconnected = self.dropped and event == zmq.EVENT_ACCEPTED
        items: list[Inbound] = []
        while self.socket in ready and len(items) < BATCH:
            try:
                frames = self.socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                break
            identity, body = frames[0], frames[1:]
            if len(body) != 1:
                error = ProtocolError("malformed", f"a message must be 1 frame, got {len(body)}")
                item = Inbound(None, error, excerpt(body[:4]))
            else:
                item = _check(body[0], codec.decode, self.max_bytes)
            # The first connection to speak owns the seat (the socket file is the bot's alone).
            self.identity = self.identity or identity
            item.foreign = identity != self.identity
            items.append(item)
        return items

    def send(self, msg: dict[str, Any]) -> None:
        if self.identity is None:
            return
        # A peer gone (EHOSTUNREACH) or not reading (EAGAIN) is judged by its pidfd or clock.
        with contextlib.suppress(zmq.ZMQError):
            self.socket.send_multipart([self.identity, codec.encode(msg)], zmq.NOBLOCK)

    def close(self) -> None:
        with contextlib.suppress(zmq.ZMQError):
            self.socket.disable_monitor()
        self.monitor.close(linger=0)
        self.socket.close(linger=0)


class StdioChannel:
    """JSON lines over a bot's stdin and stdout pipes (non-blocking fds from the sandbox)."""

    transport = "stdio"

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.stdin: int | None = None
        self.stdout: int | None = None
        self.inbox = bytearray()
        self.outbox = bytearray()
        self.closed = False  # stdout reached end of file

    def attach(self, stdin: int, stdout: int) -> None:
        self.stdin, self.stdout = stdin, stdout

    @property
    def handles(self) -> list[Any]:
        return [] if self.stdout is None or self.closed else [self.stdout]

    @property
    def writing(self) -> int | None:
        """The stdin fd while output waits for the bot to read (poll it for POLLOUT)."""
        return self.stdin if self.outbox and self.stdin is not None else None

    def env(self) -> dict[str, str]:
        return {"ARENA_TRANSPORT": self.transport}

    def receive(self, ready: dict[Any, int]) -> list[Inbound]:
        if self.writing is not None and self.writing in ready:
            self._flush()
        if self.stdout is None or self.stdout not in ready or self.closed:
            return []
        # Read all there is, but never hold more than one message's worth unparsed.
        while not self.closed and len(self.inbox) <= self.max_bytes:
            try:
                chunk = os.read(self.stdout, READ_CHUNK)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            self.closed = not chunk
            self.inbox += chunk
        items = []
        while (end := self.inbox.find(b"\n")) >= 0:
            line = bytes(self.inbox[:end])
            del self.inbox[: end + 1]
            items.append(_check(line, codec.decode_line, self.max_bytes))
        if len(self.inbox) > self.max_bytes:
            error = ProtocolError(
                "too_large", f"a line of over {self.max_bytes} bytes with no end in sight"
            )
            items.append(Inbound(None, error, excerpt(bytes(self.inbox[:EXCERPT_CHARS]))))
            self.inbox.clear()
        elif self.closed and self.inbox:
            error = ProtocolError("malformed", "output ends in a line without a newline")
            items.append(Inbound(None, error, excerpt(bytes(self.inbox[:EXCERPT_CHARS]))))
            self.inbox.clear()
        return items

    def send(self, msg: dict[str, Any]) -> None:
        if self.stdin is None:
            return
        self.outbox += codec.encode_line(msg)
        self._flush()

    def _flush(self) -> None:
        try:
            written = os.write(self.stdin, self.outbox)
        except BlockingIOError:
            return
        except OSError:  # the bot closed its stdin or died: its pidfd or clock will tell
            self.outbox.clear()
            return
        del self.outbox[:written]

    def close(self) -> None:
        self.outbox.clear()
