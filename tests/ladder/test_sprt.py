"""`arena test FILE A B`: real sequential tests between real bots, killed and resumed."""

from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.games.happy_mochi import GAME as MOCHI
from arena.ladder import loop as ladder
from arena.ladder.config import load_ladder
from arena.ladder.sprt import Stopped, database, fillers, play_until_decided, set_matches
from arena.ladder.stats import SprtSettings, difference_bounds

from .helpers import ARENA, ROOT, SyntheticExecutor, arena, share_key, stored_count

RANDOM = "python sample_bots/python/random_bot.py --seed {}"
BOTS = {"greedy": "python sample_bots/python/mochi_greedy.py"} | {
    f"random-{i}": RANDOM.format(i) for i in (1, 2, 3)
}
# Motora scores a win 1 and a loss 0, so a set's difference lies in [-1, 1] and a sequential
# test needs few sets: greedy wins nearly every 4-turn game against a random bot. H1: A wins
# half a game per set more; two copies of one program are told apart from that in ~10 sets.
MOTORA_BOTS = {"greedy": "python sample_bots/python/motora_greedy.py"} | {
    f"random-{i}": RANDOM.format(i) for i in (1, 2, 3)
}
SPRT = ("--d1", "0.5", "--alpha", "0.05", "--beta", "0.05", "--workers", "2")


def ladder_file(folder: Path, seats: int = 2, game: str = "happy_mochi") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        f'game = "{game}"',
        f"seats = {seats}",
        "seed = 5",
        f"root = {json.dumps(str(ROOT))}",
        "[options]",
        *(
            ["turn_limit = 4"]
            if game == "motora"
            else ["max_rounds = 1", "max_turns_per_round = 10"]
        ),
    ]
    bots = MOTORA_BOTS if game == "motora" else BOTS
    for name, command in bots.items():
        lines += ["[[bots]]", f'name = "{name}"', f"command = {json.dumps(command)}"]
    path = folder / "t.toml"
    path.write_text("\n".join(lines) + "\n")
    share_key(folder / "t.db")  # every copy deals alike, the tests' own databases too
    share_key(database(load_ladder(path, check_bots=False), "greedy", "random-1"))
    return path


def run_test(path: Path, a: str, b: str, *extra: str) -> dict:
    out = arena("test", str(path), a, b, *SPRT, "--json", *extra, timeout=240)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_greedy_beats_random_and_a_killed_test_resumes_to_the_same_decision(
    tmp_path: Path,
) -> None:
    fresh = run_test(ladder_file(tmp_path / "fresh", game="motora"), "greedy", "random-1")
    assert fresh["decision"] == "H1" and fresh["sets"] <= 14
    assert fresh["log_capital_for_h1"] >= fresh["h1_at"] == pytest.approx(math.log(20))
    assert fresh["settings"]["difference_range"] == [-1.0, 1.0]

    path = ladder_file(tmp_path / "killed", game="motora")
    cfg = load_ladder(path, check_bots=False)
    db = database(cfg, "greedy", "random-1")
    first = set_matches(cfg, "greedy", "random-1", 0)[0].set_id  # sets count from the first
    command = [ARENA, "test", str(path), "greedy", "random-1", *SPRT, "-q"]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not _whole(db, first) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.communicate(timeout=30)
    assert _whole(db, first) and stored_count(db) < 2 * fresh["sets"], "killed half-way"
    resumed = run_test(path, "greedy", "random-1")
    assert resumed["stored_before"] >= 1  # at least one whole set survived the kill
    for key in ("decision", "sets", "log_capital_for_h1", "log_capital_for_h0", "estimate"):
        assert resumed[key] == fresh[key], key
    again = run_test(path, "greedy", "random-1")  # decided: nothing more is played
    assert again["sets"] == fresh["sets"] and again["stored_before"] == again["complete_sets"]


def _whole(db: Path, set_id: str) -> bool:
    """Whether both rotations of the 2-seat set ``set_id`` are stored."""
    if stored_count(db) == 0:
        return False
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        query = "SELECT COUNT(*) FROM matches WHERE set_id = ?"
        return conn.execute(query, (set_id,)).fetchone()[0] == 2


def test_two_copies_of_one_program_are_not_called_different(tmp_path: Path) -> None:
    path = ladder_file(tmp_path, game="motora")
    out = arena("test", str(path), "random-1", "random-2", *SPRT, timeout=240)
    assert out.returncode == 0, out.stderr
    last = out.stdout.splitlines()[-1]
    assert last.startswith("H0 accepted: random-1 is not stronger than random-2"), out.stdout
    assert "whatever the shape of its scores" in last
    assert "sets used" in out.stdout and "evidence for H1 x" in out.stdout
    assert "a set's difference can range over [-1, 1]" in out.stdout


def test_more_seats_rotate_the_other_bots_through_the_fillers(tmp_path: Path) -> None:
    cfg = load_ladder(ladder_file(tmp_path, seats=3), check_bots=False)
    assert [fillers(cfg, "greedy", "random-1", i) for i in range(4)] == [
        ("random-2",),
        ("random-3",),
        ("random-2",),
        ("random-3",),
    ]
    sets = [set_matches(cfg, "greedy", "random-1", i) for i in range(4)]
    for index, matches in enumerate(sets):
        assert [m.position for m in matches] == [3 * index + r for r in range(3)]
        assert len({m.seed for m in matches}) == 1 and len({m.set_id for m in matches}) == 1
        seats_of = Counter((bot, seat) for m in matches for seat, bot in enumerate(m.bots))
        assert set(seats_of.values()) == {1} and len(seats_of) == 9  # each bot in each seat
    ids = [m.match_id for s in sets for m in s]
    assert len(set(ids)) == len(ids)
    assert set_matches(cfg, "greedy", "random-1", 2) == sets[2]  # a function of the index


def test_bad_requests_are_one_line_errors(tmp_path: Path) -> None:
    path = ladder_file(tmp_path)
    cases = [
        (("greedy", "nobody", "--d1", "5"), "no bot named 'nobody'"),
        (("greedy", "greedy", "--d1", "5"), "two different bots"),
        (("greedy", "random-1", "--d1", "5", "--alpha", "0.7"), "alpha must be between 0 and 0.5"),
        (("greedy", "random-1", "--d1", "0"), "d1 must be greater than d0"),
        (("greedy", "random-1", "--d1", "400"), "must lie inside (-344, 344)"),
    ]
    for args, message in cases:
        out = arena("test", str(path), *args)
        assert out.returncode == 2 and message in out.stderr, out.stderr
        assert out.stderr.count("\n") == 1 and out.stderr.startswith("arena: error: ")


# SyntheticExecutor: greedy 30 points ahead in Happy Mochi's range, spread about 8 per set
SETTINGS = SprtSettings(
    alpha=0.05, beta=0.05, d0=0.0, d1=20.0, bounds=difference_bounds(MOCHI.score_range(2, {}))
)


def test_an_interrupted_test_resumes_to_the_same_decision_and_voids_are_retried(
    tmp_path: Path,
) -> None:
    straight = play_until_decided(
        load_ladder(ladder_file(tmp_path / "a")),
        "greedy",
        "random-1",
        SETTINGS,
        200,
        SyntheticExecutor(),
    )
    assert straight.state.decision == "H1" and straight.stored_before == 0

    cfg = load_ladder(ladder_file(tmp_path / "b"))
    with pytest.raises(KeyboardInterrupt):
        play_until_decided(
            cfg, "greedy", "random-1", SETTINGS, 200, SyntheticExecutor(interrupt_after=5)
        )
    first = set_matches(cfg, "greedy", "random-1", 3)[0].match_id  # not played before
    resumed = play_until_decided(
        cfg, "greedy", "random-1", SETTINGS, 200, SyntheticExecutor(void_once={first})
    )
    assert resumed.stored_before == 2 and resumed.state == straight.state
    with sqlite3.connect(database(cfg, "greedy", "random-1")) as conn:
        assert conn.execute("SELECT match_id, attempt FROM voids").fetchall() == [(first, 1)]


def test_a_match_that_stays_void_stops_the_test_and_is_not_played_again(tmp_path: Path) -> None:
    """Each run tries it up to MAX_ATTEMPTS times; once its voids reach MAX_VOIDS over all
    runs, it is not played again (no free undo for a bot that crashes its referee)."""
    cfg = load_ladder(ladder_file(tmp_path))
    stuck = set_matches(cfg, "greedy", "random-1", 0)[1].match_id
    messages = []
    for _ in range(ladder.MAX_VOIDS):
        executor = SyntheticExecutor(void_always={stuck})
        with pytest.raises(Stopped) as stopped:
            play_until_decided(cfg, "greedy", "random-1", SETTINGS, 200, executor)
        messages.append(str(stopped.value))
        if "not played again" in messages[-1]:
            break
    assert f"match {stuck} " in messages[0]
    assert f"still void after {ladder.MAX_ATTEMPTS} tries" in messages[0]
    assert f"voided {ladder.MAX_VOIDS} times" in messages[-1]
    assert "not played again" in messages[-1]
    with sqlite3.connect(database(cfg, "greedy", "random-1")) as conn:
        (voids,) = conn.execute("SELECT COUNT(*) FROM voids").fetchone()
    assert voids == ladder.MAX_VOIDS


def test_a_score_outside_the_game_range_gives_no_decision_but_one_error(tmp_path: Path) -> None:
    """A stored score the game's range does not allow (a game that broke its score_range) voids
    the test's error rates: `arena test` names the match, the seat and the range, exits 2 and
    says how to start afresh, even when the per-set differences stay inside their range."""
    path = ladder_file(tmp_path)
    cfg = load_ladder(path)
    play_until_decided(cfg, "greedy", "random-1", SETTINGS, 200, SyntheticExecutor())
    db = database(cfg, "greedy", "random-1")
    match_id = set_matches(cfg, "greedy", "random-1", 0)[0].match_id
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE results SET score = 3 WHERE match_id = ? AND seat = 1", (match_id,))
        (bot,) = conn.execute(
            "SELECT bot FROM results WHERE match_id = ? AND seat = 1", (match_id,)
        ).fetchone()
    out = arena("test", str(path), "greedy", "random-1", "--d1", "20", "--workers", "1", "-q")
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (
        f"arena: error: {path}: match {match_id}, seat 1 (bot {bot!r}): score 3 is outside "
        "[-344, 0], the score range the game declares for these seats and options; every "
        "interval and verdict rests on that range, so none is computed. The game (happy_mochi) "
        "broke it: report this match to its maintainers (its replay reproduces it), then "
        f"delete {db} to start the test afresh\n"
    )
