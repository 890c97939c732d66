"""What a competition server shows of a bot's notes (``action.info``) and where a short match id
leads.

A bot's note may tell its own hidden cards, and the rotations of a duplicate set share their
deal: a note is shown with the rest of its replay only once the whole set is stored, never
before (not even to its author, whose own seats' logs wait for the set too), and as text. The
pages show match ids cut to 12 characters: ``/matches/SHORT`` leads to the one published match
whose id starts so, and is a 404 when none or several do.

A real ``arena serve`` (its ladder off: the test stores the rotations one at a time, as
``test_live_sets.py`` does), a real author's bot uploaded over HTTP through the gate, real
matches of real bot processes.
"""

from __future__ import annotations

import dataclasses
import json
import urllib.request
from pathlib import Path

from arena.ladder.deal_key import deal_key
from arena.ladder.executor import run_match
from arena.ladder.follow import next_set
from arena.ladder.jobs import MatchJob
from arena.ladder.loop import register
from arena.ladder.schedule import MatchSpec
from arena.ladder.store import Store
from arena.web.accounts import Accounts
from arena.web.client import follow, mine, upload
from arena.web.competition import Competition, load_competition
from tests.registry.helpers import bot_folder
from tests.web.competitions import write_competition
from tests.web.servers import Serve, get_json
from tests.web.test_live_sets import PUBLIC, _text

PAYLOAD = '<img src=x onerror="window.pwned=1">'
NOTER = (
    "import json\n"
    "from protocol.bot import Bot, Turn, run\n\n\n"
    "class Noter(Bot):\n"
    "    def choose(self, turn: Turn) -> int:\n"
    "        hand = json.dumps(turn.view['hand'])\n"
    f"        turn.info = 'NOTE-alice holding ' + hand + ' ' + {PAYLOAD!r}\n"
    "        return 0\n\n\n"
    "run(Noter())\n"
)


def _play(competition: Competition, store: Store, spec: MatchSpec) -> dict:
    """Play one rotation with fresh bot processes and store it; its result."""
    cfg = competition.ladder(check_bots=True)
    assert cfg is not None
    job = MatchJob.of(cfg, spec, deal_key(store))
    fresh = tuple(dataclasses.replace(b, reuse=False) for b in job.bots)
    returned = run_match(dataclasses.replace(job, bots=fresh).as_dict())
    assert returned.void is None and returned.result is not None, returned
    store.record_match(spec, returned.result, 1)
    return returned.result


def _redirect(url: str, path: str) -> tuple[int, str]:
    """The status and Location of a GET, redirects not followed."""

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object) -> None:
            return None

    try:
        with urllib.request.build_opener(Stay).open(url + path, timeout=30) as response:
            return response.status, response.headers.get("Location", "")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Location", "")


def test_notes_wait_for_the_set_and_short_ids_resolve(tmp_path: Path, served: Serve) -> None:
    path = write_competition(tmp_path / "comp", house=2, follow=True)
    competition = load_competition(path)
    accounts = Accounts(competition.server.accounts)
    token = accounts.add_author("alice")
    accounts.close()
    _, url = served(path, "--no-ladder")
    answer = upload(url, token, bot_folder(tmp_path / "alice", "alice", NOTER))
    assert follow(url, token, answer, 240, lambda _: None)["status"] == "active"

    cfg = competition.ladder(check_bots=True)
    assert cfg is not None
    store = Store.create(cfg.database, cfg.game.id)
    try:
        register(cfg, store)
        specs = next_set(cfg, store)
        first = specs[0].match_id
        results = [_play(competition, store, specs[0])]
        # One rotation stored, two to play: its notes nowhere, its short id leads nowhere.
        for page in (*PUBLIC, f"/matches/{first}/replay.json", f"/matches/{first[:12]}"):
            assert "NOTE-alice" not in _text(url, page)[1], page
        assert _redirect(url, f"/matches/{first[:12]}")[0] == 404
        assert "NOTE-alice" not in json.dumps(mine(url, token))
        results += [_play(competition, store, spec) for spec in specs[1:]]
        # The same three results stored again as a second complete set, under ids that share
        # their first 10 characters: a short id of those is ambiguous.
        for i, (spec, result) in enumerate(zip(specs, results, strict=True)):
            twin = dataclasses.replace(spec, match_id=f"twin-match{i}", set_id="twin-set")
            store.record_match(twin, result, 1)
    finally:
        store.close()

    # The set is stored: every rotation's replay carries alice's notes, shown as text.
    for spec in specs:
        replay = get_json(f"{url}/matches/{spec.match_id}/replay.json")
        seat = [p["name"] for p in replay["players"]].index("alice@1")
        notes = [d["info"] for d in replay["decisions"] if d["seat"] == seat and d["by"] == "bot"]
        assert notes and all(n.startswith("NOTE-alice holding [") for n in notes)
        assert not any("info" in d for d in replay["decisions"] if d["seat"] != seat)
        status, page = _text(url, f"/matches/{spec.match_id}")
        assert status == 200 and "NOTE-alice holding" in page and PAYLOAD not in page

    # Short ids: the 12 characters the pages show lead to the match, its seat and its replay.
    assert _redirect(url, f"/matches/{first[:12]}") == (307, f"/matches/{first}")
    assert _redirect(url, f"/matches/{first[:6]}?seat=1") == (307, f"/matches/{first}?seat=1")
    assert _redirect(url, f"/matches/{first[:12]}/replay.json") == (
        307, f"/matches/{first}/replay.json",
    )  # fmt: skip
    status, page = _text(url, f"/matches/{first[:12]}")  # followed
    assert status == 200 and first in page
    assert first[:12] in _text(url, "/")[1]
    for missing in (first[:5], "0123456789ab", "twin-match", "twin-m"):  # short, unknown, twins
        assert _redirect(url, f"/matches/{missing}")[0] == 404, missing
        assert _redirect(url, f"/matches/{missing}/replay.json")[0] == 404, missing
    assert _redirect(url, "/matches/twin-match1")[0] == 200
