"""Group commit (``Store.record_matches``): the matches a job played stored in one transaction
keep exactly what storing them one at a time keeps, on SQLite and PostgreSQL: every row of
the results, the ratings' fold and its history, its queue, and the table's tally, with the
groups stored out of schedule order, matches of one group on both sides of a gap, and a gap
left open until the run's end (``settle``); and a group whose storing fails leaves none of
its matches stored; a match is reported done only once its group is stored."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from arena.ladder import run as ladder
from arena.ladder.config import LadderConfig
from arena.ladder.database import Error, Location
from arena.ladder.jobs import MatchJob
from arena.ladder.loop import register
from arena.ladder.rated import RATED_NEXT, RATING_KEY
from arena.ladder.running import SETS_DONE, TABLES
from arena.ladder.schedule import MatchSpec
from arena.ladder.store import Store

from .helpers import TEST_KEY, SyntheticExecutor, stored_count
from .test_incremental import ladder_at

# what each table holds, less the times a row was written at
COMPARED = {
    "matches": "id, set_id, round, rotation, seed, seats, status, outcome, decisions, attempts",
    "results": "*",
    "ratings": "bot, mu, sigma, conservative",
    "rating_history": "*",
    "rating_queue": "*",
    **{table: "*" for table in TABLES},
}


def _groups(specs: list[MatchSpec], seed: int) -> list[list[MatchSpec]]:
    """The schedule but for its second match (a gap until the end) in groups of 1 to 7 in a
    shuffled order, each group in schedule order as a job plays it."""
    rng = random.Random(seed)
    left = [s for s in specs if s.position != 1]
    groups = []
    while left:
        size = rng.randint(1, 7)
        groups.append(left[:size])
        left = left[size:]
    rng.shuffle(groups)
    return groups


def _store(cfg: LadderConfig, groups: list[list[MatchSpec]], together: bool) -> dict[str, Any]:
    """Store ``groups`` (each in one transaction, or a match at a time), settle, and dump."""
    store = Store.create(cfg.database, cfg.game.id)
    try:
        register(cfg, store)
        schedule = ladder.RoundRobin(cfg)
        schedule.attach(store)
        key = bytes.fromhex(TEST_KEY)
        for group in groups:
            played = [(s, SyntheticExecutor._play(MatchJob.of(cfg, s, key)), 1) for s in group]
            if together:
                store.record_matches(played)
            else:
                for match in played:
                    store.record_match(*match)
        waiting = store.queue()
        schedule.settle(store)
        dump = {t: sorted(tuple(r) for r in store.conn.execute(f"SELECT {c} FROM {t}"))
                for t, c in COMPARED.items()}  # fmt: skip
        metas = store.metas(RATING_KEY, RATED_NEXT, SETS_DONE, "changes")
    finally:
        store.close()
    return {"tables": dump, "metas": metas, "waiting": waiting}


@pytest.mark.parametrize("seed", [1, 2])
def test_groups_stored_together_keep_exactly_what_single_matches_keep(
    database: Location, tmp_path: Path, seed: int
) -> None:
    together = ladder_at(tmp_path / "together", database, bots=4, seats=3, rounds=2)
    alone = ladder_at(tmp_path / "alone", tmp_path / "alone.db", bots=4, seats=3, rounds=2)
    groups = _groups(ladder.schedule_of(together), seed)
    assert any(len(g) > 1 for g in groups)
    got, expected = _store(together, groups, True), _store(alone, groups, False)
    assert got["waiting"] and got["waiting"] == expected["waiting"]  # behind the gap
    assert got == expected
    assert len(got["tables"]["matches"]) == len(ladder.schedule_of(together)) - 1


def test_a_group_that_fails_to_store_leaves_none_of_its_matches(
    database: Location, tmp_path: Path
) -> None:
    cfg = ladder_at(tmp_path, database, bots=3, seats=2, rounds=1)
    specs = ladder.schedule_of(cfg)
    key = bytes.fromhex(TEST_KEY)
    played = [(s, SyntheticExecutor._play(MatchJob.of(cfg, s, key)), 1) for s in specs[:3]]
    last = played[2][1]  # its second seat names a bot the ladder does not have: refused
    broken = dict(last, seats=[last["seats"][0], dict(last["seats"][1], name="nobody")])
    store = Store.create(cfg.database, cfg.game.id)
    try:
        register(cfg, store)
        with pytest.raises(Error):
            store.record_matches([*played[:2], (specs[2], broken, 1)])
        assert store.count_matches() == 0 and store.stored_mark() == (0,)
        store.record_matches(played)
        assert store.done_ids() == {s.match_id for s in specs[:3]}
        assert store.stored_mark() == (3,)
    finally:
        store.close()


def test_a_match_is_reported_only_once_its_group_is_stored(tmp_path: Path) -> None:
    """Progress (what the organiser is told is done) never runs ahead of what a reader of the
    database finds stored, though each job's matches are stored together."""
    cfg = ladder_at(tmp_path, tmp_path / "tiny.db", bots=4, seats=2, rounds=3)
    seen: list[tuple[int, int]] = []

    def progress(done: int, _total: int | None, _faults: int, _pace: str) -> None:
        seen.append((done, stored_count(tmp_path / "tiny.db")))

    executor = SyntheticExecutor()
    summary = ladder.run_ladder(cfg, executor, progress=progress)
    assert summary.played == len(ladder.schedule_of(cfg)) == seen[-1][0]
    assert all(done <= stored for done, stored in seen)
    assert any(done < stored for done, stored in seen)  # groups of several were stored at once


def test_ratings_written_apart_from_their_matches_change_the_stored_mark(
    database: Location, tmp_path: Path
) -> None:
    """A re-rating, and matches left behind a gap rated at last, change what the server's
    pages show without storing a match: the stored mark (which their caches are keyed on)
    moves with them, so no page keeps showing the ratings from before."""
    cfg = ladder_at(tmp_path, database, bots=3, seats=2, rounds=1)
    specs = ladder.schedule_of(cfg)
    key = bytes.fromhex(TEST_KEY)
    store = Store.create(cfg.database, cfg.game.id)
    try:
        register(cfg, store)
        schedule = ladder.schedule_for(cfg)
        schedule.attach(store)
        later = specs[1]  # stored behind the gap its first match leaves: rated at settle
        store.record_matches([(later, SyntheticExecutor._play(MatchJob.of(cfg, later, key)), 1)])
        stored = store.stored_mark()
        schedule.settle(store)
        settled = store.stored_mark()
        assert settled != stored and store.rating_history()  # rated: the mark moved
        schedule.rerate(store)
        assert store.stored_mark() != settled
    finally:
        store.close()
