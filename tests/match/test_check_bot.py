"""``arena check-bot`` against real faulty bots (``tests/bots/faulty/``), one per violation class.

Each test runs the command as a user would and checks what an author needs from it: the exit
status, the violation named, and the offending message quoted back.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
FAULTY = ROOT / "tests" / "bots" / "faulty"
RANDOM = ROOT / "sample_bots" / "python" / "random_bot.py"


def check(*args: str) -> tuple[int, str]:
    """Exit code and everything printed (stdout and stderr) by ``arena check-bot ARGS``."""
    result = CliRunner().invoke(app, ["check-bot", *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def faulty(name: str) -> str:
    return f"python {FAULTY / name}.py"


def test_clean_bot_passes_in_every_seat() -> None:
    code, out = check("happy_mochi", "--bot", f"python {RANDOM}", "--games", "2", "--players", "2")
    assert code == 0, out
    assert "game 1 (seed 0, seat 0): played to the end" in out
    assert "game 2 (seed 1, seat 1): played to the end" in out
    assert out.rstrip().splitlines()[-1].startswith("check-bot: ok: 2 games,")


@pytest.mark.parametrize(
    ("bot", "expected"),
    [
        # a missing field: the action without its seq, decoded back for the author
        ("missing_seq", ["bad_field (fatal)", "action has no 'seq' field", '"choice": 0}']),
        # a wrong type: choice as a string
        ("choice_string", ["bad_field (fatal)", "action.choice must be an integer", '"0"']),
        # an old seq: a warning, the game goes on
        ("stale_seq", ["stale_seq (warning)", "played to the end", '"type": "action", "seq":']),
        # one past the last option: the options offered are shown
        ("illegal_choice", ["illegal_action (fatal)", "options 0..", '"choice": ']),
    ],
)
def test_violation_is_named_and_quoted(bot: str, expected: list[str]) -> None:
    code, out = check("happy_mochi", "--bot", faulty(bot), "--games", "1")
    assert code == 1, out
    for text in expected:
        assert text in out
    code_name = expected[0].split()[0]
    assert out.rstrip().splitlines()[-1].startswith("check-bot: FAIL: ")
    assert f"1 {code_name}" in out.rstrip().splitlines()[-1]
    if bot == "illegal_choice":  # one past the last option offered, whatever the deal offered
        last = int(re.search(r"options 0\.\.(\d+)", out).group(1))  # type: ignore[union-attr]
        assert f'"choice": {last + 1}' in out


def test_slow_answers_are_reported_with_the_bank_left() -> None:
    code, out = check("happy_mochi", "--bot", faulty("slow"), "--games", "1", "--move-ms", "100")
    assert code == 1, out
    assert out.count("slow (warning)") == 2
    assert "over move_ms 100;" in out and "ms of bank left" in out
    assert "played to the end" in out  # slow is not a fault while the bank lasts


def test_crash_shows_the_exit_code_and_stderr_tail() -> None:
    code, out = check("happy_mochi", "--bot", faulty("crash"), "--games", "1")
    assert code == 1, out
    assert "FORFEITED (crashed)" in out
    assert "exited with code 3" in out
    assert "| crash.py: giving up at seq" in out


def test_mottainai_over_stdio() -> None:
    bot = faulty("illegal_choice")
    code, out = check("mottainai", "--bot", bot, "--games", "1", "--transport", "stdio")
    assert code == 1, out
    assert f"({bot}, stdio) on mottainai" in out
    assert "illegal_action (fatal)" in out


def test_command_errors_exit_2() -> None:
    code, out = check("happy_mochi", "--bot", "no-such-program-xyz")
    assert code == 2
    assert "arena: error: " in out and "not found" in out
    code, out = check("happy_mochi", "--bot", f"python {RANDOM}", "--transport", "tcp")
    assert code == 2 and "--transport must be one of zmq, pipe, stdio" in out
    code, out = check("mai_star", "--bot", f"python {RANDOM}", "--players", "2")
    assert code == 2 and "3 to 6 players, not 2" in out
