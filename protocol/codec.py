"""Encoding and decoding of protocol v1 messages, with hard limits.

One message is one msgpack map with string keys. Decoding is where untrusted bytes enter the
referee, so every limit is enforced here: total size, string/array/map lengths, nesting depth, no
ext types, no trailing bytes, string keys only. Every failure is a :class:`ProtocolError` whose
``code`` is one of the protocol's error codes (``too_large`` or ``malformed``).
"""

from __future__ import annotations

from typing import Any

import msgpack

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 1 << 20  # 1 MiB
MAX_DEPTH = 32
MAX_STR_LEN = 1 << 16
MAX_ITEMS = 1 << 14


class ProtocolError(Exception):
    """A message that breaks the protocol; ``code`` is the error code sent and recorded."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def encode(message: dict[str, Any]) -> bytes:
    """Pack a message map; str stays str and bytes stays bin."""
    return msgpack.packb(message, use_bin_type=True)


def decode(data: bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> dict[str, Any]:
    """Unpack one message, enforcing every limit; raise ProtocolError otherwise."""
    if len(data) > max_bytes:
        raise ProtocolError("too_large", f"message of {len(data)} bytes exceeds {max_bytes}")
    try:
        obj = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            max_str_len=MAX_STR_LEN,
            max_bin_len=MAX_STR_LEN,
            max_array_len=MAX_ITEMS,
            max_map_len=MAX_ITEMS,
            max_ext_len=0,
        )
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        # Covers bad bytes, truncation, trailing data, invalid UTF-8, ext types, over-long
        # containers and C-level stack exhaustion (all ValueError subclasses in msgpack).
        why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise ProtocolError("malformed", f"not a valid msgpack message ({why})") from None
    check_shape(obj)
    return obj


def check_shape(obj: Any) -> None:
    """A message must be a map with str keys, nested at most MAX_DEPTH levels."""
    if not isinstance(obj, dict):
        raise ProtocolError("malformed", f"a message must be a map, got {type(obj).__name__}")
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
        elif isinstance(item, list):
            stack.extend((value, depth + 1) for value in item if isinstance(value, (dict, list)))
