"""The ladder's secret deal key (arena/ladder/deal_key.py): made once beside the database,
0600, the same on every resume, every engine seed an HMAC under it; a lost, foreign, shared or
linked key file stops the run with one clear error and plays nothing."""

from __future__ import annotations

import os
import re
import sqlite3
import stat
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from arena.ladder import run as ladder
from arena.ladder.config import load_ladder
from arena.ladder.deal_key import deal_key, fingerprint, key_path
from arena.ladder.jobs import MatchJob
from arena.ladder.schedule import engine_seed
from arena.ladder.store import Store, StoreError

from .helpers import TEST_KEY, SyntheticExecutor, arena, stored_count, write_ladder

SCHEDULED = 3 * 2 * 2  # 3 tables x 2 rotations x 2 rounds


class Watching(SyntheticExecutor):
    """Made-up results, and every job handed out kept."""

    def __init__(self) -> None:
        super().__init__()
        self.jobs: list[dict[str, Any]] = []

    def submit(self, jobs: list[MatchJob]) -> Any:
        self.jobs += [job.as_dict() for job in jobs]
        return super().submit(jobs)


def run(path: Path) -> Watching:
    executor = Watching()
    ladder.run_ladder(load_ladder(path, check_bots=False), executor)
    return executor


def fresh_ladder(folder: Path, rounds: int = 2) -> Path:
    """A tiny ladder with no key yet: its first run makes one."""
    return write_ladder(folder, rounds=rounds, key=False)


def test_the_first_run_makes_a_private_key_and_deals_every_set_from_it(tmp_path: Path) -> None:
    path = fresh_ladder(tmp_path)
    jobs = run(path).jobs
    key_file = tmp_path / "tiny.db.key"
    assert key_file == key_path(tmp_path / "tiny.db")
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = bytes.fromhex(key_file.read_text().strip())
    assert len(key) == 32
    schedule = {s.match_id: s for s in ladder.schedule_of(load_ladder(path, check_bots=False))}
    by_set: dict[str, set[int]] = defaultdict(set)
    for job in jobs:
        spec = schedule[job["match_id"]]
        assert job["seed"] == engine_seed(key, spec.seed) != spec.seed
        assert job["seed"] < 2**128
        by_set[spec.set_id].add(job["seed"])
    assert len(jobs) == SCHEDULED
    assert all(len(seeds) == 1 for seeds in by_set.values())  # every rotation: one deal
    assert len({next(iter(s)) for s in by_set.values()}) == len(by_set)  # sets differ
    with sqlite3.connect(tmp_path / "tiny.db") as conn:
        stored = dict(conn.execute("SELECT id, seed FROM matches"))
        (recorded,) = conn.execute("SELECT value FROM meta WHERE key = 'deal_key'").fetchone()
    assert stored == {m: s.seed for m, s in schedule.items()}  # the public identity stays
    assert recorded == fingerprint(key) and TEST_KEY not in recorded


def test_a_resumed_ladder_keeps_its_key_and_deals(tmp_path: Path) -> None:
    path = fresh_ladder(tmp_path, rounds=1)
    first = {j["match_id"]: j["seed"] for j in run(path).jobs}
    key_before = (tmp_path / "tiny.db.key").read_bytes()
    fresh_ladder(tmp_path, rounds=2)  # one more round: resumed, round 0 is not played again
    later = {j["match_id"]: j["seed"] for j in run(path).jobs}
    assert (tmp_path / "tiny.db.key").read_bytes() == key_before
    assert not set(first) & set(later) and len(first) + len(later) == SCHEDULED
    key = bytes.fromhex(key_before.decode())
    schedule = ladder.schedule_of(load_ladder(path, check_bots=False))
    assert all(later[s.match_id] == engine_seed(key, s.seed) for s in schedule if s.round == 1)


def test_a_key_given_before_the_first_run_is_used(tmp_path: Path) -> None:
    """How an organiser gives two copies of a ladder the same deals, or restores a key."""
    path = write_ladder(tmp_path, rounds=1)  # with TEST_KEY in tiny.db.key
    jobs = run(path).jobs
    schedule = {s.match_id: s for s in ladder.schedule_of(load_ladder(path, check_bots=False))}
    key = bytes.fromhex(TEST_KEY)
    assert all(j["seed"] == engine_seed(key, schedule[j["match_id"]].seed) for j in jobs)


def test_a_lost_key_stops_the_run_with_a_clear_error_and_plays_nothing(tmp_path: Path) -> None:
    path = fresh_ladder(tmp_path, rounds=1)
    run(path)
    (tmp_path / "tiny.db.key").unlink()
    fresh_ladder(tmp_path, rounds=2)
    out = arena("ladder", "run", str(path), "--quiet")
    assert out.returncode == 2
    [line] = out.stderr.strip().splitlines()
    assert line.startswith(f"arena: error: {tmp_path / 'tiny.db.key'}: the deal key of ")
    assert "is missing" in line and "restore the file from a backup" in line
    assert not (tmp_path / "tiny.db.key").exists()  # never a silent new key
    assert stored_count(tmp_path / "tiny.db") == SCHEDULED // 2


def test_another_ladders_key_is_refused(tmp_path: Path) -> None:
    path = fresh_ladder(tmp_path / "a", rounds=1)
    run(path)
    run(fresh_ladder(tmp_path / "b", rounds=1))
    (tmp_path / "a" / "tiny.db.key").write_bytes((tmp_path / "b" / "tiny.db.key").read_bytes())
    with pytest.raises(StoreError, match=r"not the deal key .* was played with"):
        run(path)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda p: p.chmod(0o640), "readable by other users (mode 0640"),
        (lambda p: p.write_text("not a key\n"), "not a deal key"),
        (lambda p: (p.unlink(), p.mkdir()), "must be a regular file"),
        (lambda p: (p.rename(p.with_name("elsewhere")), p.symlink_to("elsewhere")), "symbolic"),
    ],
)
def test_a_key_file_that_is_not_a_private_key_is_refused(
    tmp_path: Path, make: Any, words: str
) -> None:
    path = fresh_ladder(tmp_path, rounds=1)
    run(path)
    make(tmp_path / "tiny.db.key")
    with pytest.raises(StoreError, match=re.escape(words)):
        run(path)


def test_a_key_file_left_before_its_fingerprint_was_stored_is_adopted(tmp_path: Path) -> None:
    """A runner killed between writing the key and recording it: the next run goes on."""
    store = Store.create(tmp_path / "x.db", "happy_mochi")
    key = deal_key(store)
    store.conn.execute("DELETE FROM meta WHERE key = 'deal_key'")
    assert deal_key(store) == key
    store.close()
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".")]  # no temporary left


def test_on_postgresql_the_key_is_kept_in_the_database(postgres_url: str, tmp_path: Path) -> None:
    extra = f'database = "{postgres_url}"'
    path = write_ladder(tmp_path, rounds=1, extra=extra, key=False)
    first = run(path).jobs
    write_ladder(tmp_path, rounds=2, extra=extra, key=False)
    later = run(path).jobs
    store = Store.read(postgres_url, "happy_mochi")
    try:
        (value,) = store.conn.execute("SELECT value FROM meta WHERE key = 'deal_key'").fetchone()
    finally:
        store.close()
    key = bytes.fromhex(value)
    schedule = {s.match_id: s for s in ladder.schedule_of(load_ladder(path, check_bots=False))}
    assert len(first) + len(later) == SCHEDULED
    assert all(j["seed"] == engine_seed(key, schedule[j["match_id"]].seed) for j in first + later)
    assert not list(tmp_path.glob("*.key"))
