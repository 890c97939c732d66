"""The competition server's ladder stops promptly: a bounded schedule stopped mid-run stores the
matches in flight whole, rates them, hands out nothing more, and a second runner plays only
the rest. Real runners, real bot processes, a real SQLite file."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from arena.ladder.store import Store
from arena.web.competition import load_competition
from arena.web.runner import Runner
from tests.web.competitions import write_competition

SCHEDULED = 6  # 3 house bots, 3 seats: one table, 2 rounds of 3 rotations
GENEROUS_S = 240.0


def _until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + GENEROUS_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def _database(database: Path) -> tuple[list[str], dict[str, list[int]], int, int, int]:
    """The stored match ids, each one's seats with a result, the voids, the rated bots and
    the rating history's rows."""
    store = Store.read(database, "happy_mochi")
    try:
        ids = [r[0] for r in store.conn.execute("SELECT id FROM matches")]
        seats: dict[str, list[int]] = {}
        for match_id, seat in store.conn.execute("SELECT match_id, seat FROM results"):
            seats.setdefault(match_id, []).append(seat)
        (voids,) = store.conn.execute("SELECT COUNT(*) FROM voids").fetchone()
        (rated,) = store.conn.execute("SELECT COUNT(*) FROM ratings").fetchone()
        (history,) = store.conn.execute("SELECT COUNT(*) FROM rating_history").fetchone()
    finally:
        store.close()
    return ids, seats, voids, rated, history


def test_a_stopped_runner_stores_its_matches_in_flight_and_a_second_one_plays_the_rest(
    tmp_path: Path,
) -> None:
    competition = load_competition(write_competition(tmp_path / "comp", house=3, rounds=2,
                                                     slow=True))  # fmt: skip
    first = Runner(competition)
    progress = first._progress

    def stop_after_the_first(done: int, total: int, faults: int, pace: str) -> None:
        """Asks to stop as ``Runner.stop`` does, from the ladder's own thread, right after the
        first match is stored: whatever the load, matches are left to hand out."""
        progress(done, total, faults, pace)
        if done >= 1:
            first.stopping.set()

    first._progress = stop_after_the_first  # type: ignore[method-assign]
    first.start()
    try:
        _until(first.stopping.is_set, "a first match stored")
    finally:
        first.stop(wait_s=GENEROUS_S)
    assert not first.thread.is_alive()
    assert first.state.status == "stopped"
    before, seats, voids, rated, history = _database(competition.database)
    # The first match and those in flight when it was stored (two per worker: its slot is
    # handed out again before it is stored): nothing more.
    assert 1 <= len(before) <= 1 + 2 * competition.server.workers < SCHEDULED
    assert sorted(seats) == sorted(before)
    assert all(sorted(s) == [0, 1, 2] for s in seats.values()), "every stored match whole"
    assert voids == 0, "no match in flight was cut"
    assert (rated, history) == (3, 3 * len(before)), "ratings rebuilt from what was stored"

    second = Runner(competition)
    second.start()
    try:
        _until(lambda: second.state.status == "idle", "the second runner to finish")
    finally:
        second.stop(wait_s=GENEROUS_S)
    after, seats, voids, rated, history = _database(competition.database)
    assert len(after) == len(set(after)) == SCHEDULED, "the schedule complete, no match twice"
    assert set(before) <= set(after)
    assert all(sorted(s) == [0, 1, 2] for s in seats.values())
    assert (voids, rated, history) == (0, 3, 3 * SCHEDULED)
