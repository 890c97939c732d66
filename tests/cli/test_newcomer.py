"""What a newcomer meets first: crash reports, handshake hints and validator wording (issue 14).

Each test runs the command a new bot author would run, on a real bot process, and checks that
the output points at the cause rather than at Arena's internals.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.match.channels import excerpt
from protocol.codec import ProtocolError
from protocol.messages import check_bot_message

ROOT = Path(__file__).resolve().parents[2]
FAULTY = ROOT / "tests" / "bots" / "faulty"
RANDOM = ROOT / "sample_bots" / "python" / "random_bot.py"


def arena(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def test_a_crash_keeps_the_first_error_and_the_last_words() -> None:
    code, out = arena(
        "check-bot", "happy_mochi", "--bot", f"python {FAULTY}/noisy_crash.py", "--games", "1"
    )
    assert code == 1, out
    assert "| Error: Cannot find module 'zeromq'" in out
    assert "| Node.js v20.0.0" in out
    assert "lines cut ...]" in out  # the middle of the trace is left out, and said to be


def test_play_says_where_a_crashed_seat_s_stderr_and_replay_are(tmp_path: Path) -> None:
    replay = tmp_path / "r.json"
    code, out = arena(
        "play",
        "happy_mochi",
        "--bot",
        f"python {FAULTY}/noisy_crash.py",
        "--bot",
        f"python {RANDOM}",
        "--replay",
        str(replay),
    )
    assert code == 0, out
    assert "seat 0 (noisy_crash) crashed: its stderr (first and last lines):" in out
    assert "| Error: Cannot find module 'zeromq'" in out
    assert f"arena replay show {replay}" in out
    code, shown = arena("replay", "show", str(replay))
    assert code == 0 and "| Error: Cannot find module 'zeromq'" in shown
    stored = json.loads(replay.read_text())["result"][0]["log_tail"]
    assert stored.startswith("Error: Cannot find module") and "bytes cut ...]" in stored


def test_a_stdio_bot_that_never_flushes_is_told_so() -> None:
    code, out = arena(
        "check-bot",
        "happy_mochi",
        "--bot",
        f"stdio:python {FAULTY}/no_flush.py",
        "--games",
        "1",
        "--init-ms",
        "300",
    )
    assert code == 1, out
    assert "timeout (fatal): the bot never said hello (init_ms)." in out
    assert "no hello within 300 ms (init_ms); a stdio bot must flush stdout" in out
    assert "move_ms" not in out


def test_a_transport_given_twice_must_agree() -> None:
    code, out = arena(
        "check-bot", "happy_mochi", "--bot", f"stdio:python {RANDOM}", "--transport", "zmq"
    )
    assert code == 2
    assert "arena: error: " in out and "stdio" in out and "--transport zmq" in out


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        (
            "choice",
            b"choosing 3",
            'must be an integer, got a msgpack bin (bytes, not str) of 10 bytes: "choosing 3"',
        ),
        ("choice", "3", 'must be an integer, got a string ("3")'),
        ("choice", True, "must be an integer, got a boolean (true)"),
        (
            "info",
            b"\xff\x00",
            "must be a string (msgpack str), got a msgpack bin (bytes, not str) of 2 bytes: 0xff00",
        ),
    ],
)
def test_validator_speaks_the_protocol_s_words(field: str, value: object, words: str) -> None:
    msg = {"v": 1, "type": "action", "seq": 1, "choice": 0, field: value}
    with pytest.raises(ProtocolError) as caught:
        check_bot_message(msg)
    assert str(caught.value) == f"action.{field} {words}"


def test_games_points_to_each_readme_and_the_readmes_agree_on_auto() -> None:
    code, out = arena("games")
    assert code == 0, out
    for game in ("happy_mochi", "mai_star", "motora", "mottainai"):
        assert f"  {game}: arena/games/{game}/README.md" in out
    assert "extended=auto" in out
    readme = (ROOT / "arena" / "games" / "mottainai" / "README.md").read_text()
    assert "| `extended` | bool | `auto` |" in readme and "unset" not in readme.lower()


def test_replay_verify_counts_decisions_from_1_and_exits_1(tmp_path: Path) -> None:
    replay = tmp_path / "r.json"
    code, out = arena(
        "play",
        "happy_mochi",
        "--bot",
        f"python {RANDOM}",
        "--bot",
        f"python {RANDOM} --seed 2",
        "--replay",
        str(replay),
    )
    assert code == 0, out
    data = json.loads(replay.read_text())
    first = data["decisions"][0]
    first["choice"] = 10_000
    replay.write_text(json.dumps(data))
    code, out = arena("replay", "verify", str(replay))
    assert code == 1
    assert "decision 1: choice 10000 out of range" in out
    code, shown = arena("replay", "show", str(replay))
    assert f"#1 seat {first['seat']} " in shown


def test_excerpts_show_bytes_as_text_or_hex_never_python_reprs() -> None:
    assert excerpt({"choice": b"choosing 3"}) == '{"choice": "<bin \'choosing 3\'>"}'
    assert excerpt(b"\x81\xa4") == "0x81a4"
    assert excerpt(b"not json") == '"not json"'
