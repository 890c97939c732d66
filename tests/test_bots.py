"""Bot commands: names, Python interpreter mapping, and checks before a match starts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.match.bots import BotCommandError, parse_bot, unique_names

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = "sample_bots/python/random_bot.py"


def test_name_defaults_to_script_stem_and_python_maps_to_arena_interpreter() -> None:
    spec = parse_bot(f"python3 {RANDOM_BOT} --seed 4", cwd=ROOT)
    assert spec.name == "random_bot"
    assert spec.argv() == [sys.executable, RANDOM_BOT, "--seed", "4"]
    spec.check()


def test_bare_py_path_runs_under_arena_interpreter() -> None:
    spec = parse_bot(RANDOM_BOT, cwd=ROOT)
    assert spec.argv() == [sys.executable, RANDOM_BOT]
    spec.check()


def test_explicit_name_and_other_programs() -> None:
    spec = parse_bot("me=sh -c 'exit 0'")
    assert spec.name == "me"
    assert spec.command == ("sh", "-c", "exit 0")
    spec.check()


def test_an_equals_sign_inside_arguments_is_not_a_name() -> None:
    spec = parse_bot(f"python {RANDOM_BOT} --x=1", cwd=ROOT)
    assert spec.name == "random_bot"
    assert spec.command[-1] == "--x=1"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("no-such-program-xyz --flag", "not found on PATH"),
        ("python sample_bots/python/missing.py", "cannot read script"),
        ("./not/here", "not an executable file"),
    ],
)
def test_commands_that_cannot_run_are_refused(text: str, words: str) -> None:
    with pytest.raises(BotCommandError, match=words):
        parse_bot(text, cwd=ROOT).check()


def test_empty_or_unbalanced_commands() -> None:
    with pytest.raises(BotCommandError, match="empty command"):
        parse_bot("x=")
    with pytest.raises(BotCommandError, match="No closing quotation"):
        parse_bot("python 'oops")


def test_repeated_names_are_numbered() -> None:
    specs = unique_names([parse_bot(RANDOM_BOT), parse_bot(RANDOM_BOT), parse_bot("g=sh")])
    assert [s.name for s in specs] == ["random_bot", "random_bot-2", "g"]
