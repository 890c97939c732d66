"""`arena ladder show`: shared places, a table that fits the terminal, an incomplete ladder."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

from arena.ladder import run as ladder
from arena.ladder.config import load_ladder
from arena.ladder.jobs import MatchJob, Returned

from .helpers import ARENA, ROOT, SyntheticExecutor, arena
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


def test_a_score_outside_the_game_range_is_one_error_naming_the_match(tmp_path: Path) -> None:
    """A stored score the game's declared range does not allow (a game that broke its
    score_range) voids every interval: show, compare, seats, h2h, report and rerate each print
    one line naming the match, the seat, the bot and the range, exit 2 and change nothing; the
    remedy it gives (forget the match) works."""
    path = ladder_file(tmp_path)
    path.write_text(path.read_text().replace("seed = 5\n", "seed = 5\nrounds = 2\n"))
    cfg = load_ladder(path)
    first = ladder.schedule_of(cfg)[0]
    match_id, seat, bot = first.match_id, 0, first.bots[0]
    ladder.run_ladder(cfg, OutOfRange(match_id))  # stored, and kept, as any result is
    db = tmp_path / "t.db"
    before = _stored(db)
    expected = (
        f"arena: error: {path}: match {match_id}, seat {seat} (bot {bot!r}): score 12.5 is "
        "outside [-344, 0], the score range the game declares for these seats and options; "
        "every interval and verdict rests on that range, so none is computed. The game "
        "(happy_mochi) broke it: report this match to its maintainers (its replay reproduces "
        f"it), then drop the match to read the rest: arena ladder forget {path} --match "
        f"{match_id}\n"
    )
    for command in (
        ("show",),
        ("compare", "greedy", "random-1"),
        ("seats",),
        ("h2h",),
        ("report", "--out", str(tmp_path / "report")),
        ("rerate",),
    ):
        out = arena("ladder", command[0], str(path), *command[1:])
        assert (out.returncode, out.stdout, out.stderr) == (2, "", expected), command
        if command[0] != "rerate":  # it rewrites the ratings, which need no score range
            assert _stored(db) == before, command
    out = arena("ladder", "forget", str(path), "--match", match_id)
    assert out.returncode == 0, out.stderr
    assert show(path).returncode == 0


class OutOfRange(SyntheticExecutor):
    """A game that broke its declared score range in one match: seat 0 scored 12.5."""

    def __init__(self, match_id: str) -> None:
        super().__init__()
        self.match_id = match_id

    def _result(self, job: MatchJob) -> Returned:
        returned = super()._result(job)
        if job.match_id == self.match_id and returned.result is not None:
            returned.result["seats"][0]["score"] = 12.5
        return returned


def _stored(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT * FROM results ORDER BY match_id, seat").fetchall()
