"""Protocol v1 message shapes: builders for what the referee sends, checks for what bots send.

Bot messages are untrusted: :func:`check_bot_message` verifies the ``v`` and ``type`` fields and
every field of the type (presence and exact type; ``bool`` is not an int; ``bin`` is not a str).
Unknown fields are ignored, for forward compatibility. The normative description is PROTOCOL.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .codec import PROTOCOL_VERSION, ProtocolError

ERROR_CODES = (
    "version_mismatch",
    "bad_token",
    "malformed",
    "bad_field",
    "unknown_type",
    "too_large",
    "stale_seq",
    "unexpected",
    "illegal_action",
    "timeout",
    "bank_exhausted",
    "crashed",
    "oom",
    "flood",
    "too_many_connections",
    "match_timeout",
    "internal",
)

# 1.1: hello.reuse and welcome.reuse (PROTOCOL.md 10.1); 1.2: views as deltas and game data
# sent once (hello.deltas, welcome.deltas, game.same, dropped; PROTOCOL.md 8.5)
PROTOCOL_MINOR = 2
MAX_NAME_LEN = 64
MAX_VERSIONS = 16  # items in hello.versions
MAX_VERSION = (1 << 31) - 1
MAX_INFO_LEN = 1024
_INT64 = (-(1 << 63), (1 << 63) - 1)
_IN_INT64 = range(_INT64[0], _INT64[1] + 1).__contains__  # O(1) for an int

# type -> {field: (python type, required)}
_BOT_FIELDS: dict[str, dict[str, tuple[type, bool]]] = {
    "hello": {
        "versions": (list, True),
        "token": (str, True),
        "name": (str, True),
        "bot_version": (str, False),
        "lang": (str, False),
        "reuse": (bool, False),
        "deltas": (bool, False),
    },
    "action": {"seq": (int, True), "choice": (int, True), "info": (str, False)},
    "error": {"code": (str, True), "message": (str, False)},
}


_ABSENT = object()


def _fail(message: str) -> ProtocolError:
    return ProtocolError("bad_field", message)


# What a field must be, in the protocol's words (PROTOCOL.md section 5).
_EXPECTED = {
    int: "an integer",
    str: "a string (msgpack str)",
    list: "an array",
    dict: "a map",
    bool: "a boolean",
}
_SHOWN_BYTES = 40


def show_bytes(data: bytes, quote: str = '"') -> str:
    """Bytes as a person reads them: quoted text when they are printable UTF-8, else hex."""
    cut = "..." if len(data) > _SHOWN_BYTES else ""
    try:
        text = data[:_SHOWN_BYTES].decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    if text.isprintable() and (text or not data):
        return f"{quote}{text}{cut}{quote}"
    return f"0x{data[:_SHOWN_BYTES].hex()}{cut}"


def describe_value(value: Any) -> str:
    """A decoded value's type in the protocol's words (msgpack's; JSON's map onto them)."""
    if isinstance(value, bytes):
        return f"a msgpack bin (bytes, not str) of {len(value)} bytes: {show_bytes(value)}"
    if value is None:
        return "nil (null)"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int | float):
        kind = "an integer" if isinstance(value, int) else "a float"
        return f"{kind} ({value})"
    if isinstance(value, str):
        shown = value if len(value) <= _SHOWN_BYTES else value[:_SHOWN_BYTES] + "..."
        return f'a string ("{shown}")'
    return "an array" if isinstance(value, list) else "a map"


def _check_field(kind: str, name: str, value: Any, expected: type) -> None:
    if expected is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(f"{kind}.{name} must be an integer, got {describe_value(value)}")
        if not _INT64[0] <= value <= _INT64[1]:
            raise _fail(f"{kind}.{name} is out of the int64 range")
    elif not isinstance(value, expected):
        raise _fail(f"{kind}.{name} must be {_EXPECTED[expected]}, got {describe_value(value)}")


def _plain_action(msg: dict[str, Any]) -> bool:
    """An action the field by field check below would pass (the message of every decision,
    checked at once); False leaves the message to that check."""
    version, seq, choice = msg.get("v"), msg.get("seq"), msg.get("choice")
    return (
        type(version) is int
        and version == PROTOCOL_VERSION
        and msg.get("type") == "action"
        and type(seq) is int
        and type(choice) is int
        and _IN_INT64(seq)
        and _IN_INT64(choice)
        and type(msg.get("info", "")) is str
    )


def check_bot_message(msg: dict[str, Any]) -> dict[str, Any]:
    """Validate a decoded bot message; return it, or raise ProtocolError with the error code."""
    if _plain_action(msg):
        return msg
    version = msg.get("v", _ABSENT)
    if version is _ABSENT:
        raise _fail("message has no 'v' field")
    if type(version) is not int or not _IN_INT64(version):
        _check_field("message", "v", version, int)  # raises, unless a subclass is fine
    kind = msg.get("type")
    if not isinstance(kind, str):
        raise _fail("message has no string 'type' field")
    fields = _BOT_FIELDS.get(kind)
    if fields is None:
        raise ProtocolError("unknown_type", f"unknown message type {kind[:40]!r}")
    if kind != "hello" and version != PROTOCOL_VERSION:  # hello may offer other versions
        raise _fail(f"{kind}.v is {version}, the protocol in use is {PROTOCOL_VERSION}")
    for name, (expected, required) in fields.items():
        value = msg.get(name, _ABSENT)
        if value is _ABSENT:
            if required:
                raise _fail(f"{kind} has no {name!r} field")
        elif type(value) is not expected or (expected is int and not _IN_INT64(value)):
            _check_field(kind, name, value, expected)  # raises, unless a subclass is fine
    if kind == "hello":
        versions = msg["versions"]
        if len(versions) > MAX_VERSIONS:
            raise _fail(f"hello.versions lists more than {MAX_VERSIONS} versions")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in versions):
            raise _fail("hello.versions must be a list of integers")
        if not all(1 <= v <= MAX_VERSION for v in versions):
            raise _fail(f"hello.versions items must be integers from 1 to {MAX_VERSION}")
        if len(msg["name"]) > MAX_NAME_LEN:
            raise _fail(f"hello.name is longer than {MAX_NAME_LEN} characters")
    return msg


def hello(
    token: str,
    name: str,
    lang: str = "python",
    bot_version: str = "",
    reuse: bool = False,
    deltas: bool = False,
) -> dict[str, Any]:
    msg = {"v": PROTOCOL_VERSION, "type": "hello", "versions": [PROTOCOL_VERSION]}
    msg.update(token=token, name=name[:MAX_NAME_LEN], lang=lang)
    if bot_version:
        msg["bot_version"] = bot_version
    if reuse:
        msg["reuse"] = True
    if deltas:
        msg["deltas"] = True
    return msg


def action(seq: int, choice: int, info: str = "") -> dict[str, Any]:
    msg: dict[str, Any] = {"v": PROTOCOL_VERSION, "type": "action", "seq": seq, "choice": choice}
    if info:
        msg["info"] = info[:MAX_INFO_LEN]
    return msg


def welcome(
    match: str,
    seat: int,
    players: int,
    game: dict[str, Any],
    limits: dict[str, int | str],
    reuse: bool = False,
    deltas: bool = False,
) -> dict[str, Any]:
    msg = {
        "v": PROTOCOL_VERSION,
        "type": "welcome",
        "minor": PROTOCOL_MINOR,
        "match": match,
        "seat": seat,
        "players": players,
        "game": game,
        "limits": limits,
    }
    if reuse:
        msg["reuse"] = True  # the process is kept for another match (PROTOCOL.md 10.1)
    if deltas:
        msg["deltas"] = True  # views come as deltas (PROTOCOL.md 8.5)
    return msg


def turn(
    seq: int,
    kind: str,
    prompt: str,
    options: Sequence[dict[str, Any]],
    view: dict[str, Any],
    events: list[dict[str, Any]],
    clock: dict[str, int],
    dropped: list[str] | None = None,
) -> dict[str, Any]:
    """A turn; with ``dropped`` (a seat that takes deltas) ``view`` is a delta (PROTOCOL.md 8.5)."""
    msg = {
        "v": PROTOCOL_VERSION,
        "type": "turn",
        "seq": seq,
        "kind": kind,
        "prompt": prompt,
        "options": options,
        "view": view,
        "events": events,
        "clock": clock,
    }
    if dropped is not None:
        msg["dropped"] = dropped
    return msg


def game_over(
    outcome: dict[str, Any],
    status: str,
    view: dict[str, Any],
    events: list[dict[str, Any]],
    dropped: list[str] | None = None,
) -> dict[str, Any]:
    """The end; with ``dropped``, ``view`` is a delta as in :func:`turn`."""
    msg = {
        "v": PROTOCOL_VERSION,
        "type": "game_over",
        "outcome": outcome,
        "you": {"status": status},
        "view": view,
        "events": events,
    }
    if dropped is not None:
        msg["dropped"] = dropped
    return msg


def error(code: str, message: str, fatal: bool) -> dict[str, Any]:
    return {
        "v": PROTOCOL_VERSION,
        "type": "error",
        "code": code,
        "message": message,
        "fatal": fatal,
    }
