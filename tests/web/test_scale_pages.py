"""The server's pages cost what they show: listings of matches a page at a time, an ETag from
the stored matches' version answered 304, gzip for clients that ask, and pages whose database
reads do not grow with the history. Real ``arena serve`` processes and a real SQLite file, filled
through the real ladder loop and store with made-up results (``SyntheticExecutor``)."""

from __future__ import annotations

import gzip
import itertools
import os
import re
import signal
import sqlite3
import urllib.request
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.ladder import database, rated, ratings
from arena.ladder import store as store_module
from arena.ladder.config import LadderConfig
from arena.ladder.ratings import HistoryRow
from arena.ladder.run import run_ladder, schedule_for
from arena.ladder.store import Store
from arena.web import reads
from arena.web.app import GZIP_MIN_BYTES, create_app
from arena.web.competition import Competition, load_competition
from arena.web.history import PLOT_POINTS, Series
from arena.web.reads import PAGE_SIZE
from arena.web.runner import STOP_WAIT_S
from tests.ladder.helpers import SyntheticExecutor
from tests.web.competitions import write_competition
from tests.web.servers import Serve, get, get_json, until

LINK = re.compile(r'href="/matches/([A-Za-z0-9_-]+)"')


def _filled(folder: Path, rounds: int) -> Competition:
    """A competition of 3 house bots at one table whose ladder stored ``3 * rounds`` matches
    (every duplicate set whole, so every match is shown)."""
    competition = load_competition(write_competition(folder, house=3, rounds=rounds))
    cfg = competition.ladder(check_bots=True)
    assert cfg is not None
    run_ladder(cfg, SyntheticExecutor())
    return competition


def _newest_first(competition: Competition, bot: str) -> list[str]:
    store = Store.read(competition.database, "happy_mochi")
    try:
        query = "SELECT r.match_id FROM results r WHERE r.bot = ? ORDER BY r.rowid DESC"
        return [r[0] for r in store.conn.execute(query, (bot,))]
    finally:
        store.close()


def _fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, Message, bytes]:
    """The status, headers (any case) and body of a GET; urllib asks for no compression."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def test_a_bot_with_more_matches_than_a_page_is_listed_page_by_page(
    tmp_path: Path, served: Serve
) -> None:
    competition = _filled(tmp_path / "comp", rounds=40)  # 120 matches, each bot in all
    _, url = served(competition.path, "--no-ladder")
    stored = _newest_first(competition, "house-greedy")
    assert len(stored) == 120 > 2 * PAGE_SIZE
    seen: list[str] = []
    for number in (1, 2, 3):
        status, text = get(f"{url}/bots/house-greedy?page={number}")
        assert status == 200
        assert f"page {number} of 3" in text
        seen += LINK.findall(text)
    assert seen == stored, "every match once, newest first, a page at a time"
    status, text = get(f"{url}/?page=3")
    assert status == 200 and LINK.findall(text) == stored[2 * PAGE_SIZE :]
    assert get(f"{url}/bots/house-greedy?page=4")[0] == 404
    for bad in ("0", "x", "-1", "1e3", "９"):
        status, text = get(f"{url}/bots/house-greedy?page={urllib.parse.quote(bad)}")
        assert status == 400 and "page: expected a page number" in text


def test_pages_carry_an_etag_answered_304_until_a_match_is_stored_and_are_compressed(
    tmp_path: Path, served: Serve
) -> None:
    competition = _filled(tmp_path / "comp", rounds=20)
    _, url = served(competition.path, "--no-ladder")
    pages = ("/", "/bots/house-greedy", "/queue", "/api/standings")
    tags: dict[str, str] = {}
    for page in pages:
        status, headers, plain = _fetch(url + page)
        assert status == 200 and headers["Cache-Control"] == "no-cache"
        tags[page] = headers["ETag"]
        again, headers, body = _fetch(url + page, {"If-None-Match": tags[page]})
        assert again == 304 and body == b"" and headers["ETag"] == tags[page]
        assert "default-src 'none'" in headers["Content-Security-Policy"], "headers on a 304"
        status, headers, packed = _fetch(url + page, {"Accept-Encoding": "gzip"})
        assert status == 200 and "default-src 'none'" in headers["Content-Security-Policy"]
        if len(plain) >= GZIP_MIN_BYTES:
            assert headers["Content-Encoding"] == "gzip", page
            assert len(packed) < len(plain) / 2
            assert gzip.decompress(packed)[:200] == plain[:200]
        else:
            assert headers["Content-Encoding"] is None and packed[:200] == plain[:200], page
    assert all(len(_fetch(url + p)[2]) >= GZIP_MIN_BYTES for p in pages[:2])

    # More matches stored (the file asks for more rounds): every page is new again.
    path = write_competition(tmp_path / "comp", house=3, rounds=21)
    cfg = load_competition(path).ladder(check_bots=True)
    assert cfg is not None
    run_ladder(cfg, SyntheticExecutor())
    for page in pages:
        status, headers, _ = _fetch(url + page, {"If-None-Match": tags[page]})
        assert status == 200 and headers["ETag"] != tags[page], page


class Steps:
    """SQLite's virtual-machine steps of every connection the app opens: they grow with the
    rows a statement reads (a scan of every match costs steps per match), never with time."""

    def __init__(self) -> None:
        self.count = 0

    def tick(self) -> int:
        self.count += 1
        return 0  # go on


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> Steps:
    counter = Steps()
    connect = database.connect

    def counted(*args: Any, **kwargs: Any) -> database.Connection:
        conn = connect(*args, **kwargs)
        if isinstance(conn.raw, sqlite3.Connection):
            conn.raw.set_progress_handler(counter.tick, 100)
        return conn

    monkeypatch.setattr(store_module, "connect", counted)  # as the store opens them
    return counter


PAGES = ("/", "/?page=2", "/bots/house-greedy", "/bots/house-greedy?page=2", "/queue",
         "/api/standings", "/api/queue", "/api/changes", "/matches/no-such-match")  # fmt: skip


def _costs(competition: Competition, steps: Steps) -> dict[str, int]:
    """Each page's database steps, asked twice: the second time, once the standings and the
    queue (computed once per change of the stored matches) are held."""
    costs = {}
    with TestClient(create_app(competition, run_ladder=False)) as client:
        for page in PAGES:
            assert client.get(page).status_code in (200, 404)
            before = steps.count
            assert client.get(page).status_code in (200, 404)
            costs[page] = steps.count - before
    return costs


def test_no_page_reads_the_whole_history(tmp_path: Path, steps: Steps) -> None:
    small = _costs(_filled(tmp_path / "small", rounds=40), steps)  # 120 matches
    large = _costs(_filled(tmp_path / "large", rounds=400), steps)  # 1200
    for page in PAGES:
        assert large[page] <= 1.5 * small[page] + 20, (page, small[page], large[page])


def _following(folder: Path, rounds: int) -> Competition:
    """``_filled``, then served as a following ladder, its store rated as that ladder rates it
    (what the ladder's first run does before it plays)."""
    _filled(folder, rounds)
    competition = load_competition(write_competition(folder, house=3, follow=True))
    cfg = competition.ladder(check_bots=True)
    assert cfg is not None
    store = Store.create(cfg.database, cfg.game.id)
    try:
        schedule_for(cfg).rerate(store)
    finally:
        store.close()
    return competition


def _one_more_set(competition: Competition) -> None:
    cfg = competition.ladder(check_bots=True)
    assert cfg is not None
    done: list[int] = []

    def reload() -> LadderConfig:  # as the server's runner reads it before each set
        again = competition.ladder(check_bots=True)
        assert again is not None
        return again

    run_ladder(cfg, SyntheticExecutor(), progress=lambda d, *_: done.append(d),
               stop=lambda: bool(done) and done[-1] >= 3, reload=reload)  # fmt: skip


def _costs_after_a_change(competition: Competition, steps: Steps) -> dict[str, int]:
    """Each page's database steps right after a set was stored (the first asks for the
    standings and the queue to be computed again), once every page was asked before."""
    costs = {}
    with TestClient(create_app(competition, run_ladder=False)) as client:
        for page in PAGES:
            client.get(page)
        _one_more_set(competition)
        for page in PAGES:
            before = steps.count
            assert client.get(page).status_code in (200, 404)
            costs[page] = steps.count - before
    return costs


def test_after_a_set_is_stored_only_the_standings_read_the_whole_history(
    tmp_path: Path, steps: Steps, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the pages compute again after a change, beyond ``standings()`` (kept out here: its
    reads are the ladder's store's, ``arena/ladder/standings.py``), reads what was stored since:
    the stored sets and the ratings over time are kept from one computation to the next, and
    nothing re-rates."""
    tables: dict[Path, Any] = {}
    standings = reads.standings

    def once(cfg: Any, store: Store, public: bool = False) -> Any:
        key = Path(str(cfg.database))
        if key not in tables:
            tables[key] = standings(cfg, store, public)
        return tables[key]

    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("a page re-rated the history")

    small = _following(tmp_path / "small", rounds=40)  # 120 matches
    large = _following(tmp_path / "large", rounds=400)  # 1200
    monkeypatch.setattr(reads, "standings", once)
    for module in (ratings, rated):
        monkeypatch.setattr(module, "rate", refuse)
    costs = {name: _costs_after_a_change(c, steps) for name, c in (("small", small),
                                                                    ("large", large))}  # fmt: skip
    for page in PAGES:
        assert costs["large"][page] <= 1.5 * costs["small"][page] + 20, (page, costs)


@pytest.mark.parametrize(
    "count", [1, 2, PLOT_POINTS - 1, PLOT_POINTS, PLOT_POINTS + 1, 1000, 10_007]
)
def test_a_bots_series_is_evenly_thinned_as_rows_arrive(count: int) -> None:
    series = Series()
    for i in range(count):
        series.add(HistoryRow(i, f"m{i}", "a", float(i), 1.0))
    held = [i for i, _ in series.points()]
    assert len(held) <= PLOT_POINTS and len(held) >= min(count, PLOT_POINTS // 2)
    assert held[0] == 0 and held[-1] == count - 1  # the first and the current rating
    gaps = [b - a for a, b in itertools.pairwise(held)] or [1]
    assert len(set(gaps[:-1])) <= 1 and 0 < gaps[-1] <= gaps[0]  # even, then the last one
    assert [r.mu for _, r in series.points()] == [float(i) for i in held]


def test_the_history_held_and_a_bot_page_stay_bounded_as_the_history_grows(
    tmp_path: Path,
) -> None:
    """The server holds a thinned series per bot, not every row (300k at 100k matches), and
    a bot page's plot draws those: rows held, the plot's points and the page's bytes are the
    same at 180 and at 1200 matches a bot; an author still reads every row, from the store."""
    found = {}
    for rounds in (60, 400):  # 180 and 1200 matches for each of 3 bots
        competition = _filled(tmp_path / str(rounds), rounds)
        app = create_app(competition, run_ladder=False)
        with TestClient(app) as client:
            text = client.get("/bots/house-greedy").text
            history = app.state.held.history
            store = Store.read(competition.database, "happy_mochi")
            try:
                every = history.rows_of(store, ["house-greedy"])
            finally:
                store.close()
        plot = text[text.index('id="history-house-greedy"') :]
        line = plot[: plot.index("</g>")]
        points = line.count("L ") + 1
        assert "<use" not in line and PLOT_POINTS // 3 <= points <= PLOT_POINTS
        assert sum(len(s.points()) for s in history.by_bot.values()) <= 3 * PLOT_POINTS
        assert len(every) == 3 * rounds  # the author's view: every published row
        found[rounds] = len(text)
    assert found[400] <= 1.1 * found[60], found


def test_the_queue_page_says_so_when_the_ladder_process_dies_and_it_is_restarted(
    tmp_path: Path, served: Serve
) -> None:
    competition = load_competition(write_competition(tmp_path / "comp", house=3, rounds=1))
    server, url = served(competition.path)
    ladder = until(lambda: _ladder_child(server.pid), what="the ladder's process")
    until(lambda: get(url + "/api/queue")[1].count('"idle"'), what="the ladder to finish")
    # A published match never changes: its viewer is answered 304 to a visitor that has it.
    match = get_json(url + "/api/queue")["done_today"][0]
    status, headers, _ = _fetch(f"{url}/matches/{match}")
    assert status == 200
    again = _fetch(f"{url}/matches/{match}", {"If-None-Match": headers["ETag"]})
    assert again[0] == 304 and again[2] == b""
    os.kill(ladder, signal.SIGKILL)
    until(lambda: '"restarts":1' in get(url + "/api/queue")[1].replace(" ", ""),
          what="the restart to be seen")  # fmt: skip
    status, text = get(url + "/queue")
    assert status == 200 and "started again 1 time" in text and "signal 9" in text
    restarted = until(lambda: _ladder_child(server.pid), what="a new ladder process")
    assert restarted != ladder
    until(lambda: get(url + "/api/queue")[1].count('"idle"'), what="the new one to be idle")


def test_sigterm_stops_the_server_and_its_ladder_process_with_every_stored_match_whole(
    tmp_path: Path, served: Serve
) -> None:
    competition = load_competition(write_competition(tmp_path / "comp", house=3, follow=True))
    server, url = served(competition.path)
    ladder = until(lambda: _ladder_child(server.pid), what="the ladder's process")
    until(lambda: get(url + "/api/queue")[1].count('"playing"'), what="the ladder to play")
    os.kill(server.pid, signal.SIGTERM)
    # uvicorn stops gracefully, then raises the signal again: the exit says SIGTERM
    assert server.wait(STOP_WAIT_S + 60) in (0, -signal.SIGTERM)
    until(lambda: not Path(f"/proc/{ladder}").exists(), what="the ladder's process to end")
    store = Store.read(competition.database, "happy_mochi")
    try:
        seats = store.conn.execute("SELECT match_id, COUNT(*) FROM results GROUP BY match_id")
        assert all(n == 3 for _, n in seats), "every stored match whole"
        assert store.conn.execute("SELECT COUNT(*) FROM voids").fetchone()[0] == 0
    finally:
        store.close()


def _ladder_child(server: int) -> int | None:
    """The pid of the server's ladder process (``python -m arena.web.ladder``), if running."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = int(stat.rpartition(")")[2].split()[1])
        if parent == server and b"arena.web.ladder" in argv:
            return int(entry.name)
    return None
