"""Ratings kept in the database as each match is stored (``arena/ladder/rated.py``) equal the
batch from scratch exactly, on SQLite and PostgreSQL, whatever order the matches finish in,
with a match given up (a gap) and a run stopped half-way; reads never re-rate; a database made
by the previous version (schema 2) opens and is re-rated once."""

from __future__ import annotations

import shutil
from dataclasses import astuple
from pathlib import Path
from typing import Any

import pytest

from arena.ladder import run as ladder
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.database import Location
from arena.ladder.rated import current, history_of, rating_key_of
from arena.ladder.ratings import rate
from arena.ladder.store import SCHEMA_VERSION, Store

from .helpers import SyntheticExecutor, show_json, write_ladder

OLD_DATABASE = Path(__file__).parent / "data" / "schema2-tiny.db"  # made by the schema-2 code


class LastFirst(SyntheticExecutor):
    """Hands back the newest job first, so matches are stored out of schedule order."""

    def wait(self, futures: list[Any]) -> list[Any]:
        return futures[-1:]


def ladder_at(folder: Path, database: Location, **kw: Any) -> LadderConfig:
    """The ladder of ``write_ladder(folder, **kw)`` stored at ``database``."""
    extra = f'database = "{database}"' if isinstance(database, str) else ""
    return load_ladder(write_ladder(folder, extra=extra, **kw), check_bots=True)


def _kept(cfg: LadderConfig) -> tuple[dict, list, dict]:
    """What the store keeps (ratings, history), and the batch over what it stores."""
    store = Store.read(cfg.database, cfg.game.id)
    try:
        _, stored = ladder.records(cfg, store)
        kept = current(store, rating_key_of(cfg), cfg.bot_names, cfg.rating)
        shown = sorted(astuple(h) for h in history_of(cfg, store, stored))  # the report's
        history = store.conn.execute(
            "SELECT position, match_id, bot, mu, sigma FROM rating_history "
            "ORDER BY position, match_id, bot"
        )
        rows = sorted(tuple(r) for r in history)
    finally:
        store.close()
    ratings, batch_history = rate(stored, cfg.rating, cfg.bot_names)
    assert kept is not None, "the store's ratings are not this ladder's"
    batch_rows = sorted(astuple(h) for h in batch_history)
    assert shown == batch_rows
    return kept, rows, {"ratings": ratings, "history": batch_rows}


def test_kept_ratings_equal_the_batch_exactly_out_of_order_and_past_a_gap(
    database: Location, tmp_path: Path
) -> None:
    cfg = ladder_at(tmp_path, database, bots=4, seats=3, rounds=1)
    stuck = ladder.schedule_of(cfg)[1].match_id  # given up: a gap the others wait behind
    summary = ladder.run_ladder(cfg, LastFirst(void_always={stuck}))
    assert summary.played == 11 and summary.failed == 1  # stuck: void after its tries
    kept, rows, batch = _kept(cfg)
    assert kept == batch["ratings"]  # floats compared exactly
    assert rows == batch["history"] and len(rows) == 33
    store = Store.create(cfg.database, cfg.game.id)
    try:
        ladder.rerate(cfg, store)
    finally:
        store.close()
    again, rows_again, _ = _kept(cfg)
    assert again == kept and rows_again == rows


def test_a_run_stopped_half_way_reads_the_batch_from_the_kept_ratings(
    database: Location, tmp_path: Path
) -> None:
    """Stopped with matches stored behind a gap (still queued): a reader folds them on."""
    cfg = ladder_at(tmp_path, database, bots=4, seats=2, rounds=2)
    with pytest.raises(KeyboardInterrupt):
        ladder.run_ladder(cfg, LastFirst(interrupt_after=9))
    store = Store.read(cfg.database, cfg.game.id)
    try:
        queued = store.queue()
    finally:
        store.close()
    assert queued, "the newest-first order leaves matches waiting behind a gap"
    kept, rows, batch = _kept(cfg)
    assert kept == batch["ratings"]
    queued_ids = {match_id for _, match_id in queued}
    assert rows == [r for r in batch["history"] if r[1] not in queued_ids]
    ladder.run_ladder(cfg, LastFirst())  # the rest, resumed
    kept, rows, batch = _kept(cfg)
    assert kept == batch["ratings"] and rows == batch["history"]


def test_a_following_ladder_keeps_its_ratings_in_storage_order(tmp_path: Path) -> None:
    follow = load_ladder(
        write_ladder(tmp_path, bots=4, rounds=1, extra="[follow]\npoll_s = 0.1"), check_bots=True
    )
    done: list[int] = []
    ladder.run_ladder(
        follow,
        SyntheticExecutor(),
        progress=lambda d, _total, _faults, _pace: done.append(d),
        stop=lambda: bool(done) and done[-1] >= 10,
    )
    kept, rows, batch = _kept(follow)
    assert kept == batch["ratings"] and rows == batch["history"] and len(rows) >= 20


def test_show_reads_the_kept_ratings_without_rerating(tmp_path: Path, monkeypatch: Any) -> None:
    cfg = ladder_at(tmp_path, tmp_path / "tiny.db", bots=3, rounds=1)
    ladder.run_ladder(cfg, SyntheticExecutor())
    from arena.ladder import rated, ratings, standings

    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("a read re-rated the history")

    monkeypatch.setattr(ratings, "rate", refuse)
    monkeypatch.setattr(rated, "rate", refuse)
    store = Store.read(cfg.database, cfg.game.id)
    try:
        table = standings.standings(cfg, store)
    finally:
        store.close()
    assert len(table.stats) == 3 and sum(s.games for s in table.stats) == 12


def test_a_database_made_by_the_previous_version_opens_and_is_rerated_once(
    tmp_path: Path,
) -> None:
    path = write_ladder(tmp_path, bots=4, seats=3, rounds=1)
    shutil.copy(OLD_DATABASE, tmp_path / "tiny.db")
    cfg = load_ladder(path, check_bots=True)
    before = show_json(path)  # read as it is: the batch
    assert before["matches_stored"] == 12
    store = Store.read(cfg.database, cfg.game.id)
    try:
        assert store.meta("schema") == SCHEMA_VERSION
        assert current(store, rating_key_of(cfg), cfg.bot_names, cfg.rating) is None
    finally:
        store.close()
    writer = Store.create(cfg.database, cfg.game.id)
    try:  # what the next run does first
        ladder.schedule_for(cfg).attach(writer)
    finally:
        writer.close()
    kept, rows, batch = _kept(cfg)
    assert kept == batch["ratings"] and rows == batch["history"] and len(rows) == 36
    assert show_json(path)["bots"] == before["bots"]
