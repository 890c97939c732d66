"""``arena games`` and ``arena --help`` start without the heavy libraries (issue 28): the
commands that need them are imported when run, and listed meanwhile from their stored help."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer.main

from arena.cli.main import ArenaGroup, app

HEAVY = ("matplotlib", "starlette", "dask", "distributed", "psycopg", "numpy", "uvicorn")

PROBE = """
import json, sys
from arena.cli.main import app
try:
    app(sys.argv[1:], standalone_mode=False)
finally:
    print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize("args", [["games"], ["--help"], ["games", "--json"]])
def test_light_commands_import_no_heavy_library(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True
    )
    modules = json.loads(done.stderr.strip().splitlines()[-1])
    loaded = sorted({m.split(".")[0] for m in modules} & set(HEAVY))
    assert loaded == [], f"arena {' '.join(args)} imported {loaded}"
    assert "ladder" not in {m.rpartition(".")[2] for m in modules if m.startswith("arena.cli")}


def test_listed_help_is_the_commands_own() -> None:
    """Each lazily imported command's stored one-line help is what it says once imported."""
    group = typer.main.get_command(app)
    assert isinstance(group, ArenaGroup)
    for name, lazy in ArenaGroup.lazy.items():
        command = lazy.load(name)
        assert (command.help or "").split("\n\n")[0].split() == lazy.help.split(), name


def test_a_lazy_command_runs() -> None:
    """A lazily imported group parses and runs its subcommands like any other."""
    done = subprocess.run(
        [sys.executable, "-c", "from arena.cli.main import app; app()", "ladder", "show",
         "missing.toml"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2
    assert "missing.toml" in done.stderr
