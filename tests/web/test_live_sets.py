"""A duplicate set being played shows nothing of its stored rotations: they share its deal, so a
stored rotation's replay would deal the cards of the rotations still to play.

A real ``arena serve`` (its own ladder off: the test is the ladder's writer, so the moment
between two rotations is exact), a real author's bot uploaded over HTTP and passed through the
gate, real matches played by real bot processes and stored one rotation at a time; every page
and API a visitor or the author can read, and the static report of the following ladder."""

from __future__ import annotations

import dataclasses
import json
import urllib.error
import urllib.request
from pathlib import Path

from arena.ladder.deal_key import deal_key
from arena.ladder.executor import run_match
from arena.ladder.follow import next_set
from arena.ladder.jobs import MatchJob
from arena.ladder.loop import register
from arena.ladder.schedule import MatchSpec
from arena.ladder.store import Store
from arena.report.html import write_report
from arena.web.accounts import Accounts
from arena.web.client import follow, mine, upload
from arena.web.competition import Competition, load_competition
from tests.registry.helpers import bot_folder
from tests.web.competitions import chatty, write_competition
from tests.web.servers import Serve, get_json

PUBLIC = ("/", "/queue", "/api/standings", "/api/queue", "/api/changes", "/bots/alice@1",
          "/bots/house-greedy", "/bots/house-random")  # fmt: skip


def _play(competition: Competition, store: Store, spec: MatchSpec) -> None:
    """Play one rotation with fresh bot processes and store it, as the ladder's worker does."""
    cfg = competition.ladder(check_bots=True)
    assert cfg is not None
    job = MatchJob.of(cfg, spec, deal_key(store))
    fresh = tuple(dataclasses.replace(b, reuse=False) for b in job.bots)  # none kept here
    returned = run_match(dataclasses.replace(job, bots=fresh).as_dict())
    assert returned.void is None and returned.result is not None, returned
    store.record_match(spec, returned.result, 1)


def _text(url: str, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url + path, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_a_set_is_published_only_once_every_rotation_is_stored(
    tmp_path: Path, served: Serve
) -> None:
    path = write_competition(tmp_path / "comp", house=2, follow=True)
    competition = load_competition(path)
    accounts = Accounts(competition.server.accounts)
    token = accounts.add_author("alice")
    accounts.close()
    _, url = served(path, "--no-ladder")
    answer = upload(url, token, bot_folder(tmp_path / "alice", "alice", chatty("SECRET-alice")))
    assert follow(url, token, answer, 240, lambda _: None)["status"] == "active"

    cfg = competition.ladder(check_bots=True)
    assert cfg is not None
    store = Store.create(cfg.database, cfg.game.id)
    try:
        register(cfg, store)
        specs = next_set(cfg, store)
        assert [s.rotation for s in specs] == [0, 1, 2]
        first = specs[0].match_id
        _play(competition, store, specs[0])

        # Rotation 0 is stored, rotations 1 and 2 are not: nothing of it anywhere.
        for page in PUBLIC:
            status, text = _text(url, page)
            assert status == 200, page
            assert first[:12] not in text and "SECRET" not in text, page
        for page in (f"/matches/{first}", f"/matches/{first}?seat=0",
                     f"/matches/{first}/replay.json"):  # fmt: skip
            status, text = _text(url, page)
            assert status == 404 and "no stored match with this id" in text, page
        standings = get_json(url + "/api/standings")
        assert standings["stored"] == 0
        assert {b["games"] for b in standings["bots"]} == {0}  # no rating moved
        queue = get_json(url + "/api/queue")
        assert (queue["done_today"], queue["unpublished"]) == ([], 1)  # a count, no more
        own = mine(url, token)
        assert (own["matches"], own["ratings"]) == ([], [])
        assert "SECRET" not in json.dumps(own)
        report = write_report(cfg, tmp_path / "report")
        assert first[:12] not in report.read_text()
        assert not (tmp_path / "report" / "replays").exists() or not any(
            (tmp_path / "report" / "replays").iterdir()
        )

        _play(competition, store, specs[1])
        assert _text(url, f"/matches/{first}")[0] == 404  # one rotation still to play
        _play(competition, store, specs[2])
    finally:
        store.close()

    # The whole set is stored: every rotation appears, everywhere.
    standings = get_json(url + "/api/standings")
    assert standings["stored"] == 3
    assert {b["games"] for b in standings["bots"]} == {3}
    for spec in specs:
        status, text = _text(url, f"/matches/{spec.match_id}")
        assert status == 200 and spec.match_id in text
        replay = get_json(f"{url}/matches/{spec.match_id}/replay.json")
        # Only each bot's name is public, never its command (arguments, paths).
        assert [set(p) for p in replay["players"]] == [{"seat", "name"}] * 3
        assert "sample_bots" not in json.dumps(replay)
    assert first[:12] in _text(url, "/")[1]
    queue = get_json(url + "/api/queue")
    assert (sorted(queue["done_today"]), queue["unpublished"]) == (
        sorted(s.match_id for s in specs), 0,
    )  # fmt: skip
    own = mine(url, token)
    assert sorted(m["match"] for m in own["matches"]) == sorted(s.match_id for s in specs)
    assert "SECRET-alice" in json.dumps(own)  # the author's own stderr, now the set is over
    report = write_report(cfg, tmp_path / "report-after")
    assert first[:12] in report.read_text()
    assert len(list((tmp_path / "report-after" / "replays").iterdir())) == 3
