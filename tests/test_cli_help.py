"""Every command's ``--help``, rendered as a user sees it, is free of the defects a newcomer met:
type labels on flags (``--help <bool>``), text left dangling where markup ate a default
(``Replay file to write .``), raw reStructuredText and paragraphs broken mid-sentence."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import pytest
import typer
from typer.testing import CliRunner

from arena.cli.main import app

WIDTH = 80


def command_paths(command: object = None, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    command = command or typer.main.get_command(app)
    yield path
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from command_paths(sub, (*path, name))


def render(path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(
        app, [*path, "--help"], prog_name="arena", terminal_width=WIDTH, env={"COLUMNS": str(WIDTH)}
    )
    assert result.exit_code == 0, result.output
    return result.output


def paragraphs(text: str) -> list[list[str]]:
    """The description's paragraphs (before Arguments/Options), as their lines."""
    body = re.split(r"\n(?:Arguments|Options|Commands):\n", text)[0]
    blocks = body.split("\n\n")[1:]  # the first block is the usage line
    return [[line.strip() for line in b.splitlines()] for b in blocks if b.strip()]


PATHS = list(command_paths())


def test_every_command_is_covered() -> None:
    names = {" ".join(p) for p in PATHS}
    assert {"play", "check-bot", "games", "replay verify", "ladder run", "ladder show"} <= names


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "arena")
def test_help_is_clean(path: tuple[str, ...]) -> None:
    text = render(path)
    assert text.startswith(f"Usage: arena {' '.join(path)}".rstrip())
    assert "<bool>" not in text  # a flag takes no value
    assert not re.search(r"\w \.(\s|$)", text), "text dangling where a [default] was eaten"
    assert "``" not in text and ":class:" not in text and ":func:" not in text
    assert "[default: ]" not in text
    for lines in paragraphs(text):
        for line, following in itertools.pairwise(lines):
            fits = len(line) + 1 + len(following.split()[0]) <= WIDTH - 4
            assert not fits, f"line broken before it was full: {line!r} / {following!r}"


@pytest.mark.parametrize("command", ["play", "check-bot"])
def test_bot_option_names_every_form(command: str) -> None:
    text = " ".join(render((command,)).split())
    assert "NAME=CMD, stdio:CMD or NAME=stdio:CMD" in text
