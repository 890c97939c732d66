"""Encoding and decoding of protocol v1 messages, with hard limits.

One message is one msgpack map with string keys (ZeroMQ: one frame; pipe: after a 4-byte
big-endian length, ``frame``), or the same map as one line of JSON (stdio: ``encode_line`` /
``decode_line``). Decoding is where untrusted bytes enter the
referee, so every limit is enforced here: total size, string/array/map lengths, nesting depth, no
ext types, no trailing bytes, string keys only. Every failure is a :class:`ProtocolError` whose
``code`` is one of the protocol's error codes (``too_large`` or ``malformed``).
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Callable
from typing import Any

import msgpack

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 1 << 20  # 1 MiB
MAX_DEPTH = 32
MAX_STR_LEN = 1 << 16
MAX_ITEMS = 1 << 14
INT_RANGE = (-(1 << 63), (1 << 64) - 1)  # what msgpack can carry
HEADER = struct.Struct(">I")  # the pipe transport's length prefix
PACKER_BYTES = 1 << 14  # a Packer's first buffer (msgpack's own default is 256 KiB)


class ProtocolError(Exception):
    """A message that breaks the protocol; ``code`` is the error code sent and recorded."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def encode(message: dict[str, Any]) -> bytes:
    """Pack a message map; str stays str and bytes stays bin."""
    packed: bytes = msgpack.packb(message, use_bin_type=True)
    return packed


def frame(message: dict[str, Any]) -> bytes:
    """A message as the pipe transport carries it: its length, then its msgpack bytes."""
    return _framed(msgpack.packb(message, use_bin_type=True))


def _framed(body: bytes) -> bytes:
    return HEADER.pack(len(body)) + body


class Packer:
    """:func:`encode` and :func:`frame` for one sender, with a msgpack packer made once rather
    than per message (the referee sends a turn every decision). Not to be shared between
    threads. Its buffer starts small (a kept bot's channel keeps it between matches) and grows
    to the largest message it has packed."""

    def __init__(self) -> None:
        packer = msgpack.Packer(use_bin_type=True, buf_size=PACKER_BYTES)
        self.encode: Callable[[dict[str, Any]], bytes] = packer.pack

    def frame(self, message: dict[str, Any]) -> bytes:
        return _framed(self.encode(message))


def _no_ext(code: int, data: bytes) -> Any:
    raise ValueError(f"ext type {code} is not allowed")  # max_ext_len=0 still admits empty ones


_LIMITS: dict[str, Any] = {  # msgpack's options for every message decoded
    "raw": False,
    "strict_map_key": True,
    "max_str_len": MAX_STR_LEN,
    "max_bin_len": MAX_STR_LEN,
    "max_array_len": MAX_ITEMS,
    "max_map_len": MAX_ITEMS,
    "max_ext_len": 0,
    "ext_hook": _no_ext,
}
_UNPACK_ERRORS = (ValueError, TypeError, msgpack.UnpackException)


def decode(data: bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> dict[str, Any]:
    """Unpack one message, enforcing every limit; raise ProtocolError otherwise."""
    if len(data) > max_bytes:
        raise ProtocolError("too_large", f"message of {len(data)} bytes exceeds {max_bytes}")
    try:
        obj: dict[str, Any] = msgpack.unpackb(data, **_LIMITS)  # a map once checked below
    except _UNPACK_ERRORS as exc:
        # Covers bad bytes, truncation, trailing data, invalid UTF-8, ext types, over-long
        # containers and C-level stack exhaustion (all ValueError subclasses in msgpack).
        why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise ProtocolError("malformed", f"not a valid msgpack message ({why})") from None
    check_shape(obj)
    return obj


class Decoder:
    """:func:`decode` for one sender's messages, with a msgpack unpacker made once with the
    limits rather than per message (the referee reads an answer every decision, and passing
    the limits costs more than decoding it). Only one whole object that used every byte is
    taken from the unpacker; anything else (bad bytes, a truncated or trailing message, a
    broken limit) is decoded again by :func:`decode`, which says what is wrong, and the
    unpacker is made anew. Not to be shared between threads."""

    def __init__(self, max_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self.max_bytes = max_bytes
        self.unpacker = msgpack.Unpacker(**_LIMITS)

    def __call__(self, data: bytes) -> dict[str, Any]:
        unpacker = self.unpacker
        if len(data) <= self.max_bytes:
            start = unpacker.tell()
            try:
                unpacker.feed(data)
                obj: dict[str, Any] = unpacker.unpack()
            except _UNPACK_ERRORS:
                pass
            else:
                if unpacker.tell() - start == len(data):
                    check_shape(obj)
                    return obj
            self.unpacker = msgpack.Unpacker(**_LIMITS)
        return decode(data, self.max_bytes)


def encode_line(message: dict[str, Any]) -> bytes:
    """One JSON line, UTF-8, ``\\n``-terminated; JSON escapes keep newlines out of the line."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400: what msgpack and encode_line could not carry
        raise ValueError(f"number {text[:20]} is out of range")
    return value


def decode_line(line: bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> dict[str, Any]:
    """Parse one JSON line (without or with its ``\\n``) with the limits of :func:`decode`."""
    if len(line) > max_bytes:
        raise ProtocolError("too_large", f"line of {len(line)} bytes exceeds {max_bytes}")
    try:
        obj: dict[str, Any] = json.loads(
            line.decode("utf-8"), parse_constant=_no_constant, parse_float=_finite
        )
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError too
        raise ProtocolError("malformed", f"not a valid JSON line ({exc})") from None
    check_shape(obj)
    check_sizes(obj)
    return obj


def check_sizes(obj: Any) -> None:
    """The limits msgpack enforces while decoding (string and container sizes, UTF-8, 64-bit
    integers), for JSON input."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if len(item) > MAX_STR_LEN:
                raise ProtocolError("malformed", f"string longer than {MAX_STR_LEN} characters")
            if not item.isascii() and not _is_utf8(item):
                raise ProtocolError("malformed", "string with a lone surrogate (not UTF-8)")
        elif isinstance(item, int) and not INT_RANGE[0] <= item <= INT_RANGE[1]:
            raise ProtocolError("malformed", "integer outside msgpack's 64-bit range")
        if isinstance(item, dict | list):
            if len(item) > MAX_ITEMS:
                raise ProtocolError("malformed", f"container of more than {MAX_ITEMS} items")
            stack.extend(item.values() if isinstance(item, dict) else item)
            if isinstance(item, dict):
                stack.extend(item.keys())


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # "\\ud800" escapes decode to lone surrogates
        return False
    return True


_CONTAINERS = frozenset((dict, list))  # the exact types both decoders produce
_STR = frozenset((str,))


def check_shape(obj: Any) -> None:
    """A message must be a map with str keys, nested at most MAX_DEPTH levels."""
    if not isinstance(obj, dict):
        raise ProtocolError("malformed", f"a message must be a map, got {type(obj).__name__}")
    if _STR.issuperset(map(type, obj)) and _CONTAINERS.isdisjoint(map(type, obj.values())):
        return  # a flat map of string keys (every action), checked at C speed
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ProtocolError("malformed", f"message nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            for key, value in item.items():
                if not isinstance(key, str):
                    raise ProtocolError("malformed", f"map key {key!r} is not a string")
                if isinstance(value, (dict, list)):
                    stack.append((value, depth + 1))
        elif isinstance(item, list) and not _CONTAINERS.isdisjoint(map(type, item)):
            # Only arrays holding containers are walked item by item (in Python): a megabyte
            # of flat arrays is checked at C speed.
            stack.extend((value, depth + 1) for value in item if isinstance(value, (dict, list)))
