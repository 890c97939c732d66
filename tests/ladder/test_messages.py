"""What a ladder run tells its organiser: progress in logs, a changed bot, the summary."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import ladder as ladder_cli
from arena.cli.main import app

from .helpers import RANDOM, write_ladder


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_progress_lines_when_not_a_terminal_then_a_changed_bot_is_refused_with_a_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ladder_cli, "PROGRESS_EVERY_S", 0.0)  # a line for every match
    path = write_ladder(tmp_path, rounds=1)
    code, out, err = run("ladder", "run", str(path), "--workers", "1")
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("tiny: ") and "/6 " in line]
    assert lines[0].startswith("tiny: 0/6 matches, 0.00/s, 0 bot faults")
    # On a busy machine the run says it slowed down:
    # "(slowed: referees wait for a CPU, 1 of 2 jobs in flight)".
    busy = r"( \(slowed: referees wait for a CPU, \d of \d jobs in flight\))?"
    assert re.fullmatch(r"tiny: 6/6 matches, \d+\.\d\d/s, 0 bot faults" + busy, lines[-1])
    assert len(lines) == 7
    summary = next(line for line in err.splitlines() if "matches scheduled" in line)
    assert re.fullmatch(
        r"tiny: 6 matches scheduled, 0 stored before, 6 played, 0 bot faults, \d+\.\d s", summary
    )
    assert out.split()[:3] == ["#", "bot", "mu-3σ"]  # the table follows on stdout

    path.write_text(path.read_text().replace(f"{RANDOM} --seed 1", f"{RANDOM} --seed 9"))
    code, out, err = run("ladder", "run", str(path), "--workers", "1")
    assert code == 2 and out == ""
    assert err == (
        f"arena: error: {path}: bot 'r1': command 'python {RANDOM} --seed 9' differs from the "
        f"one its stored results were played with ('python {RANDOM} --seed 1'); give the bot a "
        f"new name, or drop its stored matches: arena ladder forget {path} --bot r1\n"
    )
    code, out, err = run("ladder", "show", str(path))
    assert code == 0 and out.split()[:3] == ["#", "bot", "mu-3σ"]
    assert f"note: {path}: bot 'r1': the file's command differs" in err
    assert f"`arena ladder forget {path} --bot r1` drops its matches" in err
