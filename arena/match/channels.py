"""The referee's end of one bot's connection: ZeroMQ, pipe or stdio, the same messages each way.

A channel reads what arrives from a bot as :class:`Frame` s, checks each into an
:class:`Inbound` (a valid message, or the protocol error it broke) and sends referee messages.
The referee polls every channel's ``handles`` in one poller beside the bots' pidfds and
calls :meth:`Channel.receive` for the ones that are ready, so neither transport can block the
match.

* ZeroMQ: one ROUTER per bot on its own ``ipc://`` socket file. The first connection to speak
  owns the seat (its file descriptor is learnt from the message); anything from another
  connection is ``unexpected``. A socket monitor counts connections: every one costs the referee
  a file descriptor, so a bot may open at most ``MAX_CONNECTIONS`` over a match (``overrun``
  then; the referee faults the seat and closes the socket, which frees them all). libzmq drops
  a connection that sends a frame over ``MAXMSGSIZE`` and the bot's DEALER connects again at
  once, so the seat's own connection dropped and followed by a new one is ``oversized``; other
  connections coming and going are only counted.
* pipe and stdio: the bot's stdin and stdout pipes, with length-prefixed msgpack (pipe: the
  lean local transport, no I/O thread in between) or JSON lines (stdio: any language without a
  library). A message over the limit is ``too_large`` as soon as its length is known (pipe: its
  header; stdio: that many bytes without a newline), and output that ends in the middle of a
  message is ``malformed``. What the referee writes waits in an outbox of at most
  ``OUTBOX_BYTES``: a bot that does not read its stdin is ``overflowed``.

Reading is in two steps so that one seat cannot make another's answer late: ``receive`` takes
raw :class:`Frame` s (at most ``WAKE_MESSAGES`` messages or one message's worth of bytes per
seat and wake), each stamped with the moment it was read, and ``check`` decodes one frame when
the referee is ready for it (and only if the seat has not been charged out by then).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import select
import struct
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path
from typing import Any, Protocol

import zmq

from protocol import codec, messages
from protocol.codec import ProtocolError

RCVHWM = 8  # messages queued per connection in the referee: an honest bot has one in flight
SNDHWM = 64  # referee messages queued for a bot that does not read
BACKLOG = 8  # connections waiting to be accepted
MAX_CONNECTIONS = 4  # connections a bot may open to its socket over a match
WAKE_MESSAGES = 16  # messages read from one seat per wake, so a flooding bot cannot starve others
OUTBOX_BYTES = 8 << 20  # referee output a stdio or pipe bot may leave unread
BYTES_SKIPPED = 8  # times max_message_bytes of oversized pipe messages dropped before a flood
EXCERPT_CHARS = 300
READ_CHUNK = 1 << 16
_MONITORS = itertools.count()  # inproc addresses of the sockets' monitors
# A monitor event's first frame (zmq_socket_monitor): the event, then its value (for a
# connection, its file descriptor). Read here rather than with zmq.utils.monitor, whose import
# brings asyncio: a fifth of a worker's start-up.
_EVENT = struct.Struct("=hi")


@dataclass(slots=True)
class Frame:
    """One message as read, not yet decoded: its bytes and the moment it was read."""

    data: bytes
    received: float
    foreign: bool = False  # from a ZeroMQ connection other than the one that said hello
    error: ProtocolError | None = None  # broken before decoding (multi-part, endless line)


@dataclass
class Inbound:
    """One message from a bot: ``msg`` when it is valid, else ``error``; ``excerpt`` for reports.

    The excerpt is rendered only when an incident quotes it: an honest answer never is, and
    rendering it would cost more than decoding it.
    """

    msg: dict[str, Any] | None
    error: ProtocolError | None
    shown: object  # what the excerpt renders: the message as decoded, else its first bytes

    @cached_property
    def excerpt(self) -> str:
        return excerpt(self.shown)


@dataclass(frozen=True)
class Trouble:
    """What a channel saw besides messages, for the referee to rule on: a fault ``code`` and
    why; ``close``: shut the seat down whatever its state (also after the game); ``after_game``:
    ruled after ``game_over`` too."""

    code: str
    detail: str
    close: bool = False
    after_game: bool = False


class Channel(Protocol):
    """What the referee needs of a transport: handles to poll, frames read as they come,
    each checked when the referee is ready for it, messages sent without blocking."""

    transport: str
    max_bytes: int
    closed: bool

    @property
    def handles(self) -> list[Any]: ...

    @property
    def pending(self) -> bool: ...

    def wants(self, ready: dict[Any, int]) -> bool: ...

    def env(self) -> dict[str, str]: ...

    def receive(self, ready: dict[Any, int]) -> list[Frame]: ...

    def check(self, frame: Frame) -> Inbound: ...

    def send(self, msg: dict[str, Any]) -> None: ...

    def trouble(self) -> Trouble | None: ...

    def idle(self) -> bool: ...

    def new_match(self) -> None: ...

    def close(self) -> None: ...


def excerpt(data: object) -> str:
    """A short printable rendering of what a bot sent (JSON for a decoded message, a msgpack
    bin as ``<bin 'text'>`` or ``<bin 0x...>``, raw bytes as text or hex), safe for logs.

    A decoded message is rendered only as far as the excerpt reaches, never as a whole: a bot
    may send a megabyte of valid message and the excerpt costs the same as for a small one.
    """
    if isinstance(data, dict):
        parts: list[str] = []
        _render(data, parts, EXCERPT_CHARS + 1)
        text = "".join(parts)
    elif isinstance(data, bytes):
        text = messages.show_bytes(data)
    else:
        text = repr(data)
    return printable(text, EXCERPT_CHARS)


def _render(value: object, parts: list[str], budget: int) -> int:
    """Append ``value`` as compact JSON to ``parts`` until ``budget`` characters are used;
    return what is left of the budget (0: stop)."""
    if budget <= 0:
        return 0
    if isinstance(value, dict | list):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        closing = "}" if isinstance(value, dict) else "]"
        parts.append("{" if isinstance(value, dict) else "[")
        budget -= 1
        for i, (key, item) in enumerate(items):
            if budget <= 0:
                return 0
            if i:
                parts.append(", ")
                budget -= 2
            if isinstance(value, dict):
                budget = _render(key, parts, budget)
                parts.append(": ")
                budget -= 2
            budget = _render(item, parts, budget)
        parts.append(closing)
        return budget - 1
    if isinstance(value, bytes):
        value = _bin(value[: EXCERPT_CHARS + 1])
    elif isinstance(value, str):
        value = value[:budget]
    text = json.dumps(value, ensure_ascii=False, default=repr)
    parts.append(text)
    return budget - len(text)


def _bin(data: bytes) -> str:
    return "<bin " + messages.show_bytes(data, quote="'") + ">"


def printable(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, every control or format character made ``?``."""
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return "".join(c if c.isprintable() else "?" for c in text)


def _check(frame: Frame, decode: Callable[[bytes], dict[str, Any]]) -> Inbound:
    """Decode and validate; the excerpt shows the message as decoded when it could be."""
    payload = frame.data
    if frame.error is not None:
        return Inbound(None, frame.error, payload[:EXCERPT_CHARS])
    try:
        decoded = decode(payload)
    except ProtocolError as exc:
        return Inbound(None, exc, payload[:EXCERPT_CHARS])
    try:
        msg = messages.check_bot_message(decoded)
    except ProtocolError as exc:
        return Inbound(None, exc, decoded)
    return Inbound(msg, None, msg)


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
        self.socket.setsockopt(zmq.SNDHWM, SNDHWM)
        self.socket.setsockopt(zmq.BACKLOG, BACKLOG)
        self.packer = codec.Packer()
        self.decode = codec.Decoder(max_bytes)
        self.monitor = _monitor(ctx, self.socket)
        self.socket.bind(self.endpoint)
        self.identity: bytes | None = None
        self.owner_fd: int | None = None  # the descriptor of the connection that owns the seat
        self.accepted = 0  # connections over the match
        self.connections = 0  # connections open now
        self.dropped = False  # the owner's connection was dropped
        self.reconnected = False  # and a new connection came: see ``oversized``
        self.closed = False

    @property
    def handles(self) -> list[Any]:
        return [] if self.closed else [self.socket, self.monitor]

    @property
    def pending(self) -> bool:
        return False  # zmq_poll reports messages left in the socket at every poll

    def wants(self, ready: dict[Any, int]) -> bool:
        """Something to read on the socket or its monitor."""
        return not self.closed and (self.socket in ready or self.monitor in ready)

    @property
    def overrun(self) -> bool:
        """More connections than a bot may open (each costs the referee a descriptor)."""
        return self.accepted > MAX_CONNECTIONS

    @property
    def oversized(self) -> bool:
        """The seat's connection was dropped and the bot came back: libzmq refused a frame."""
        return self.reconnected

    @property
    def path(self) -> Path:
        """The socket file (the sandbox makes it reachable to this bot alone)."""
        return Path(self.endpoint.removeprefix("ipc://"))

    def env(self) -> dict[str, str]:
        return {"ARENA_ENDPOINT": self.endpoint, "ARENA_TRANSPORT": self.transport}

    def trouble(self) -> Trouble | None:
        """Too many connections (the seat's socket must close), or a frame libzmq refused."""
        if self.overrun:
            why = f"opened more than {MAX_CONNECTIONS} connections to its socket"
            return Trouble("too_many_connections", why, close=True)
        if self.oversized:
            self.dropped = self.reconnected = False
            why = (
                f"a message over {self.max_bytes} bytes "
                "(its connection was dropped and it reconnected)"
            )
            return Trouble("too_large", why)
        return None

    def receive(self, ready: dict[Any, int]) -> list[Frame]:
        if self.closed:
            return []
        if self.monitor in ready:
            self._connections()
        frames: list[Frame] = []
        size = 0
        while self.socket in ready and len(frames) < WAKE_MESSAGES and size < self.max_bytes:
            if not self.socket.get(zmq.EVENTS) & zmq.POLLIN:  # cheaper than raising zmq.Again
                break
            try:
                parts = self.socket.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                break
            frame = self._frame(parts)
            size += len(frame.data)
            frames.append(frame)
        return frames

    def _connections(self) -> None:
        while self.monitor.poll(0):
            event, value = _EVENT.unpack(self.monitor.recv_multipart()[0])
            if event == zmq.EVENT_ACCEPTED:
                self.accepted += 1
                self.connections += 1
                self.reconnected = self.reconnected or self.dropped
                continue
            self.connections -= 1
            if value == self.owner_fd:
                self.dropped = True
                self.owner_fd = None  # the number may come back for a new connection

    def idle(self) -> bool:
        """Nothing happened since the last read (no message, no connection come or gone) and
        the bot holds its one connection only: a kept process's test."""
        if self.closed or self.monitor.poll(0) or self.socket.get(zmq.EVENTS) & zmq.POLLIN:
            return False
        return not self.dropped and self.connections == 1

    def new_match(self) -> None:
        """A kept process's next match: its connection cap counts anew from its one
        connection, as a fresh process's does."""
        self.accepted = self.connections

    def _frame(self, parts: list[zmq.Frame]) -> Frame:
        identity, body = parts[0].bytes, parts[1:]
        data = b"".join(part.bytes for part in body[:4])
        frame = Frame(data, time.monotonic())
        if len(body) != 1:
            frame.error = ProtocolError("malformed", f"a message must be 1 frame, got {len(body)}")
        # The first connection to speak owns the seat (the socket file is the bot's alone).
        if self.identity is None:
            self.identity = identity
            self.owner_fd = parts[-1].get(zmq.SRCFD)
        frame.foreign = identity != self.identity
        return frame

    def check(self, frame: Frame) -> Inbound:
        return _check(frame, self.decode)

    def send(self, msg: dict[str, Any]) -> None:
        if self.identity is None or self.closed:
            return
        # A peer gone (EHOSTUNREACH) or not reading (EAGAIN) is judged by its pidfd or clock.
        with contextlib.suppress(zmq.ZMQError):
            self.socket.send_multipart([self.identity, self.packer.encode(msg)], zmq.NOBLOCK)

    def close(self) -> None:
        """Close the socket, and with it every connection the bot made (idempotent)."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(zmq.ZMQError):
            self.socket.disable_monitor()
        self.monitor.close(linger=0)
        self.socket.close(linger=0)


def _monitor(ctx: zmq.Context, socket: zmq.Socket) -> zmq.Socket:
    """A monitor of ``socket``'s connections whose queue has no bound: libzmq's I/O thread
    blocks on a full monitor queue, and with it every socket of the context (a kept bot's idle
    socket must never hold up the matches being played)."""
    address = f"inproc://arena-monitor-{next(_MONITORS)}"
    socket.monitor(address, zmq.EVENT_DISCONNECTED | zmq.EVENT_ACCEPTED)
    monitor = ctx.socket(zmq.PAIR)
    monitor.setsockopt(zmq.RCVHWM, 0)
    monitor.connect(address)
    return monitor


class StreamChannel(ABC):
    """A bot's stdin and stdout pipes (non-blocking fds from the sandbox), carrying one message
    after another; how a message is framed is the subclass's (:class:`StdioChannel`,
    :class:`PipeChannel`).

    Reading never holds more than one message's worth of bytes unparsed; what the referee writes
    waits in an outbox of at most ``OUTBOX_BYTES`` (a bot that does not read is ``overflowed``).
    """

    transport = ""
    overhead = 0  # framing bytes a message may take beyond max_bytes

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.packer = codec.Packer()
        self.stdin: int | None = None
        self.stdout: int | None = None
        self.inbox = bytearray()
        self.outbox = bytearray()
        self.closed = False  # stdout reached end of file
        # Whole messages left over from an earlier wake (poll would not report them), or the
        # rest of an output that has ended: set by each receive, the only reader of the inbox.
        self.pending = False

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

    def trouble(self) -> Trouble | None:
        """Referee output piling up unread on the bot's stdin."""
        if len(self.outbox) > OUTBOX_BYTES:  # self.overflowed, without a call every wake
            why = f"left over {OUTBOX_BYTES} bytes of referee messages unread on its stdin"
            return Trouble("flood", why, after_game=True)
        return None

    def wants(self, ready: dict[Any, int]) -> bool:
        """Something to read, messages left over, or room to write what waits."""
        if self.pending or (self.stdout in ready and not self.closed):
            return True
        return bool(self.outbox) and self.stdin in ready

    @property
    def overflowed(self) -> bool:
        """More referee output waits than a bot that reads its stdin would ever leave."""
        return len(self.outbox) > OUTBOX_BYTES

    def idle(self) -> bool:
        """Nothing left unread or unsent, and nothing more to read (a kept process's test)."""
        if self.closed or self.inbox or self.outbox or self.stdout is None:
            return False
        probe = select.poll()  # not select(): a worker keeping many bots passes fd 1024
        probe.register(self.stdout, select.POLLIN)
        return not probe.poll(0)

    def new_match(self) -> None:
        """A kept process's next match: nothing carries over."""

    def receive(self, ready: dict[Any, int]) -> list[Frame]:
        if self.outbox and self.stdin is not None and self.stdin in ready:
            self._flush(self.stdin)
        if self.stdout is not None and self.stdout in ready and not self.closed:
            self._read(self.stdout)
        frames: list[Frame] = []
        size = 0
        while self.inbox and len(frames) < WAKE_MESSAGES and size < self.max_bytes:
            frame = self._split()
            if frame is None:
                break
            frames.append(frame)
            size += len(frame.data)
        if not frames:
            broken = self._broken()
            if broken is not None:
                frames.append(self._rest(broken))
            elif self.closed and self.inbox:
                frames.append(self._rest(ProtocolError("malformed", self.unfinished)))
        self.pending = bool(self.inbox) and (self.closed or self._whole())
        return frames

    def _read(self, stdout: int) -> None:
        """Read all there is, but never hold more than one message's worth unparsed, nor read
        more than that in one wake (dropped bytes count)."""
        budget = most = self.max_bytes + self.overhead
        while not self.closed and budget >= 0 and len(self.inbox) <= most:
            try:
                chunk = os.read(stdout, READ_CHUNK)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            self.closed = not chunk
            budget -= len(chunk)
            self.inbox += self._kept(chunk)
            if 0 < len(chunk) < READ_CHUNK:  # the pipe is empty for now: poll tells of more
                break

    def _kept(self, chunk: bytes) -> bytes:
        """What of a chunk read is kept in the inbox (all of it, unless a message is skipped)."""
        return chunk

    def _rest(self, error: ProtocolError) -> Frame:
        """What is left of the output, as one broken message (its start kept for the excerpt)."""
        frame = Frame(bytes(self.inbox[:EXCERPT_CHARS]), time.monotonic(), error=error)
        self.inbox.clear()
        return frame

    def send(self, msg: dict[str, Any]) -> None:
        stdin = self.stdin
        if stdin is None or len(self.outbox) > OUTBOX_BYTES:  # self.overflowed, without a call
            return
        data = self._encode(msg)
        if self.outbox:  # behind what waits already
            self.outbox += data
            self._flush(stdin)
            return
        try:  # written straight from the message, and only what the pipe did not take kept
            written = os.write(stdin, data)
        except BlockingIOError:
            written = 0
        except OSError:  # the bot closed its stdin or died: its pidfd or clock will tell
            return
        if written < len(data):
            self.outbox += memoryview(data)[written:]

    def _flush(self, stdin: int) -> None:
        try:
            written = os.write(stdin, self.outbox)
        except BlockingIOError:
            return
        except OSError:  # the bot closed its stdin or died: its pidfd or clock will tell
            self.outbox.clear()
            return
        del self.outbox[:written]

    def close(self) -> None:
        self.outbox.clear()

    # -- the framing ------------------------------------------------------------------------

    unfinished = "output ends in the middle of a message"

    @abstractmethod
    def _whole(self) -> bool:
        """A whole message waits in the inbox."""

    @abstractmethod
    def _split(self) -> Frame | None:
        """The next whole message, taken out of the inbox; None when there is none yet."""

    @abstractmethod
    def _broken(self) -> ProtocolError | None:
        """Why the inbox can never make a valid message, whatever comes next."""

    @abstractmethod
    def _encode(self, msg: dict[str, Any]) -> bytes:
        """A message as this framing writes it."""

    @abstractmethod
    def check(self, frame: Frame) -> Inbound:
        """A frame decoded and checked as this framing's messages must be."""


class StdioChannel(StreamChannel):
    """JSON lines: a line longer than the message limit is ``too_large`` as soon as that many
    bytes are buffered (the referee never waits for its end)."""

    transport = "stdio"
    unfinished = "output ends in a line without a newline"

    def __init__(self, max_bytes: int) -> None:
        super().__init__(max_bytes)
        self.decode = partial(codec.decode_line, max_bytes=max_bytes)

    def _whole(self) -> bool:
        return b"\n" in self.inbox

    def _split(self) -> Frame | None:
        end = self.inbox.find(b"\n")
        if end < 0:
            return None
        frame = Frame(bytes(self.inbox[:end]), time.monotonic())
        del self.inbox[: end + 1]
        return frame

    def _broken(self) -> ProtocolError | None:
        if len(self.inbox) > self.max_bytes:
            why = f"a line of over {self.max_bytes} bytes with no end in sight"
            return ProtocolError("too_large", why)
        return None

    def _encode(self, msg: dict[str, Any]) -> bytes:
        return codec.encode_line(msg)

    def check(self, frame: Frame) -> Inbound:
        return _check(frame, self.decode)


class PipeChannel(StreamChannel):
    """Length-prefixed msgpack (``codec.HEADER``: 4 bytes, big-endian, then the message).

    A length over the message limit is ``too_large`` as soon as its header is read; the message
    itself is then skipped as it arrives, never kept, so the stream stays in step and the seat
    may play on if the policy substitutes. Skipped bytes are charged like messages: past
    ``BYTES_SKIPPED`` times the limit over a match it is a ``flood``.
    """

    transport = "pipe"
    overhead = codec.HEADER.size

    def __init__(self, max_bytes: int) -> None:
        super().__init__(max_bytes)
        self.decode = codec.Decoder(max_bytes)
        self.skip = 0  # bytes of an oversized message still to come, to be dropped
        self.skipped = 0  # bytes dropped so far in the match

    def new_match(self) -> None:
        self.skipped = 0

    def trouble(self) -> Trouble | None:
        if self.skipped > BYTES_SKIPPED * self.max_bytes:
            why = f"sent over {BYTES_SKIPPED * self.max_bytes} bytes of oversized messages"
            return Trouble("flood", why)
        return super().trouble() if self.outbox else None  # the usual case, without a call

    def _kept(self, chunk: bytes) -> bytes:
        if not self.skip:
            return chunk
        dropped = min(self.skip, len(chunk))
        self.skip -= dropped
        self.skipped += dropped
        return chunk[dropped:]

    def _size(self) -> int | None:
        head = self.overhead
        return codec.HEADER.unpack_from(self.inbox)[0] if len(self.inbox) >= head else None

    def _whole(self) -> bool:
        size = self._size()
        if size is None:
            return False
        return size > self.max_bytes or len(self.inbox) >= self.overhead + size

    def _split(self) -> Frame | None:
        size = self._size()
        if size is None:
            return None
        head = self.overhead
        if size > self.max_bytes:
            shown = bytes(self.inbox[head : head + EXCERPT_CHARS])
            why = f"message of {size} bytes exceeds {self.max_bytes}"
            frame = Frame(shown, time.monotonic(), error=ProtocolError("too_large", why))
            here = len(self.inbox) - head  # the inbox never holds a whole oversized message
            self.skip, self.skipped = size - here, self.skipped + here
            self.inbox.clear()
            return frame
        if len(self.inbox) < head + size:
            return None
        frame = Frame(bytes(self.inbox[head : head + size]), time.monotonic())
        del self.inbox[: head + size]
        return frame

    def _broken(self) -> ProtocolError | None:
        return None  # an oversized header is seen by _split, and ends nothing

    def _encode(self, msg: dict[str, Any]) -> bytes:
        return self.packer.frame(msg)

    def check(self, frame: Frame) -> Inbound:
        return _check(frame, self.decode)
