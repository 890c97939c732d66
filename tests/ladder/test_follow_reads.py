"""A following ladder chooses each set from what it keeps, the stored ratings and a tally of
the stored sets brought up to date by the matches stored since (``arena/ladder/sets.py``):
after each set it neither re-rates nor reads its whole history again. Real store (SQLite and
PostgreSQL), real ladder loop, made-up results."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.ladder import rated, ratings
from arena.ladder import run as ladder
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.database import Location
from arena.ladder.follow import next_set
from arena.ladder.sets import StoredSets
from arena.ladder.store import Store

from .helpers import SyntheticExecutor, write_ladder

FOLLOW = "[follow]\nplacement = 1\npoll_s = 0.1"


def _following(folder: Path, database: Location) -> LadderConfig:
    where = f'database = "{database}"\n' if isinstance(database, str) else ""
    path = write_ladder(folder, bots=4, seats=3, rounds=1, extra=where + FOLLOW)
    return load_ladder(path, check_bots=True)


def _play(cfg: LadderConfig, matches: int) -> None:
    """Run the following ladder until ``matches`` more are stored (whole sets: 3 each)."""
    done: list[int] = []
    ladder.run_ladder(
        cfg,
        SyntheticExecutor(),
        progress=lambda d, _total, _faults, _pace: done.append(d),
        stop=lambda: bool(done) and done[-1] >= matches,
    )


def _refuse(what: str) -> Any:
    def refused(*_: Any, **__: Any) -> Any:
        raise AssertionError(f"a following ladder's set {what}")

    return refused


def test_each_set_is_chosen_without_rerating_or_reading_the_whole_history(
    database: Location, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = _following(tmp_path, database)
    _play(cfg, 12)  # four sets: every table of 4 bots at 3 seats once
    monkeypatch.setattr(ratings, "rate", _refuse("re-rated the history"))
    monkeypatch.setattr(rated, "rate", _refuse("re-rated the history"))
    for reader in ("match_rows", "match_records", "stored_order", "seat_results"):
        monkeypatch.setattr(Store, reader, _refuse(f"read every match ({reader})"))
    _play(cfg, 24)  # eight more sets, each chosen from what the store keeps
    monkeypatch.undo()

    store = Store.read(cfg.database, cfg.game.id)
    try:
        tally = StoredSets().update(store)
        assert tally.count == 36 and not tally.incomplete, "twelve whole sets"
        assert sorted(Counter(tally.tables).values()) == [3, 3, 3, 3], (
            "every table's k-th set before any table's (k+1)-th: the tally counted each set"
        )
        assert sum(tally.games.values()) == 36 * 3
        # The tally kept across updates is the tally read from scratch.
        kept = StoredSets()
        kept.update(store)
        assert next_set(cfg, store, kept) == next_set(cfg, store)
    finally:
        store.close()


def test_the_tally_reads_only_the_matches_stored_since(database: Location, tmp_path: Path) -> None:
    cfg = _following(tmp_path, database)
    _play(cfg, 6)
    store = Store.read(cfg.database, cfg.game.id)
    try:
        tally = StoredSets().update(store)
        seen = tally.after
    finally:
        store.close()
    _play(cfg, 6)
    store = Store.read(cfg.database, cfg.game.id)
    try:
        tally.update(store)
        fresh = StoredSets().update(store)
        assert tally.after > seen and tally.count == fresh.count == 12
        assert tally.tables == fresh.tables and tally.games == fresh.games
        assert {k: (s.table, s.ids) for k, s in tally.sets.items()} == {
            k: (s.table, s.ids) for k, s in fresh.sets.items()
        }
    finally:
        store.close()
    writer = Store.create(cfg.database, cfg.game.id)
    try:
        writer.forget(fresh.sets[next(iter(fresh.sets))].ids)  # a set forgotten
        tally.update(writer)
        assert tally.count == 9 and tally.tables == StoredSets().update(writer).tables
    finally:
        writer.close()
