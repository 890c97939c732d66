"""Every command's ``--help``, rendered as a user sees it, is free of the defects a newcomer met:
type labels on flags (``--help <bool>``) and values (``FILE <path>``, ``--workers <int range>``),
braces round arguments in the usage line (``{FILE}``), text left dangling where markup ate a
default (``Replay file to write .``), raw reStructuredText and paragraphs broken mid-sentence."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from arena.cli.main import app

WIDTH = 80


ROOT = typer.main.get_command(app)
for _name in ROOT.list_commands(None):  # type: ignore[attr-defined, arg-type]
    ROOT.get_command(None, _name)  # type: ignore[attr-defined, arg-type]  # import the lazy ones


def command_paths(command: object = ROOT, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from command_paths(sub, (*path, name))


def command_at(path: tuple[str, ...]) -> Any:
    command: Any = ROOT
    for name in path:
        command = command.commands[name]
    return command


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


def value_names(path: tuple[str, ...]) -> dict[str, str]:
    """What help calls each value: of an argument (by its name), of an option that takes one
    (by its longest flag)."""
    names = {}
    for param in command_at(path).params:
        if param.param_type_name == "argument":
            names[param.name] = param.metavar
        elif not (param.is_flag or param.count):
            names[max(param.opts, key=len)] = param.metavar
    return names


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "arena")
def test_help_names_values(path: tuple[str, ...]) -> None:
    text = render(path)
    usage = text.split("\n\n")[0].split()
    assert not re.search(r"[{}]", " ".join(usage)), usage
    assert not re.search(r"<[^>]*>", text), "a type marker instead of a name"
    assert command_at(path).help, "a command without help"
    rows = " ".join(text.split())
    for key, name in value_names(path).items():
        assert name and name == name.upper(), f"{key}: value named {name!r}"
        if key.startswith("-"):
            assert f"{key} {name} " in rows
        else:
            assert name in usage or f"[{name}]" in usage


def test_usage_and_rows_as_a_user_reads_them() -> None:
    text = render(("ladder", "run"))
    assert text.startswith("Usage: arena ladder run [OPTIONS] FILE\n")
    rows = [" ".join(line.split()[:3]) for line in text.splitlines()]
    assert "FILE Ladder file" in rows
    for row in ("--workers N Local", "--cluster ADDRESS Dask", "-f, --format FORMAT"):
        assert row in rows, text


@pytest.mark.parametrize("command", ["play", "check-bot"])
def test_bot_option_names_every_form(command: str) -> None:
    text = " ".join(render((command,)).split())
    assert "NAME=CMD, pipe:CMD, stdio:CMD, NAME=pipe:CMD or NAME=stdio:CMD" in text
