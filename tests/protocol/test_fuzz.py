"""Property tests (hypothesis) for the codec and the bot message checks: untrusted bytes in.

Whatever a bot sends, decoding and checking may only fail with a :class:`ProtocolError` that
carries a documented code, must not allocate in proportion to what a header claims, and must give
back exactly what a well-behaved sender encoded. The same holds for the JSON-lines framing of the
stdio transport. Runs derandomised and without an example database, so CI sees the same examples.
"""

from __future__ import annotations

import json
import math
import time
import tracemalloc
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from protocol import codec, messages
from protocol.codec import MAX_DEPTH, ProtocolError

DECODE_CODES = {"malformed", "too_large"}
CHECK_CODES = {"malformed", "too_large", "bad_field", "unknown_type"}
INT_MIN, UINT_MAX = -(1 << 63), (1 << 64) - 1  # what msgpack can carry

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FEW = settings(FUZZ, max_examples=60)

needs_lines = pytest.mark.skipif(
    not (hasattr(codec, "decode_line") and hasattr(codec, "encode_line")),
    reason="stdio codec not present",
)


# -- strategies ------------------------------------------------------------------------------

ints = st.one_of(
    st.integers(-40, 40),
    st.integers(INT_MIN, UINT_MAX),
    st.sampled_from([INT_MIN, (1 << 63) - 1, 1 << 63, UINT_MAX, -(1 << 31), (1 << 32) - 1]),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    ints,
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.binary(max_size=40),
)
keys = st.one_of(st.text(max_size=12), ints, st.binary(max_size=6), st.booleans(), st.none())


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=6),
        st.dictionaries(st.text(max_size=12), children, max_size=6),
        st.dictionaries(keys, children, max_size=4),
    )


values = st.recursive(scalars, _containers, max_leaves=25)
# What a correct sender may put in a message: maps with str keys only.
str_keyed = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5), st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=12,
)


@st.composite
def deep(draw: st.DrawFn) -> Any:
    """A value wrapped in lists and maps up to about twice the depth limit."""
    value = draw(scalars)
    for _ in range(draw(st.integers(0, 2 * MAX_DEPTH + 2))):
        value = [value] if draw(st.booleans()) else {"k": value}
    return value


any_value = st.one_of(values, deep(), st.dictionaries(st.text(max_size=8), values, max_size=8))
with_ext = st.recursive(
    st.one_of(scalars, st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=4))),
    _containers,
    max_leaves=10,
)

short_text = st.text(max_size=30)
int64 = st.integers(-(1 << 63), (1 << 63) - 1)
extra_fields = st.dictionaries(
    st.text(max_size=10).filter(lambda k: k not in {"v", "type"}), str_keyed, max_size=3
)


@st.composite
def valid_bot_messages(draw: st.DrawFn) -> dict[str, Any]:
    """A hello, action or error a correct bot could send (unknown fields too: they are ignored)."""
    kind = draw(st.sampled_from(["hello", "action", "error"]))
    msg: dict[str, Any] = draw(extra_fields)
    if kind == "hello":
        msg.update(
            versions=draw(st.lists(st.integers(1, messages.MAX_VERSION), max_size=4)),
            token=draw(short_text),
            name=draw(st.text(max_size=messages.MAX_NAME_LEN)),
        )
        for name in ("bot_version", "lang"):
            if draw(st.booleans()):
                msg[name] = draw(short_text)
    elif kind == "action":
        msg.update(seq=draw(int64), choice=draw(int64))
        if draw(st.booleans()):
            msg["info"] = draw(st.text(max_size=200))
    else:
        msg["code"] = draw(short_text)
        if draw(st.booleans()):
            msg["message"] = draw(short_text)
    # hello's v may be any version (versions negotiates); the others speak the one in use
    version = draw(int64) if kind == "hello" and draw(st.booleans()) else codec.PROTOCOL_VERSION
    msg.update(v=version, type=kind)
    return msg


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A valid packed message with bytes flipped, inserted, cut or appended: near misses."""
    data = bytearray(codec.encode(draw(valid_bot_messages())))
    for _ in range(draw(st.integers(1, 4))):
        how = draw(st.sampled_from(["flip", "insert", "cut", "append"]))
        at = draw(st.integers(0, len(data)))
        if how == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif how == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=6))
        elif how == "cut":
            del data[at:]
        else:
            data += draw(st.binary(min_size=1, max_size=6))
    return bytes(data)


# -- helpers ---------------------------------------------------------------------------------


def plain(value: Any, depth: int = 1) -> None:
    """A decoded message holds only msgpack's plain types, with str keys, within MAX_DEPTH."""
    if isinstance(value, dict):
        assert depth <= MAX_DEPTH
        for key, item in value.items():
            assert type(key) is str
            plain(item, depth + 1)
    elif isinstance(value, list):
        assert depth <= MAX_DEPTH
        for item in value:
            plain(item, depth + 1)
    else:
        assert value is None or type(value) in (bool, int, float, str, bytes), repr(value)
        if type(value) is int:
            assert INT_MIN <= value <= UINT_MAX


def decode_or_code(data: bytes, max_bytes: int = codec.MAX_MESSAGE_BYTES) -> Any:
    """Decode; a ProtocolError must carry a decode code. Returns the message or the error."""
    try:
        msg = codec.decode(data, max_bytes)
    except ProtocolError as exc:
        assert exc.code in DECODE_CODES, exc.code
        return exc
    assert len(data) <= max_bytes
    plain(msg)
    return msg


def check_or_code(msg: dict[str, Any]) -> ProtocolError | None:
    try:
        assert messages.check_bot_message(msg) is msg
    except ProtocolError as exc:
        assert exc.code in CHECK_CODES, exc.code
        return exc
    return None


def peak_bytes(action: Any) -> tuple[int, float]:
    """Peak traced allocation (bytes) of ``action()``, and seconds it takes untraced."""
    started = time.process_time()  # CPU time: a busy CI machine must not fail this
    action()
    elapsed = time.process_time() - started
    tracemalloc.start()
    try:
        action()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, elapsed


# -- (a) arbitrary bytes ---------------------------------------------------------------------


@FUZZ
@given(st.one_of(st.binary(max_size=300), mutated()))
@example(b"\x81\xa1v\xc7\x00\x01")  # a zero-length ext type inside a map
def test_any_bytes_decode_to_a_plain_message_or_a_protocol_error(data: bytes) -> None:
    decode_or_code(data)


@FEW
@given(st.one_of(st.binary(max_size=64), mutated()), st.integers(0, 48))
def test_a_small_max_bytes_is_enforced_first(data: bytes, max_bytes: int) -> None:
    result = decode_or_code(data, max_bytes)
    if len(data) > max_bytes:
        assert isinstance(result, ProtocolError) and result.code == "too_large"


DECODER = codec.Decoder(200)  # one for every example: what an earlier one left must not matter


@FUZZ
@given(st.one_of(st.binary(max_size=300), mutated(), valid_bot_messages().map(codec.encode)))
@example(b"\x81\xa1v\x01\x81")  # a whole message, then the start of another
def test_a_decoder_gives_what_decode_gives_after_any_bytes(data: bytes) -> None:
    expected = decode_or_code(data, 200)
    try:
        got: Any = DECODER(data)
    except ProtocolError as exc:
        got = exc
    if isinstance(expected, ProtocolError):
        assert isinstance(got, ProtocolError)
        assert (got.code, got.message) == (expected.code, expected.message)
    else:
        assert got == expected
    answer = messages.action(7, 1)
    assert DECODER(codec.encode(answer)) == answer


# -- (b) arbitrary msgpack values through decode and check_bot_message -----------------------


@FUZZ
@given(any_value)
def test_any_msgpack_value_is_checked_or_refused_with_a_documented_code(value: Any) -> None:
    data = msgpack.packb(value, use_bin_type=True)
    msg = decode_or_code(data)
    if isinstance(msg, ProtocolError):
        return
    assert codec.encode(msg) == data  # nothing lost or changed on the way in
    check_or_code(msg)


@FEW
@given(with_ext)
def test_ext_types_never_come_out_of_decode(value: Any) -> None:
    decode_or_code(msgpack.packb({"v": value}, use_bin_type=True))


@FUZZ
@given(valid_bot_messages())
def test_valid_bot_messages_are_accepted(msg: dict[str, Any]) -> None:
    data = codec.encode(msg)
    decoded = codec.decode(data)
    assert codec.encode(decoded) == data  # not ==: a NaN in an extra field is never equal
    assert messages.check_bot_message(decoded) is decoded


@FUZZ
@given(valid_bot_messages(), st.data())
def test_a_valid_message_with_one_field_broken_is_accepted_or_bad_field(
    msg: dict[str, Any], data: st.DataObject
) -> None:
    name = data.draw(st.sampled_from(sorted(msg)))
    if data.draw(st.booleans()):
        del msg[name]
    else:
        msg[name] = data.draw(any_value)
    decoded = decode_or_code(codec.encode(msg))
    if not isinstance(decoded, ProtocolError):
        check_or_code(decoded)


# -- (c) headers that claim more than is there -----------------------------------------------

HUGE = b"\xff\xff\xff\xff"
CLAIMS = {
    "array32": b"\xdd" + HUGE,
    "map32": b"\xdf" + HUGE,
    "str32": b"\xdb" + HUGE,
    "bin32": b"\xc6" + HUGE,
    "ext32": b"\xc9" + HUGE + b"\x01",
    "array16 at the item limit, nested": b"\xdc\x40\x00" * 40,
    "map16 at the item limit, nested": (b"\xde\x40\x00\xa1k") * 40,
}


@pytest.mark.parametrize("where", ["top", "in a map", "in a list"])
@pytest.mark.parametrize("claim", sorted(CLAIMS))
def test_huge_claims_are_refused_quickly_without_big_allocations(claim: str, where: str) -> None:
    header = CLAIMS[claim]
    data = {"top": header, "in a map": b"\x81\xa1v" + header, "in a list": b"\x91" + header}[where]
    for payload in (data, data + b"\x00" * 64):

        def attempt(payload: bytes = payload) -> None:
            with pytest.raises(ProtocolError) as info:
                codec.decode(payload)
            assert info.value.code == "malformed"

        peak, elapsed = peak_bytes(attempt)
        assert peak < 16 << 20, f"{claim} ({where}): peak {peak} bytes"
        assert elapsed < 1.0, f"{claim} ({where}): {elapsed:.2f} s"


@needs_lines
@pytest.mark.parametrize(
    "line",
    [
        b"[" * 500_000,
        b'{"v":' * 150_000 + b"1" + b"}" * 150_000,
        b'{"v":"' + b"x" * 1_000_000 + b'"}',
        b'{"v":[' + b"0," * 400_000 + b"0]}",
        b'{"v":' + b"9" * 500_000 + b"}",
    ],
    ids=["open brackets", "deep maps", "long string", "many items", "long number"],
)
def test_huge_lines_are_refused_quickly_without_big_allocations(line: bytes) -> None:
    def attempt() -> None:
        with pytest.raises(ProtocolError) as info:
            codec.decode_line(line)
        assert info.value.code == "malformed"

    peak, elapsed = peak_bytes(attempt)
    # The line itself is under 1 MiB; parsing it may take a few times that, never 16 MiB.
    assert peak < 16 << 20, f"peak {peak} bytes"
    assert elapsed < 2.0, f"{elapsed:.2f} s"


# -- (d) round trips -------------------------------------------------------------------------


@FUZZ
@given(st.one_of(valid_bot_messages(), st.dictionaries(st.text(max_size=10), str_keyed)))
def test_encode_then_decode_gives_the_message_back(msg: dict[str, Any]) -> None:
    data = codec.encode(msg)
    decoded = decode_or_code(data)
    if isinstance(decoded, ProtocolError):  # over a limit: only depth can be, with these
        return
    assert codec.encode(decoded) == data  # byte equality: NaN != NaN but packs the same
    if not _has_nan(msg):
        assert decoded == msg


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    return False


# -- (e) the JSON-lines framing of the stdio transport ----------------------------------------

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(INT_MIN, UINT_MAX),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=6), st.dictionaries(st.text(max_size=12), children, max_size=6)
    ),
    max_leaves=12,
)
JSON_TOKENS = [
    b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"\\u", b"d800", b"NaN", b"Infinity",
    b"-Infinity", b"1e400", b"-0", b"true", b"null", b'"v"', b'"type"', b'"action"', b"1",
    b"\n", b"\r", b" ", b"\xff", b"\xc3", b"\x00",
]  # fmt: skip


@st.composite
def json_ish(draw: st.DrawFn) -> bytes:
    """Byte soup made of JSON tokens (and bad bytes), or a valid line with bytes changed."""
    if draw(st.booleans()):
        return b"".join(draw(st.lists(st.sampled_from(JSON_TOKENS), max_size=40)))
    msg = _without_bytes(draw(valid_bot_messages()))
    data = bytearray(json.dumps(msg, ensure_ascii=False).encode())
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        data[at:at] = draw(st.sampled_from(JSON_TOKENS))
    return bytes(data)


def decode_line_or_code(line: bytes, max_bytes: int = codec.MAX_MESSAGE_BYTES) -> Any:
    try:
        msg = codec.decode_line(line, max_bytes)
    except ProtocolError as exc:
        assert exc.code in DECODE_CODES, exc.code
        return exc
    assert len(line) <= max_bytes
    plain(msg)
    return msg


@needs_lines
@FUZZ
@given(st.one_of(st.binary(max_size=200), json_ish()))
def test_any_line_decodes_to_a_plain_message_or_a_protocol_error(line: bytes) -> None:
    decode_line_or_code(line)


@needs_lines
@FEW
@given(st.one_of(st.binary(max_size=64), json_ish()), st.integers(0, 48))
def test_a_small_max_bytes_is_enforced_on_lines(line: bytes, max_bytes: int) -> None:
    result = decode_line_or_code(line, max_bytes)
    if len(line) > max_bytes:
        assert isinstance(result, ProtocolError) and result.code == "too_large"


@needs_lines
@pytest.mark.parametrize(
    "line",
    [
        b"\xff{}",
        b'{"v":"\xc3"}',
        b"not json",
        b"[1,2]",
        b'"a string"',
        b"3",
        b"null",
        b'{"v":NaN}',
        b'{"v":Infinity}',
        b'{"v":-Infinity}',
        b'{"v":1}{"v":2}',
        b'{"v":1}\n{"v":2}',
        b'{"1":' * (MAX_DEPTH + 1) + b"0" + b"}" * (MAX_DEPTH + 1),
    ],
)
def test_lines_that_are_not_one_json_object_are_malformed(line: bytes) -> None:
    with pytest.raises(ProtocolError) as info:
        codec.decode_line(line)
    assert info.value.code == "malformed"


@needs_lines
@FUZZ
@given(any_value)
def test_any_value_as_a_json_line_is_checked_or_refused_with_a_documented_code(
    value: Any,
) -> None:
    try:
        line = json.dumps(value).encode()  # non-str keys become strings, bytes cannot be sent
    except (TypeError, ValueError):
        return
    msg = decode_line_or_code(line)
    if not isinstance(msg, ProtocolError):
        check_or_code(msg)


@needs_lines
@FEW
@given(st.one_of(valid_bot_messages(), st.dictionaries(st.text(max_size=10), json_values)))
def test_encode_line_then_decode_line_gives_the_message_back(msg: dict[str, Any]) -> None:
    msg = _without_bytes(msg)
    line = codec.encode_line(msg)
    assert line.endswith(b"\n") and line.count(b"\n") == 1  # one line, whatever the strings
    decoded = decode_line_or_code(line)
    if isinstance(decoded, ProtocolError):
        return
    assert decoded == msg
    check_or_code(decoded)


@needs_lines
@FUZZ
@given(st.one_of(st.binary(max_size=200), json_ish()))
@example(b'{"v":1,"type":"action","seq":1,"choice":0,"info":"\\ud800"}')  # a lone surrogate
@example(b'{"v":1e400}')  # overflows to inf, which NaN/Infinity literals are refused as
def test_whatever_decode_line_accepts_can_be_sent_on_again(line: bytes) -> None:
    """An accepted message must re-encode on both transports and decode to itself again."""
    msg = decode_line_or_code(line)
    if isinstance(msg, ProtocolError):
        return
    again = codec.encode_line(msg)
    assert codec.decode_line(again) == msg
    assert codec.decode(codec.encode(msg)) == msg


def _without_bytes(value: Any) -> Any:
    """JSON has no bin type: valid_bot_messages' unknown fields may hold bytes; drop them."""
    if isinstance(value, dict):
        return {k: _without_bytes(v) for k, v in value.items() if not isinstance(v, bytes)}
    if isinstance(value, list):
        return [_without_bytes(v) for v in value if not isinstance(v, bytes)]
    if isinstance(value, float) and not math.isfinite(value):
        return 0.0
    return value


@needs_lines
def test_a_line_and_a_frame_agree_on_limits() -> None:
    """The same over-limit content is refused by both decoders with the same code."""
    cases = [
        {"v": "x" * (codec.MAX_STR_LEN + 1)},
        {"v": list(range(codec.MAX_ITEMS + 1))},
        {"v": dict.fromkeys((str(i) for i in range(codec.MAX_ITEMS + 1)), 0)},
    ]
    for msg in cases:
        codes = []
        for decode, encoded in (
            (codec.decode, codec.encode),
            (codec.decode_line, codec.encode_line),
        ):
            with pytest.raises(ProtocolError) as info:
                decode(encoded(msg))
            codes.append(info.value.code)
        assert codes == ["malformed", "malformed"]
