"""`arena test FILE A B`: real sequential tests between real bots, killed and resumed."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.ladder import loop as ladder
from arena.ladder.config import load_ladder
from arena.ladder.sprt import Stopped, database, fillers, play_until_decided, set_matches
from arena.ladder.stats import SprtSettings

from .helpers import ARENA, ROOT, SyntheticExecutor, arena, share_key, stored_count

BOTS = {
    "greedy": "python sample_bots/python/mochi_greedy.py",
    "random-1": "python sample_bots/python/random_bot.py --seed 1",
    "random-2": "python sample_bots/python/random_bot.py --seed 2",
    "random-3": "python sample_bots/python/random_bot.py --seed 3",
}
# H1: A ahead by 20 or more relative-score points per set. Greedy is about 30 ahead of a random
# bot in these short games (spread about 10 per set), so the test decides within about 8 sets
# either way.
SPRT = ("--d1", "20", "--alpha", "0.05", "--beta", "0.05", "--workers", "2")


def ladder_file(folder: Path, seats: int = 2) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        'game = "happy_mochi"',
        f"seats = {seats}",
        "seed = 5",
        f"root = {json.dumps(str(ROOT))}",
        "[options]",
        "max_rounds = 1",
        "max_turns_per_round = 10",
    ]
    for name, command in BOTS.items():
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
    fresh = run_test(ladder_file(tmp_path / "fresh"), "greedy", "random-1")
    assert fresh["decision"] == "H1" and fresh["sets"] <= 12
    assert fresh["estimate"]["ci"][0] > 0 and fresh["llr"] >= fresh["upper"]

    path = ladder_file(tmp_path / "killed")
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
    for key in ("decision", "sets", "llr", "estimate"):
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
    out = arena("test", str(ladder_file(tmp_path)), "random-1", "random-2", *SPRT, timeout=240)
    assert out.returncode == 0, out.stderr
    last = out.stdout.splitlines()[-1]
    assert last.startswith("H0 accepted: random-1 is not stronger than random-2"), out.stdout
    assert "sets used" in out.stdout and "LLR" in out.stdout


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
    ]
    for args, message in cases:
        out = arena("test", str(path), *args)
        assert out.returncode == 2 and message in out.stderr, out.stderr
        assert out.stderr.count("\n") == 1 and out.stderr.startswith("arena: error: ")


SETTINGS = SprtSettings(alpha=0.05, beta=0.05, d0=0.0, d1=20.0)


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
