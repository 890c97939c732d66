"""The codec is where untrusted bytes enter: every malformed variant is a ProtocolError."""

from __future__ import annotations

import msgpack
import pytest

from protocol import codec, messages
from protocol.codec import MAX_DEPTH, ProtocolError


def test_round_trip_keeps_types() -> None:
    msg = {"v": 1, "type": "turn", "options": [{"a": 1, "b": None, "c": [True, "x"]}], "f": 1.5}
    assert codec.decode(codec.encode(msg)) == msg


def nested(depth: int) -> bytes:
    value: object = 0
    for _ in range(depth - 1):
        value = [value]
    return msgpack.packb({"v": value})


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"\xc1", "malformed"),  # a byte msgpack never uses
        (msgpack.packb({"v": 1, "type": "action"})[:-3], "malformed"),  # truncated map
        (msgpack.packb({"v": 1}) + b"\x00", "malformed"),  # trailing bytes
        (b"\x91" * 100_000 + b"\x00", "malformed"),  # 100 000-deep nesting
        (b"\xdd\xff\xff\xff\xff", "malformed"),  # array32 claiming 2**32-1 items
        (b"\x81\xa1v\xa2\xff\xfe", "malformed"),  # invalid UTF-8 str
        (msgpack.packb({"v": msgpack.ExtType(1, b"x")}), "malformed"),  # ext type
        (msgpack.packb([1, 2]), "malformed"),  # not a map
        (msgpack.packb({1: 2}), "malformed"),  # non-string key
        (nested(MAX_DEPTH + 1), "malformed"),  # deeper than the limit
        (msgpack.packb({"v": "x" * (1 << 17)}), "malformed"),  # string over the limit
        (b"\x80" + b"\x00" * (codec.MAX_MESSAGE_BYTES + 1), "too_large"),
    ],
)
def test_malformed_input_is_rejected_with_its_code(data: bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as info:
        codec.decode(data)
    assert info.value.code == code


def test_depth_at_the_limit_is_accepted() -> None:
    assert codec.decode(nested(MAX_DEPTH - 1))


HELLO = {"v": 1, "type": "hello", "versions": [1], "token": "t", "name": "x"}


@pytest.mark.parametrize(
    ("msg", "code", "words"),
    [
        ({"type": "action", "seq": 1, "choice": 0}, "bad_field", "'v'"),
        ({"v": 1, "type": "nonsense"}, "unknown_type", "nonsense"),
        ({"v": 2, "type": "action", "seq": 1, "choice": 0}, "bad_field", "action.v is 2"),
        ({"v": 1, "seq": 1}, "bad_field", "type"),
        ({"v": 1, "type": "action", "choice": 0}, "bad_field", "seq"),
        ({"v": 1, "type": "action", "seq": 1, "choice": 1.0}, "bad_field", "choice"),
        ({"v": 1, "type": "action", "seq": 1, "choice": True}, "bad_field", "choice"),
        ({"v": 1, "type": "action", "seq": 1, "choice": None}, "bad_field", "choice"),
        ({"v": 1, "type": "action", "seq": 1, "choice": b"0"}, "bad_field", "choice"),
        ({"v": 1, "type": "action", "seq": 1, "choice": 2**64 - 1}, "bad_field", "int64"),
        # What an action must be beyond the plain ints its quick check passes at once:
        ({"v": True, "type": "action", "seq": 1, "choice": 0}, "bad_field", "message.v"),
        ({"v": 1, "type": "action", "seq": -(2**63) - 1, "choice": 0}, "bad_field", "int64"),
        ({"v": 1, "type": "action", "seq": 1, "choice": 0, "info": b"x"}, "bad_field", "info"),
        ({"v": 1, "type": b"action", "seq": 1, "choice": 0}, "bad_field", "type"),
        ({**HELLO, "token": b"t"}, "bad_field", "token"),
        ({**HELLO, "versions": ["1"]}, "bad_field", "versions"),
        ({**HELLO, "name": "x" * 65}, "bad_field", "name"),
    ],
)
def test_bot_messages_are_checked_field_by_field(msg: dict, code: str, words: str) -> None:
    with pytest.raises(ProtocolError) as info:
        messages.check_bot_message(msg)
    assert info.value.code == code
    assert words in info.value.message


def test_unknown_fields_are_ignored() -> None:
    msg = {"v": 1, "type": "action", "seq": 3, "choice": 0, "future_field": [1]}
    assert messages.check_bot_message(msg) is msg


def test_builders_produce_valid_bot_messages() -> None:
    messages.check_bot_message(codec.decode(codec.encode(messages.hello("t", "bot"))))
    messages.check_bot_message(codec.decode(codec.encode(messages.action(4, 2, info="why"))))
