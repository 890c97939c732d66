"""Bot commands: names, Python interpreter mapping, and checks before a match starts."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from arena.match.bots import BotCommandError, parse_bot, unique_names

ROOT = Path(__file__).resolve().parents[2]
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
        ("python sample_bots/python/missing.py", "missing.py: no such file"),
        ("./not/here", "./not/here: no such file"),
        ("./README.md", r"not an executable file \(chmod \+x ./README.md\)"),
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


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("ruby mochi_bot.rb --seed 2", "mochi_bot"),
        ("node sample_bots/node/bot.js", "bot"),
        ("java -Xmx64m -jar build/strong.jar", "strong"),
        ("./my_bot --seed 2", "my_bot"),
        ("./my_bot --config conf.json", "my_bot"),  # a program given by path is the bot
        ("bots/bot.py --config conf.json", "bot"),
        ("sh -c 'exit 0'", "sh"),
    ],
)
def test_default_name_is_the_script_for_any_interpreter(command: str, name: str) -> None:
    assert parse_bot(command, cwd=ROOT).name == name


@pytest.mark.skipif(os.geteuid() != 0, reason="bwrap runs a bot as another user only as root")
def test_files_the_bot_user_cannot_read_are_refused_with_the_chmod_hint(tmp_path: Path) -> None:
    folder = tmp_path / "my_bot"
    folder.mkdir()
    script = folder / "bot.rb"
    script.write_text("puts 1\n")
    os.chmod(folder, 0o700)
    os.chmod(script, 0o600)
    spec = parse_bot(f"sh {script}")
    assert spec.name == "bot"
    spec.check("rlimits")  # the bot runs as its starter: nothing to say
    hint = rf"not readable by other users, .* chmod -R a\+rX {folder}$"
    with pytest.raises(BotCommandError, match=rf"{script} is {hint}"):
        spec.check("bwrap")
    os.chmod(script, 0o644)
    with pytest.raises(BotCommandError, match=rf"{folder} is {hint}"):
        spec.check("bwrap")  # the folder shut to others hides the readable file
    os.chmod(folder, 0o755)
    spec.check("bwrap")  # bwrap shows the bot its folder alone: folders above do not matter


def test_at_uid_level_every_folder_above_must_open(tmp_path: Path) -> None:
    shut = tmp_path / "shut"
    (shut / "bot").mkdir(parents=True)
    script = shut / "bot" / "bot.rb"
    script.write_text("puts 1\n")
    os.chmod(shut, 0o700)
    with pytest.raises(BotCommandError, match=rf"{shut} is not readable .*: chmod a\+x {shut}$"):
        parse_bot(f"sh {script}").check("uid")
