"""A following ladder as an organiser runs it: a real runner process, real submissions while
it plays, killed with SIGKILL and started again."""

from __future__ import annotations

import csv
import io
import os
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.ladder.loop import MAX_VOIDS
from tests.registry.helpers import ARENA, ROOT, arena, bot_folder

RANDOM = ROOT / "sample_bots" / "python" / "random_bot.py"
PLACEMENT = 2
SEATS = 2


def _rows(db: Path) -> list[tuple[str, str, str]]:
    """(match id, set id, bots) of every stored match, in storage order."""
    if not db.exists():
        return []
    with sqlite3.connect(db, timeout=30) as conn:
        try:
            return conn.execute("SELECT id, set_id, seats FROM matches ORDER BY rowid").fetchall()
        except sqlite3.OperationalError:  # schema not made yet
            return []


def _wait(until, what: str, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)


def _kill(runner: subprocess.Popen[bytes]) -> None:
    """SIGKILL the runner and its workers (one process group), and wait until every one of
    them is gone, reaped included: a match folder is swept once its worker no longer exists."""
    os.killpg(runner.pid, signal.SIGKILL)
    runner.wait()

    def gone() -> bool:
        try:
            os.killpg(runner.pid, 0)
        except ProcessLookupError:
            return True
        return False

    _wait(gone, "the runner's workers to exit", timeout=60)


def _start(ladder: Path) -> subprocess.Popen[bytes]:
    command = [ARENA, "ladder", "run", str(ladder), "--follow", "-q", "--workers", "2"]
    return subprocess.Popen(command, cwd=ladder.parent, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip


@pytest.mark.timeout(900)  # registry bots only: a set's rotations are played one at a time
def test_new_version_enters_while_it_runs_and_a_killed_runner_loses_nothing(
    tmp_path: Path,
) -> None:
    reg = ["--registry", str(tmp_path / "registry")]
    alice = bot_folder(tmp_path / "alice")
    for folder in (alice, bot_folder(tmp_path / "bob", name="bob")):
        out = arena("bot", "submit", str(folder), "--check-games", "1", *reg)
        assert out.returncode == 0, out.stderr
    ladder = tmp_path / "follow.toml"
    ladder.write_text(
        f'game = "happy_mochi"\nseats = {SEATS}\nseed = 5\nregistry = "registry"\n'
        f"[follow]\nplacement = {PLACEMENT}\npoll_s = 0.2\n[options]\nmax_rounds = 1\n"
        '[[bots]]\nbot = "alice"\n[[bots]]\nbot = "bob"\n'
        f'[[bots]]\nname = "other"\ncommand = "python {RANDOM} --seed 3"\n'
    )
    db = tmp_path / "follow.db"
    runner = _start(ladder)
    try:
        _wait(lambda: len(_rows(db)) >= 4, "the first sets")
        (alice / "bot.py").write_text((alice / "bot.py").read_text() + "\n# version 2\n")
        out = arena("bot", "submit", str(alice), "--check-games", "1", *reg)
        assert out.returncode == 0 and out.stdout.startswith("alice@2: stored"), out.stderr

        def placed() -> bool:
            return sum("alice@2" in bots for _, _, bots in _rows(db)) >= PLACEMENT * SEATS

        _wait(placed, "alice@2's placement sets")
        _kill(runner)
        before = _rows(db)
        runner = _start(ladder)
        _wait(lambda: len(_rows(db)) >= len(before) + 2 * SEATS, "more sets after the restart")
    finally:
        _kill(runner)
    rows = _rows(db)
    assert rows[: len(before)] == before  # nothing stored before the kill was lost
    assert len({r[0] for r in rows}) == len(rows)  # nor played twice
    per_set = Counter(r[1] for r in rows)
    assert all(n <= SEATS for n in per_set.values())
    incomplete = [s for s, n in per_set.items() if n < SEATS]
    assert len(incomplete) <= 1 and (not incomplete or rows[-1][1] in incomplete)
    # Placement: from alice@2's first match, its first sets come before anyone else's (apart
    # from the rest of the set in flight when it was submitted), and alice@1 plays no more.
    first = next(i for i, r in enumerate(rows) if "alice@2" in r[2])
    later_sets = list(dict.fromkeys(r[1] for r in rows[first:]))
    sets_bots = {r[1]: r[2] for r in rows}
    assert all("alice@2" in sets_bots[s] for s in later_sets[:PLACEMENT])
    assert sum("alice@1" in r[2] for r in rows[first:]) <= SEATS - 1
    shown = arena("ladder", "show", str(ladder), "--format", "csv")
    assert shown.returncode == 0, shown.stderr
    games = {row["bot"]: int(row["games"]) for row in csv.DictReader(io.StringIO(shown.stdout))}
    assert set(games) == {"alice@1", "alice@2", "bob@1", "other"}
    for bot in games:  # the previous version's results are kept and shown
        assert games[bot] == sum(bot in r[2] for r in rows) > 0


CRASHY_BOT = """
import sys

from protocol.bot import Bot, Turn, Welcome, run


class Crashy(Bot):
    def on_welcome(self, welcome: Welcome) -> None:
        if welcome.players == 2:  # check-bot seats 3 players: it passes validation
            print("boom: two players", file=sys.stderr, flush=True)
            sys.exit(3)

    def choose(self, turn: Turn) -> int:
        return 0


run(Crashy())
"""


def test_a_version_that_keeps_crashing_is_suspended_with_its_faults(tmp_path: Path) -> None:
    reg = ["--registry", str(tmp_path / "registry")]
    for folder in (
        bot_folder(tmp_path / "alice"),
        bot_folder(tmp_path / "crashy", name="crashy", source=CRASHY_BOT),
    ):
        out = arena("bot", "submit", str(folder), "--check-games", "1", *reg)
        assert out.returncode == 0, out.stderr
    ladder = tmp_path / "crash.toml"
    ladder.write_text(
        'game = "happy_mochi"\nseats = 2\nregistry = "registry"\n[follow]\npoll_s = 0.2\n'
        '[options]\nmax_rounds = 1\n[[bots]]\nbot = "alice"\n[[bots]]\nbot = "crashy"\n'
    )
    runner = _start(ladder)
    try:

        def suspended() -> bool:
            shown = arena("bot", "show", "crashy@1", *reg).stdout
            return shown.startswith("crashy@1: suspended")

        _wait(suspended, "crashy@1 suspended")
    finally:
        _kill(runner)
    shown = arena("bot", "show", "crashy", *reg).stdout
    assert "crashed" in shown and "games of ladder crash" in shown
    crashed = [r[0] for r in _rows(tmp_path / "crash.db") if "crashy@1" in r[2]]
    assert len(crashed) >= 6  # MIN_GAMES, every one a fault
    for match_id in crashed:
        assert f"match {match_id}: crashed" in shown
    assert "| boom: two players" in shown


SORE_LOSER = ROOT / "tests" / "bots" / "hostile" / "sore_loser.py"


def _own_voids(db: Path) -> dict[str, int]:
    """Each match's own voids (those counted towards MAX_VOIDS)."""
    if not db.exists():
        return {}
    with sqlite3.connect(db, timeout=30) as conn:
        try:
            query = "SELECT match_id, COUNT(*) FROM voids WHERE blame = 'match' GROUP BY 1"
            return dict(conn.execute(query).fetchall())
        except sqlite3.OperationalError:  # schema not made yet
            return {}


@pytest.mark.timeout(600)  # each void costs a worker's restart: slow on a busy machine
def test_the_void_limit_holds_in_a_following_ladder_with_a_bot_that_kills_its_referee(
    tmp_path: Path,
) -> None:
    """Unsandboxed, a bot can kill its referee (the worker) after each game it loses. In a
    following ladder too, each such match is voided MAX_VOIDS times at most, then passed over
    with its set: the ladder plays on, and only the games the bot won stand."""
    ladder = tmp_path / "loser.toml"
    ladder.write_text(
        'game = "happy_mochi"\nseats = 2\nseed = 5\nsandbox = "rlimits"\n'
        "[follow]\npoll_s = 0.2\n[options]\nmax_rounds = 1\n"
        f'[[bots]]\nname = "loser"\ncommand = "python {SORE_LOSER}"\n'
        f'[[bots]]\nname = "r1"\ncommand = "python {RANDOM} --seed 1"\n'
        f'[[bots]]\nname = "r2"\ncommand = "python {RANDOM} --seed 2"\n'
    )
    db = tmp_path / "loser.db"
    runner = _start(ladder)

    def moved_on() -> bool:
        """A match reached the limit, and two more matches were stored since."""
        blocked = [m for m, n in _own_voids(db).items() if n >= MAX_VOIDS]
        if not blocked:
            return False
        with sqlite3.connect(db, timeout=30) as conn:
            (since,) = conn.execute(
                "SELECT COUNT(*) FROM matches WHERE finished_at > "
                "(SELECT MAX(at) FROM voids WHERE match_id = ?)",
                (blocked[0],),
            ).fetchone()
        return since >= 2

    try:
        _wait(moved_on, "the ladder to pass over a match at the void limit", timeout=540)
    finally:
        _kill(runner)
    own = _own_voids(db)
    assert max(own.values()) == MAX_VOIDS  # never more: not played again
    stored = {r[0] for r in _rows(db)}
    assert not {m for m, n in own.items() if n == MAX_VOIDS} & stored
    with sqlite3.connect(db) as conn:
        loser = conn.execute("SELECT rank, status FROM results WHERE bot = 'loser'").fetchall()
        others = conn.execute("SELECT COUNT(*) FROM results WHERE bot != 'loser' AND status "
                              "!= 'ok'").fetchone()[0]  # fmt: skip
    assert all(rank == 0 and status == "ok" for rank, status in loser)  # only its wins stand
    assert others == 0
