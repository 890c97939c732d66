"""The ladder store on a real PostgreSQL server (``tests/postgres.py``): the same ladder gives
the same database and table as on SQLite, a killed run resumes without losing or doubling a
match, one runner at a time, and a password in the URL is never printed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.ladder import run as ladder
from arena.ladder.config import load_ladder
from arena.ladder.store import NoDatabase, Store

from .helpers import ARENA, ROOT, SyntheticExecutor, arena, share_key, show_json, write_ladder

SCHEDULED = 3 * 2 * 3  # 3 tables (3 bots, 2 seats) x 2 rotations x 3 rounds
WHEN = ("started_at", "finished_at", "duration_ms", "seq", "replay_path", "worker")


def _on(url: str, folder: Path, **kw: Any) -> Path:
    return write_ladder(folder, extra=f'database = "{url}"', **kw)


def _dealing_as_sqlite(url: str, folder: Path) -> Path:
    """A tiny ladder on PostgreSQL whose deals are the SQLite tiny ladders' (``TEST_KEY``)."""
    share_key(url)
    return _on(url, folder)


def _stored(url: str) -> list[str]:
    try:
        store = Store.read(url, "happy_mochi")
    except NoDatabase:
        return []
    try:
        return [r[0] for r in store.conn.execute("SELECT id FROM matches")]
    finally:
        store.close()


def _contents(location: str | Path) -> dict[str, Any]:
    """Everything stored that does not depend on when or where it was played."""
    store = Store.read(location, "happy_mochi")
    try:
        rows = store.match_rows(full=True)
        for row in rows.values():
            for key in WHEN:
                row.pop(key, None)
        ratings = [tuple(r) for r in store.conn.execute("SELECT bot, mu, sigma FROM ratings")]
        history = store.conn.execute(
            "SELECT position, match_id, bot, mu, sigma FROM rating_history"
        )
        return {"matches": rows, "order": store.stored_order(), "ratings": sorted(ratings),
                "history": sorted(tuple(r) for r in history)}  # fmt: skip
    finally:
        store.close()


def test_the_same_results_store_the_same_on_postgres_and_sqlite(
    postgres_url: str, tmp_path: Path
) -> None:
    """Every column, float and 60-bit deal seed comes back exactly, in storage order."""
    found = []
    pg = _dealing_as_sqlite(postgres_url, tmp_path / "pg")
    for path in (pg, write_ladder(tmp_path / "sqlite")):
        cfg = load_ladder(path, check_bots=False)
        summary = ladder.run_ladder(cfg, SyntheticExecutor())
        assert summary.played == SCHEDULED
        found.append(_contents(cfg.database))
    on_postgres, on_sqlite = found
    assert on_postgres == on_sqlite
    assert max(r["seed"] for r in on_postgres["matches"].values()) > 2**31


def test_a_ladder_run_on_postgres_gives_the_sqlite_table_and_resumes(
    postgres_url: str, tmp_path: Path
) -> None:
    sqlite_path = write_ladder(tmp_path / "sqlite")
    path = _dealing_as_sqlite(postgres_url, tmp_path / "pg")
    for p in (sqlite_path, path):
        out = arena("ladder", "run", str(p), "--workers", "2", "--quiet")
        assert out.returncode == 0, out.stderr
    assert show_json(path) == show_json(sqlite_path)
    again = arena("ladder", "run", str(path), "--quiet")
    assert again.returncode == 0, again.stderr
    assert f"{SCHEDULED} stored before, 0 played" in again.stderr
    assert len(_stored(postgres_url)) == SCHEDULED
    report = arena("ladder", "report", str(path))
    assert report.returncode == 0, report.stderr
    page = (path.parent / "tiny.report" / "index.html").read_text()  # beside the ladder file
    name = postgres_url.rsplit("/", 1)[1]
    assert f"from PostgreSQL database {name}." in page and "127.0.0.1" not in page


def test_sigkill_mid_run_on_postgres_then_resume(postgres_url: str, tmp_path: Path) -> None:
    reference = write_ladder(tmp_path / "sqlite")
    assert arena("ladder", "run", str(reference), "--quiet").returncode == 0
    path = _dealing_as_sqlite(postgres_url, tmp_path / "pg")
    runner = subprocess.Popen(
        [ARENA, "ladder", "run", str(path), "--workers", "2", "--quiet"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while len(_stored(postgres_url)) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(runner.pid, signal.SIGKILL)
    runner.wait()
    before = _stored(postgres_url)
    assert 3 <= len(before) < SCHEDULED, "killed half-way"
    out = arena("ladder", "run", str(path), "--quiet")
    assert out.returncode == 0, out.stderr
    after = _stored(postgres_url)
    assert len(after) == len(set(after)) == SCHEDULED and set(before) <= set(after)
    assert show_json(path) == show_json(reference)


def test_one_runner_at_a_time_and_a_killed_one_lets_the_next_in(
    postgres_url: str, tmp_path: Path
) -> None:
    path = _on(postgres_url, tmp_path)
    hold = (
        "import time; from arena.ladder.store import Store; "
        f"held = Store.create({postgres_url!r}, 'happy_mochi'); "
        "print('held', flush=True); time.sleep(600)"
    )
    holder = subprocess.Popen([sys.executable, "-c", hold], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        refused = arena("ladder", "run", str(path), "--quiet")
        assert refused.returncode == 2
        assert refused.stderr.endswith("in use by another `arena ladder` run\n"), refused.stderr
        assert _stored(postgres_url) == []
    finally:
        holder.kill()  # the server drops the dead connection's lock
        holder.wait()
    out = arena("ladder", "run", str(path), "--quiet")
    assert out.returncode == 0, out.stderr
    assert len(_stored(postgres_url)) == SCHEDULED


def test_an_empty_database_and_an_unreachable_server_say_so_without_the_password(
    postgres_url: str, tmp_path: Path
) -> None:
    empty = arena("ladder", "show", str(_on(postgres_url, tmp_path / "empty")))
    assert empty.returncode == 2
    assert "no ladder database yet (run `arena ladder run` first)" in empty.stderr

    with_password = postgres_url.replace("postgres@", "postgres:s3cret@").rsplit(":", 1)[0]
    closed = f"{with_password}:1/nowhere"  # nothing listens on port 1
    path = _on(closed, tmp_path / "closed")
    for command in (("ladder", "run", str(path), "--quiet"), ("ladder", "show", str(path))):
        out = arena(*command)
        assert out.returncode in (2, 4), out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("arena: error: "), out.stderr
        assert "s3cret" not in out.stderr and "postgres:***@127.0.0.1:1/nowhere" in out.stderr
        assert "Connection refused" in out.stderr


def test_forget_and_rerate_on_postgres(postgres_url: str, tmp_path: Path) -> None:
    path = _on(postgres_url, tmp_path)
    assert arena("ladder", "run", str(path), "--quiet").returncode == 0
    out = arena("ladder", "forget", str(path), "--bot", "r3")
    assert out.returncode == 0, out.stderr
    table = show_json(path)
    assert table["matches_stored"] == SCHEDULED // 3  # r1 against r2 alone
    games = {b["bot"]: b["games"] for b in table["bots"]}
    assert games == {"r1": SCHEDULED // 3, "r2": SCHEDULED // 3, "r3": 0}
    out = arena("ladder", "run", str(path), "--quiet")  # r3 plays its tables again
    assert out.returncode == 0, out.stderr
    assert len(_stored(postgres_url)) == SCHEDULED


def test_the_newest_matches_and_short_ids_are_read_from_indexes_on_postgres(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pages' newest-first reads (a page of matches, a bot's page, the matches stored after
    a mark) need neither a scan nor a sort of every match: PostgreSQL has no ``rowid``, so the
    insertion order's ``seq`` is indexed; and a short id is a range of an index in byte order
    whatever the database's collation. (Planned with scans and sorts discouraged: for a table
    this small the planner would rightly take them.)"""
    cfg = load_ladder(_on(postgres_url, tmp_path), check_bots=False)
    ladder.run_ladder(cfg, SyntheticExecutor())
    store = Store.read(postgres_url, "happy_mochi")
    real = store.conn.execute
    asked: list[tuple[str, Any]] = []
    monkeypatch.setattr(store.conn, "execute", lambda sql, args=(): asked.append((sql, args)) or [])
    try:
        store.published_matches(5)
        store.published_matches(5, 5, ["r1"])
        store.seats_stored_after(SCHEDULED - 3)
        store.ids_starting("abcdef")
        monkeypatch.undo()
        assert len(asked) == 4
        real("SET enable_seqscan = off")
        real("SET enable_sort = off")
        for sql, args in asked:
            plan = "\n".join(r[0] for r in real(f"EXPLAIN {sql}", args))
            whole = [line for line in plan.splitlines() if "Sort  (" in line]
            # a match's few seats may be put in order; the matches come in the index's order
            assert all("Incremental Sort" in line for line in whole), plan
            assert "Seq Scan" not in plan, plan
            assert ("matches_id_bytes" if "COLLATE" in sql else "matches_seq") in plan, plan
    finally:
        store.close()
