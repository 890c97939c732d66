"""SIGTERM stops a server with a long history promptly: its ladder process, busy re-rating the
whole history (a following ladder started on a store rated under another schedule), exits
once no match is in flight instead of finishing a re-rating the next start does again, and
nothing stored is lost. A real ``arena serve`` process on a real SQLite file filled through the
real ladder loop and store with made-up results (``SyntheticExecutor``)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from arena.ladder.rated import RATING_KEY, rating_key_of
from arena.ladder.run import run_ladder
from arena.ladder.store import Store
from arena.web.competition import load_competition
from arena.web.runner import STOP_WAIT_S
from tests.ladder.helpers import SyntheticExecutor
from tests.web.competitions import write_competition
from tests.web.servers import Serve, get_json, until

HISTORY = 20_000  # matches: re-rating them takes far longer than the ladder's SETTLE_S


@pytest.mark.timeout(600)
def test_sigterm_does_not_wait_for_a_rerating_and_loses_no_stored_match(
    tmp_path: Path, served: Serve
) -> None:
    folder = tmp_path / "comp"
    filled = load_competition(write_competition(folder, house=3, rounds=HISTORY // 3))
    cfg = filled.ladder(check_bots=True)
    assert cfg is not None
    run_ladder(cfg, SyntheticExecutor())  # a round robin's history, rated in its order
    following = load_competition(write_competition(folder, house=3, follow=True))
    follow_cfg = following.ladder(check_bots=True)
    assert follow_cfg is not None
    store = Store.read(following.database, "happy_mochi")
    try:
        before = store.count_matches()
        assert store.meta(RATING_KEY) != rating_key_of(follow_cfg), "re-rated when it starts"
    finally:
        store.close()

    server, url = served(following.path)
    until(lambda: get_json(url + "/api/queue")["status"] == "playing", what="the ladder")
    server.send_signal(signal.SIGTERM)
    # Before: the ladder process finished re-rating (minutes at 100k matches) or was killed
    # after STOP_WAIT_S. A bound far above SETTLE_S, under the old wait.
    assert server.wait(STOP_WAIT_S) in (0, -signal.SIGTERM)

    store = Store.read(following.database, "happy_mochi")
    try:
        assert store.meta(RATING_KEY) != rating_key_of(follow_cfg), "stopped mid-re-rating"
        assert store.count_matches() == before, "no match played meanwhile, none lost"
        seats = store.conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        assert seats == 3 * before, "every stored match whole"
    finally:
        store.close()
    log = (tmp_path / "serve-0.log").read_text()
    assert "ladder stopped before it finished rating" in log
