"""Ladder integrity through the real command, real workers and a real SQLite file: host failures
stop the run and store nothing, a bot cannot undo its losses by killing its referee, storage
failures say the stored data is safe, the run lock survives deleting the database, and
``arena ladder forget`` drops matches and rerates."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from arena import sandbox
from arena.cli.main import app
from arena.ladder import loop as ladder
from arena.ladder.store import Store
from tests.broken_hosts import private_python, run_cli, taken_uids

from .helpers import ARENA, ROOT, show_json, stored_count, toml_value, write_ladder

SORE_LOSER = ROOT / "tests/bots/hostile/sore_loser.py"


def run(path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    argv = [ARENA, "ladder", "run", str(path), "--quiet", *args]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})  # fmt: skip


def rows(db: Path, query: str) -> list[tuple]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute(query).fetchall()


def forget(path: Path, *args: str) -> Result:
    """``arena ladder forget PATH ARGS`` in this process (no start-up cost)."""
    return CliRunner().invoke(app, ["ladder", "forget", str(path), *args])


def confined() -> None:
    if not any(sandbox.probe().levels[level].works for level in sandbox.CONFINED):
        pytest.skip("no confining sandbox level works here")


def test_a_host_failure_in_the_workers_stops_the_run_and_blames_no_bot(tmp_path: Path) -> None:
    confined()
    if not sandbox.probe().has("uid"):
        pytest.skip("no bot uids here")
    path = write_ladder(tmp_path, bots=2, rounds=1)
    assert run(path, "--workers", "1").returncode == 0
    db = path.with_suffix(".db")
    ratings = rows(db, "SELECT bot, mu, sigma FROM ratings ORDER BY bot")
    write_ladder(tmp_path, bots=3, rounds=1)  # r3's 4 new matches; the 2 stored stay
    with taken_uids(tmp_path, only_workers=True) as env:
        out = run(path, "--workers", "2", env=env)
    assert out.returncode == 3, out.stderr
    assert out.stderr.startswith("arena: error: the run stopped: host: ")
    assert "no free bot uid in 40000-40999" in out.stderr
    assert "no bot was blamed" in out.stderr
    assert stored_count(db) == 2  # nothing stored for the matches the host could not start
    after = rows(db, "SELECT bot, mu, sigma FROM ratings ORDER BY bot")
    assert after[:2] == ratings and after[2] == ("r3", 25.0, 25 / 3)  # r3: nothing played
    voids = rows(db, "SELECT blame, reason FROM voids")
    assert 0 < len(voids) <= 2 * 2  # stopped at once: at most the matches in flight
    assert all(blame == "host" for blame, _ in voids)
    again = run(path, "--workers", "2")  # fixed: the same command resumes
    assert again.returncode == 0, again.stderr
    assert stored_count(db) == 6
    assert rows(db, "SELECT COUNT(*) FROM results WHERE status = 'crashed'") == [(0,)]


def test_a_python_bot_uids_cannot_reach_stops_the_ladder_before_it_starts(tmp_path: Path) -> None:
    confined()
    python = private_python(tmp_path)
    path = write_ladder(tmp_path, bots=2, rounds=1)
    out = run_cli(python, "ladder", "run", str(path), "--quiet")
    assert out.returncode == 3, out.stderr
    assert "Arena's Python" in out.stderr and "nothing was played" in out.stderr
    assert stored_count(path.with_suffix(".db")) == 0


def test_automatic_selection_refuses_to_run_strangers_unsandboxed(tmp_path: Path) -> None:
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "pyseccomp.py").write_text("raise ImportError('libseccomp.so.2: cannot open')\n")
    env = {"PYTHONPATH": str(fake)}
    path = write_ladder(tmp_path, bots=2, rounds=1)
    out = run(path, env=env)
    assert out.returncode in (2, 3)  # refused while the file is checked, or before the run
    assert "no sandbox level that confines bots works here" in out.stderr
    assert 'sandbox = "rlimits"' in out.stderr
    assert not path.with_suffix(".db").exists()
    path.write_text('sandbox = "rlimits"\n' + path.read_text())
    loud = run(path, "--workers", "1", env=env)
    assert loud.returncode == 0, loud.stderr
    assert "arena: warning: bots run UNSANDBOXED" in loud.stderr
    assert {r[0] for r in rows(path.with_suffix(".db"), "SELECT sandbox FROM results")} == {
        "rlimits"
    }


def test_a_bot_that_kills_its_referee_after_losing_gets_no_free_undo(tmp_path: Path) -> None:
    """Unsandboxed, a bot can kill its referee (the worker) after each loss. Each such match is
    voided at most MAX_VOIDS times, alone; then it is no longer played and the organiser is
    told which bot sat in every one. Matches it won, and the others, stand."""
    path = write_ladder(tmp_path, bots=2, rounds=1, extra='sandbox = "rlimits"')
    loser = f"python {SORE_LOSER}"
    path.write_text(path.read_text() + f'[[bots]]\nname = "loser"\ncommand = {toml_value(loser)}\n')
    db = path.with_suffix(".db")
    outs = [run(path, "--workers", "2") for _ in range(2)]
    assert all(out.returncode in (0, 1) for out in outs), outs[-1].stderr
    counted = dict(
        rows(db, "SELECT match_id, COUNT(*) FROM voids WHERE blame = 'match' GROUP BY 1")
    )
    stored = {m for (m,) in rows(db, "SELECT id FROM matches")}
    for match_id, voids in counted.items():
        assert match_id not in stored and voids == ladder.MAX_VOIDS  # then never again
    assert len(stored) + len(counted) == 6
    won = rows(db, "SELECT rank, status FROM results WHERE bot = 'loser'")
    assert all(rank == 0 and status == "ok" for rank, status in won)  # only its wins stand
    assert rows(db, "SELECT COUNT(*) FROM results WHERE bot != 'loser' AND status != 'ok'") == [
        (0,)
    ]
    if counted:
        assert outs[-1].returncode == 1
        assert "no longer played" in outs[-1].stderr
        assert "seated in every one of them: loser" in outs[-1].stderr
    before = rows(db, "SELECT COUNT(*) FROM voids")
    third = run(path, "--workers", "2")
    assert rows(db, "SELECT COUNT(*) FROM voids") == before  # not played again
    assert third.returncode == (1 if counted else 0)


def test_forget_drops_matches_and_rerates(tmp_path: Path) -> None:
    played = write_ladder(tmp_path, bots=3, rounds=1)
    assert run(played, "--workers", "2").returncode == 0
    db = played.with_suffix(".db")
    refusals = {
        (): "forget needs exactly one of",
        ("--match", "ffffffffffff"): "--match ffffffffffff: no stored match with that id",
        ("--since", "yesterday"): "not an ISO 8601 time",
        ("--bot", "nobody"): "--bot nobody: no such bot",
    }
    for args, message in refusals.items():
        refused = forget(played, *args)
        assert refused.exit_code == 2 and refused.stderr.startswith("arena: error: ")
        assert message in refused.stderr
    ids = [m for (m,) in rows(db, "SELECT id FROM matches ORDER BY id")]
    assert len(ids) == 6
    out = forget(played, "--match", ids[0][:8], "--match", ids[1])
    assert out.exit_code == 0, out.stderr
    assert "forgot 2 stored matches" in out.stderr
    assert stored_count(db) == 4
    assert rows(db, "SELECT COUNT(*) FROM results") == [(8,)]
    table = show_json(played)
    assert sum(b["games"] for b in table["bots"]) == 8
    future = forget(played, "--since", "2999-01-01T00:00")
    assert future.exit_code == 0 and stored_count(db) == 4
    # a bot whose command changed: drop its matches and its record, then it plays again
    gone = forget(played, "--bot", "r3")
    assert gone.exit_code == 0, gone.stderr
    assert rows(db, "SELECT COUNT(*) FROM results WHERE bot = 'r3'") == [(0,)]
    played.write_text(played.read_text().replace("--seed 3", "--seed 33"))
    assert run(played, "--workers", "2").returncode == 0
    assert stored_count(db) == 6
    everything = forget(played, "--since", "2000-01-01")
    assert everything.exit_code == 0 and stored_count(db) == 0
    assert rows(db, "SELECT COUNT(*) FROM rating_history") == [(0,)]


def test_an_unwritable_replay_folder_is_refused_before_anything_is_played(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    path = write_ladder(tmp_path, bots=2, rounds=1, extra=f'replays = "{blocker}/replays"')
    out = run(path)
    assert out.returncode == 4
    assert out.stderr.startswith(f"arena: error: {blocker}/replays: the replay folder cannot")
    assert "nothing was played" in out.stderr
    assert not path.with_suffix(".db").exists()


def _in_private_mounts(script: str) -> subprocess.CompletedProcess:
    """``script`` (sh) in a private mount namespace; skip where one cannot be made."""
    out = subprocess.run(["unshare", "-m", "sh", "-ec", script], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)  # fmt: skip
    if "unshare:" in out.stderr or "mount:" in out.stderr:
        pytest.skip(f"no private mount namespace here: {out.stderr.strip()}")
    return out


def test_a_read_only_database_is_one_error_line_and_the_data_is_safe(tmp_path: Path) -> None:
    played = write_ladder(tmp_path, bots=2, rounds=1)
    assert run(played, "--workers", "1").returncode == 0
    db = played.with_suffix(".db")
    write_ladder(tmp_path, bots=3, rounds=1)
    folder = played.parent
    out = _in_private_mounts(
        f"mount --bind {folder} {folder}; mount -o remount,bind,ro {folder}; "
        f"{ARENA} ladder run {played} --quiet || echo exit=$?"
    )
    assert out.stdout.strip().endswith("exit=4"), out.stderr
    assert out.stderr.startswith(f"arena: error: {db}: cannot write the ladder database")
    assert "every match stored before this is safe" in out.stderr
    assert len(out.stderr.splitlines()) == 1
    assert stored_count(db) == 2


def test_a_full_disk_is_one_error_line_and_the_data_is_safe(tmp_path: Path) -> None:
    small, out_dir = tmp_path / "small", tmp_path / "out"
    small.mkdir()
    out_dir.mkdir()
    path = write_ladder(small, bots=3, rounds=20)
    out = _in_private_mounts(
        f"cp {path} {tmp_path}; mount -t tmpfs -o size=512k tmpfs {small}; cp {tmp_path}/tiny.toml"
        f" {small}; {ARENA} ladder run {path} --quiet --workers 2 || echo exit=$?; "
        f"cp {small}/tiny.db* {out_dir}"
    )
    assert out.stdout.strip().endswith("exit=4"), out.stdout + out.stderr
    assert out.stderr.startswith(f"arena: error: {path.with_suffix('.db')}: cannot write")
    assert "(database or disk is full); every match stored before this is safe" in out.stderr
    assert len(out.stderr.splitlines()) == 1
    db = out_dir / "tiny.db"
    assert 0 < stored_count(db) < 120
    assert rows(db, "PRAGMA integrity_check") == [("ok",)]


def test_the_run_lock_survives_deleting_the_database(tmp_path: Path) -> None:
    path = write_ladder(tmp_path, bots=2, rounds=1)
    db = path.with_suffix(".db")
    holder = Store.create(db, "happy_mochi")
    try:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        out = run(path)
    finally:
        holder.close()
    assert out.returncode == 2
    assert "in use by another `arena ladder` run" in out.stderr
    assert not db.exists()


def test_results_written_into_a_deleted_database_are_not_reported_as_stored(
    tmp_path: Path,
) -> None:
    path = write_ladder(tmp_path, bots=3, rounds=4)
    db = path.with_suffix(".db")
    argv = [ARENA, "ladder", "run", str(path), "--quiet", "--workers", "1"]
    runner = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while stored_count(db) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        out, err = runner.communicate(timeout=300)
    finally:
        runner.kill()
    assert runner.returncode == 4, err
    assert "the database was deleted or replaced during the run" in err
    assert out == ""  # no table: nothing is reported as stored
