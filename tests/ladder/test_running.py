"""The table kept in the database as sets complete (``arena/ladder/running.py``) equals the
batch over the stored matches exactly, on SQLite and PostgreSQL, with matches stored out of
order, a match given up, a run stopped half-way and ``rerate`` rebuilding it; reads never
walk the match list; the public table shows nothing of an incomplete set; a database made by
the previous version (schema 3) is filled once by its next writer."""

from __future__ import annotations

import shutil
from collections import Counter
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest

from arena.ladder import run as ladder
from arena.ladder import standings as standings_module
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.database import Location
from arena.ladder.ratings import complete_sets, rate
from arena.ladder.running import TABLES, Kept
from arena.ladder.standings import Standings, batch, comparison_of, standings
from arena.ladder.store import SCHEMA_VERSION, Store
from arena.ladder.tally import compare

from .helpers import SyntheticExecutor, show_json, write_ladder
from .test_incremental import LastFirst, ladder_at

OLD_DATABASE = Path(__file__).parent / "data" / "schema3-tiny.db"  # made by the schema-3 code


def _view(table: Standings) -> dict[str, Any]:
    """Everything a reader shows, floats compared exactly."""
    return {
        "table": [(s.as_dict(), s.relative) for s in table.stats],
        "h2h": table.head_to_head(),
        "seats": table.seat_effects(),
        "counts": (table.hidden, table.matches, table.scheduled, table.outside),
    }


def _check(cfg: LadderConfig, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The kept views (read without the match list) equal the batch's; the kept views."""
    store = Store.read(cfg.database, cfg.game.id)
    try:
        kept = Kept(cfg)
        assert kept.usable(store), "the store does not keep this ladder's table"
        reference = {public: _view(batch(cfg, store, kept, public)) for public in (False, True)}
        _, stored = ladder.records(cfg, store)
        order = kept.order(store)
        pairs = {
            (a, b): compare(stored, a, b, cfg.rating.score_range, order).as_dict()
            for a, b in permutations(cfg.bot_names, 2)
        }
        with monkeypatch.context() as patch:
            patch.setattr(standings_module, "records", _refuse)
            views = {public: _view(standings(cfg, store, public)) for public in (False, True)}
            read = {pair: comparison_of(cfg, store, *pair).as_dict() for pair in pairs}
        dump = {t: sorted(tuple(r) for r in store.conn.execute(f"SELECT * FROM {t}"))
                for t in TABLES}  # fmt: skip
    finally:
        store.close()
    assert views == reference
    assert read == pairs
    return {"views": views, "tables": dump}


def _refuse(*_: Any) -> Any:
    raise AssertionError("a read walked the stored matches")


def _rerate(cfg: LadderConfig) -> None:
    store = Store.create(cfg.database, cfg.game.id)
    try:
        ladder.rerate(cfg, store)
    finally:
        store.close()


def test_the_kept_table_equals_the_batch_out_of_order_past_a_gap_and_after_rerate(
    database: Location, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = ladder_at(tmp_path, database, bots=4, seats=3, rounds=2)
    stuck = ladder.schedule_of(cfg)[4].match_id  # given up: its set never completes
    summary = ladder.run_ladder(cfg, LastFirst(void_always={stuck}))
    assert summary.played == 23 and summary.failed == 1
    kept = _check(cfg, monkeypatch)
    private, public = kept["views"][False], kept["views"][True]
    assert private["counts"] == (0, 23, 24, 0) and public["counts"] == (2, 21, 24, 0)
    assert len(kept["tables"]["pending"]) == 2 and len(kept["tables"]["set_order"]) == 7
    assert sum(row["games"] for row, _ in private["table"]) == 23 * 3
    assert sum(row["games"] for row, _ in public["table"]) == 21 * 3
    assert all(est.sets >= 4 and est.ci is not None for _, est in private["table"])
    _rerate(cfg)
    again = _check(cfg, monkeypatch)
    assert again == kept  # rebuilt in the order the sets completed: the same tables


def test_a_run_stopped_half_way_and_resumed_keeps_the_batch(
    database: Location, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped with sets incomplete: the organiser's table counts their matches, the public
    one shows none of them, and its ratings are those of the stored matches before the first
    of them (the batch over that prefix); resumed, everything is shown."""
    cfg = ladder_at(tmp_path, database, bots=4, seats=2, rounds=2)
    with pytest.raises(KeyboardInterrupt):
        ladder.run_ladder(cfg, LastFirst(interrupt_after=9))
    kept = _check(cfg, monkeypatch)
    stored_of = Counter(set_id for _, set_id, _ in kept["tables"]["pending"])
    pending = [row for row in kept["tables"]["pending"] if stored_of[row[1]] < cfg.seats]
    assert pending, "the newest-first order leaves a set incomplete"
    waiting = len(kept["tables"]["pending"]) - len(pending)
    assert waiting, "and whole sets waiting behind it, shown but not kept yet"
    public = kept["views"][True]
    assert public["counts"][0] == len(pending)
    store = Store.read(cfg.database, cfg.game.id)
    try:
        _, stored = ladder.records(cfg, store)
    finally:
        store.close()
    hidden = {match_id for match_id, _, _ in pending}
    cut = min(position for _, _, position in pending)
    prefix = [m for m in stored if m.position < cut]
    assert not hidden & {m.match_id for m in prefix}
    ratings = rate(prefix, cfg.rating, cfg.bot_names)[0]
    assert {row["bot"]: (row["mu"], row["sigma"]) for row, _ in public["table"]} == {
        bot: (r.mu, r.sigma) for bot, r in ratings.items()
    }
    shown = [m for m in stored if m.match_id not in hidden]
    assert sum(row["games"] for row, _ in public["table"]) == 2 * len(shown)
    assert sum(met for _, met in public["h2h"].values()) == 2 * len(shown)
    ladder.run_ladder(cfg, LastFirst())  # the rest, resumed
    done = _check(cfg, monkeypatch)
    assert not done["tables"]["pending"] and done["views"][True] == done["views"][False]


def test_a_database_made_by_the_previous_version_is_filled_once_by_its_next_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_ladder(tmp_path, bots=4, seats=3, rounds=1)
    shutil.copy(OLD_DATABASE, tmp_path / "tiny.db")
    cfg = load_ladder(path, check_bots=True)
    before = show_json(path)  # read as it is: the batch
    assert before["matches_stored"] == 12
    store = Store.read(cfg.database, cfg.game.id)
    try:
        assert store.meta("schema") == SCHEMA_VERSION
        assert not Kept(cfg).usable(store)
    finally:
        store.close()
    writer = Store.create(cfg.database, cfg.game.id)
    try:  # what the next run does first
        ladder.schedule_for(cfg).attach(writer)
    finally:
        writer.close()
    kept = _check(cfg, monkeypatch)
    assert len(kept["tables"]["set_order"]) == 4 and not kept["tables"]["pending"]
    assert show_json(path)["bots"] == before["bots"]


def test_a_writer_reads_the_tally_again_after_another_writer_or_a_rollback(
    database: Location, tmp_path: Path
) -> None:
    """The writer keeps the tally it wrote in memory between sets (``Kept.held``); a set added
    by another writer (its own ``Kept``, as another process), or a transaction rolled back
    after the writer added sets, changes what the database holds under it: the tables still
    end equal to the batch's, as the writer reads them again instead of adding to its copy."""
    cfg = ladder_at(tmp_path, database, bots=4, seats=2, rounds=2)
    ladder.run_ladder(cfg, SyntheticExecutor())
    store = Store.create(cfg.database, cfg.game.id)
    try:
        _, stored = ladder.records(cfg, store)
        groups = sorted(complete_sets(stored), key=lambda g: g[-1].position)
        assert len(groups) == 12
        mine, other = Kept(cfg), Kept(cfg)
        with store.transaction():
            mine.rebuild(store, stored, None)
        batch_tables = _tables(store)
        with store.transaction():
            mine.rebuild(store, [], None)
        for writer, chunk in ((mine, groups[:3]), (other, groups[3:6]), (mine, groups[6:9])):
            with store.transaction():
                writer.add_sets(store, chunk)
        with pytest.raises(RuntimeError), store.transaction():
            mine.add_sets(store, groups[9:])
            raise RuntimeError("the match's transaction failed after its set was added")
        with store.transaction():
            mine.add_sets(store, groups[9:])
        assert _tables(store) == batch_tables
    finally:
        store.close()


def _tables(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    return {t: sorted(tuple(r) for r in store.conn.execute(f"SELECT * FROM {t}")) for t in TABLES}


def test_listings_read_only_the_columns_they_show(tmp_path: Path) -> None:
    """``match_rows`` leaves the seats' stderr tails and incidents in the database unless every
    column is asked for (``arena ladder matches --format json``)."""
    cfg = ladder_at(tmp_path, tmp_path / "tiny.db", bots=3, rounds=1)
    ladder.run_ladder(cfg, SyntheticExecutor())
    store = Store.read(cfg.database, cfg.game.id)
    try:
        lean, full = store.match_rows(), store.match_rows(full=True)
    finally:
        store.close()
    assert lean.keys() == full.keys() and len(lean) == 6
    for match_id, row in lean.items():
        seat = row["results"][0]
        assert {"log_tail", "incidents", "outcome"}.isdisjoint(seat | row)
        assert {"log_tail", "incidents"} <= full[match_id]["results"][0].keys()
        assert {k: full[match_id][k] for k in row if k != "results"} == {
            k: v for k, v in row.items() if k != "results"
        }
