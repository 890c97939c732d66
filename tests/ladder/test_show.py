"""`arena ladder show`: shared places, a table that fits the terminal, an incomplete ladder."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from arena.ladder import run as ladder
from arena.ladder.config import load_ladder

from .helpers import ARENA, ROOT, SyntheticExecutor
from .test_sprt import ladder_file


def show(path: Path, *args: str, columns: int = 80) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns)}
    command = [ARENA, "ladder", "show", str(path), *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env, timeout=60)


def test_show_fits_the_terminal_and_says_when_the_ladder_is_incomplete(tmp_path: Path) -> None:
    """Synthetic results (greedy far ahead) for 16 rounds, then the file asks for 17: 32 sets per
    pair establish greedy's place at every look, family-wise over all 12 ordered pairs."""
    path = ladder_file(tmp_path)
    text = path.read_text().replace("seed = 5\n", "seed = 5\nrounds = 16\n")
    path.write_text(text)
    ladder.run_ladder(load_ladder(path), SyntheticExecutor())
    out = show(path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert max(map(len, lines[:6])) <= 80
    assert lines[2].split()[:2] == ["1", "greedy"]  # far ahead: its place is established
    assert [line.split()[0] for line in lines[3:6]] == ["2=", "2=", "2="]
    assert "incomplete" not in out.stdout
    wide = show(path, "--wide").stdout.splitlines()
    assert "mean score" in wide[0] and max(map(len, wide)) > 80
    path.write_text(text.replace("rounds = 16", "rounds = 17"))
    out = show(path)
    assert out.stdout.splitlines()[-1].startswith(
        "192 of 204 matches stored: the ladder is incomplete"
    )
    data = json.loads(show(path, "-f", "json").stdout)
    assert (data["matches_stored"], data["matches_scheduled"], data["complete"]) == (
        192,
        204,
        False,
    )
