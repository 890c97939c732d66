"""The competition server computes its standings once per change of the stored matches (or of
the ladder's bots) and shares them between requests: real app, real matches played by real bot
processes into a real SQLite file; the computations counted by wrapping ``standings()``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.ladder.executor import LocalExecutor
from arena.ladder.run import run_ladder
from arena.web import reads
from arena.web.app import create_app
from arena.web.competition import Competition, load_competition
from tests.web.competitions import write_competition

SCHEDULED = 6  # 3 house bots, 3 seats: one table, 2 rounds of 3 rotations


@pytest.fixture
def rated(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each computation of the standings by the app, as the number of games its bots played;
    each one made slow enough that concurrent requests overlap it."""
    calls: list[int] = []
    standings = reads.standings

    def counted(*args: Any, **kwargs: Any) -> Any:
        found = standings(*args, **kwargs)
        calls.append(sum(s.games for s in found.stats))
        time.sleep(0.2)
        return found

    monkeypatch.setattr(reads, "standings", counted)
    return calls


def _play(competition: Competition, stop: Callable[[], bool] | None = None) -> None:
    cfg = competition.ladder(check_bots=True)
    assert cfg is not None
    with LocalExecutor(1) as executor:
        run_ladder(cfg, executor, stop=stop)


def test_repeated_requests_share_one_computation_until_a_match_is_stored(
    tmp_path: Path, rated: list[int]
) -> None:
    competition = load_competition(write_competition(tmp_path / "comp", house=3, rounds=2))
    with TestClient(create_app(competition, run_ladder=False)) as client:
        assert client.get("/api/standings").json() == {"stored": 0, "bots": []}
        assert rated == []  # nothing stored, nothing to rate

        asked = iter([False])  # no when asked before the first match, yes from then on
        _play(competition, stop=lambda: next(asked, True))  # the first matches handed out
        first = client.get("/api/standings").json()
        assert first["stored"] in (0, 3)  # whole duplicate sets only: 3 rotations each
        assert client.get("/").status_code == 200
        assert client.get("/bots/house-greedy").status_code == 200
        assert client.get("/api/standings").json() == first
        assert rated == [3 * first["stored"]], "one computation for every request since"

        _play(competition)  # the rest of the schedule
        after = client.get("/api/standings").json()
        assert after["stored"] == SCHEDULED, "the next request sees the new matches"
        assert {b["bot"]: b["games"] for b in after["bots"]} == {
            "house-greedy": SCHEDULED, "house-random": SCHEDULED, "house-random-2": SCHEDULED,
        }  # fmt: skip
        assert client.get("/").text.count("/replay.json") == SCHEDULED
        assert client.get("/api/standings").json() == after
        assert rated == [3 * first["stored"], 3 * SCHEDULED]


def test_concurrent_requests_after_a_change_wait_for_one_computation(
    tmp_path: Path, rated: list[int]
) -> None:
    competition = load_competition(write_competition(tmp_path / "comp", house=3, rounds=1))
    app = create_app(competition, run_ladder=False)
    _play(competition)
    start = threading.Barrier(8)

    def ask(_: int) -> dict[str, Any]:
        start.wait()
        found: dict[str, Any] = app.state.standings.get()
        return found

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(ask, range(8)))
    assert rated == [9]  # 3 matches of 3 bots
    assert all(a is answers[0] for a in answers), "every request shares the one entry"
    assert answers[0]["stored"] == 3
