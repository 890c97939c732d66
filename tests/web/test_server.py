"""The competition server end to end: real HTTP requests into the real app, real submissions
through the registry's gate, real matches played by the background ladder into a real SQLite
file; pages in chromium against a real ``arena serve`` process; SIGKILL and restart."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page
from starlette.testclient import TestClient

from arena.ladder.database import Location
from arena.ladder.store import Store, StoreError
from arena.web.accounts import Accounts
from arena.web.app import create_app
from arena.web.client import pack
from arena.web.competition import Competition, load_competition
from tests.ladder.helpers import share_key
from tests.registry.helpers import bot_folder
from tests.web.competitions import bot_archive, chatty, write_competition
from tests.web.servers import Serve, free_port, get_json, settled, until

HOSTILE_TEXT = '<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>'


def _author(competition: Competition, name: str) -> dict[str, str]:
    accounts = Accounts(competition.server.accounts)
    try:
        return {"Authorization": f"Bearer {accounts.add_author(name)}"}
    finally:
        accounts.close()


def _submit(client: TestClient, body: bytes, headers: dict[str, str]) -> dict[str, Any]:
    """Upload ``body``: answered at once (``queued``), then polled until its gate has spoken;
    the version with its reports."""
    response = client.post("/api/bots", content=body, headers=headers)
    assert response.status_code in (200, 201), response.text
    ref = response.json()["version"]
    return settled(lambda path: client.get(path, headers=headers).json(), ref)


def _games(client: TestClient) -> dict[str, int]:
    return {b["bot"]: b["games"] for b in client.get("/api/standings").json()["bots"]}


def test_submit_reject_place_rate_and_keep_each_authors_logs_private(
    tmp_path: Path, new_database: Callable[[], str | None]
) -> None:
    url = new_database()
    path = write_competition(tmp_path / "comp", house=2, database=url)
    competition = load_competition(path)
    assert competition.server.accounts == (url or path.with_name("test-open.accounts.db"))
    alice, bob = _author(competition, "alice"), _author(competition, "bob")
    with TestClient(create_app(competition)) as client:
        assert client.get("/api/standings").json() == {"stored": 0, "bots": []}
        assert client.get("/api/queue").json()["status"].startswith("waiting")

        broken = bot_archive(tmp_path / "broken", "alice", build="echo compiling; exit 3")
        response = client.post("/api/bots", content=broken, headers=alice)
        assert response.status_code == 201
        assert (response.json()["version"], response.json()["status"]) == ("alice@1", "queued")
        rejected = settled(lambda p: client.get(p, headers=alice).json(), "alice@1")
        assert rejected["status"] == "rejected"
        assert "compiling" in rejected["build_log"]
        assert "exit status 3" in rejected["reason"]

        body = bot_archive(tmp_path / "alice", "alice", chatty("SECRET-alice"))
        accepted = _submit(client, body, alice)
        assert (accepted["version"], accepted["status"]) == ("alice@2", "active")
        assert "check-bot: ok" in accepted["validation"]
        again = client.post("/api/bots", content=body, headers=alice).json()
        assert (again["new"], again["version"], again["status"]) == (False, "alice@2", "active")

        # Placed and rated: 3 bots for 3 seats, one table, one duplicate set of 3 matches.
        until(lambda: _games(client).get("alice@2") == 3, what="alice@2's matches")
        standings = client.get("/api/standings").json()
        assert standings["stored"] == 3
        assert sorted(b["bot"] for b in standings["bots"]) == [
            "alice@2", "house-greedy", "house-random",
        ]  # fmt: skip

        response = _submit(client, bot_archive(tmp_path / "bob", "bob", chatty("SECRET-bob")), bob)
        assert response["status"] == "active"
        # Standings update: 4 bots make 4 tables of 3, 12 matches in all.
        until(lambda: client.get("/api/standings").json()["stored"] == 12, what="12 matches")
        assert _games(client)["bob@1"] == 9
        until(lambda: client.get("/api/queue").json()["status"] == "idle", what="idle")

        mine = {who: client.get("/api/bots/mine", headers=h).json()
                for who, h in (("alice", alice), ("bob", bob))}  # fmt: skip
    for who, other in (("alice", "bob"), ("bob", "alice")):
        text = json.dumps(mine[who])
        assert f"SECRET-{who}" in text
        assert f"SECRET-{other}" not in text
        assert mine[who]["matches"], f"{who} sees their matches"
        for match in mine[who]["matches"]:
            for seat in match["seats"]:
                own = seat["bot"].startswith(f"{who}@")
                assert ("log_tail" in seat) == own, (who, seat)
                if own:
                    assert f"SECRET-{who}" in seat["log_tail"]
    assert [v["version"] for v in mine["alice"]["versions"]] == ["alice@1", "alice@2"]
    assert {r["version"] for r in mine["alice"]["ratings"]} == {"alice@2"}
    assert len(mine["bob"]["ratings"]) == 9  # bob@1's rating after each of its matches
    assert len(mine["bob"]["matches"]) == 9
    assert len(mine["alice"]["matches"]) == 9  # 3 tables of alice@2's 4 with bob


def test_public_pages_replays_and_what_they_hide(tmp_path: Path) -> None:
    competition = load_competition(write_competition(tmp_path / "comp", house=2))
    alice = _author(competition, "alice")
    with TestClient(create_app(competition)) as client:
        folder = bot_folder(tmp_path / "alice", "alice", chatty("SECRET-alice"))
        manifest = (folder / "arena-bot.toml").read_text()
        (folder / "arena-bot.toml").write_text(
            manifest.replace('language = "python"', f"language = {json.dumps(HOSTILE_TEXT)}")
        )
        body = pack(folder)
        assert _submit(client, body, alice)["status"] == "active"
        until(lambda: _games(client).get("alice@1") == 3, what="alice@1's matches")
        until(lambda: client.get("/api/queue").json()["status"] == "idle", what="idle")
        index = client.get("/")
        assert index.status_code == 200
        assert "alice@1" in index.text
        assert "<svg" in index.text  # the rating history
        bot_page = client.get("/bots/alice@1")
        assert bot_page.status_code == 200
        assert HOSTILE_TEXT not in bot_page.text
        assert "&lt;img src=x" in bot_page.text
        queue = client.get("/api/queue").json()
        assert len(queue["done_today"]) == 3
        assert queue["waiting"] == []
        match_id = queue["done_today"][0]
        replay = client.get(f"/matches/{match_id}/replay.json")
        assert replay.status_code == 200
        assert "attachment" in replay.headers["content-disposition"]
        data = replay.json()
        assert data["match"] == match_id
        assert "SECRET" not in replay.text
        assert all("log_tail" not in r and "incidents" not in r for r in data["result"])
        viewer = client.get(f"/matches/{match_id}")
        assert viewer.status_code == 200
        assert "SECRET" not in viewer.text
        assert client.get(f"/matches/{match_id}?seat=1").status_code == 200
        assert client.get("/matches/nope").status_code == 404
        assert client.get("/matches/nope/replay.json").status_code == 404
        assert client.get("/bots/nobody").status_code == 404


def test_a_following_competition_places_each_new_version(tmp_path: Path) -> None:
    competition = load_competition(write_competition(tmp_path / "comp", house=2, follow=True))
    alice = _author(competition, "alice")
    with TestClient(create_app(competition)) as client:
        first = bot_archive(tmp_path / "v1", "alice", chatty("one"))
        assert _submit(client, first, alice)["status"] == "active"
        until(lambda: _games(client).get("alice@1", 0) >= 3, what="alice@1's placement set")
        second = bot_archive(tmp_path / "v2", "alice", chatty("two"))
        response = _submit(client, second, alice)
        assert (response["version"], response["status"]) == ("alice@2", "active")
        until(lambda: _games(client).get("alice@2", 0) >= 3, what="alice@2's placement set")
        games = _games(client)
        assert games["alice@1"] >= 3  # the earlier version stays in the table
        queue = client.get("/api/queue").json()
        assert queue["status"] == "playing"
        assert all(len(m["bots"]) == 3 for m in queue["waiting"])
        mine = client.get("/api/bots/mine", headers=alice).json()
        assert {s["bot"] for m in mine["matches"] for s in m["seats"]} >= {"alice@1", "alice@2"}
        # A bot for another game is refused before the registry: it would stall the ladder.
        folder = bot_folder(tmp_path / "v3", "alice", chatty("three"))
        manifest = folder / "arena-bot.toml"
        manifest.write_text(manifest.read_text().replace("happy_mochi", "mottainai"))
        response = client.post("/api/bots", content=pack(folder), headers=alice)
        assert response.status_code == 400
        assert response.json()["error"] == (
            "alice plays mottainai, not happy_mochi (its manifest's games)"
        )


def test_matches_play_on_a_dask_cluster_when_the_competition_names_one(tmp_path: Path) -> None:
    from distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        with Client(cluster) as dask:
            pids = {str(pid) for pid in dask.run(os.getpid).values()}
        path = write_competition(tmp_path / "comp", house=3, cluster=cluster.scheduler_address)
        competition = load_competition(path)
        with TestClient(create_app(competition)) as client:
            until(lambda: client.get("/api/queue").json()["status"] == "idle", what="idle")
            assert client.get("/api/standings").json()["stored"] == 3
    store = Store.read(competition.database, "happy_mochi")
    try:
        workers = {r[0] for r in store.conn.execute("SELECT worker FROM matches")}
    finally:
        store.close()
    assert {w.rpartition(":")[2] for w in workers} <= pids, (workers, pids)

    gone = write_competition(tmp_path / "gone", house=3, cluster=f"tcp://127.0.0.1:{free_port()}")
    with TestClient(create_app(load_competition(gone))) as client:
        queue = until(lambda: (q := client.get("/api/queue").json())["status"] == "stopped" and q,
                       timeout=60, what="the runner to give up on the cluster")  # fmt: skip
    assert "127.0.0.1" in queue["problem"]


def _workers(server: int, playing: bool = False) -> list[int]:
    """The live worker processes of the server whose pid is ``server`` (its ladder process's
    children: the ladder runs in a process of its own); with ``playing``, only those that have
    bot processes of their own, so hold a match (fresh bots: a worker between matches has none).
    """
    parents: dict[int, int] = {}
    commands: dict[int, bytes] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
            commands[int(stat.parent.name)] = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if fields[0] not in "ZX":
            parents[int(stat.parent.name)] = int(fields[1])
    return [
        pid
        for pid, parent in parents.items()
        if parents.get(parent) == server
        and b"spawn_main" in commands[pid]
        and b"resource_tracker" not in commands[pid]
        and (not playing or pid in parents.values())
    ]


def _kill_one_in_a_match(server: int) -> bool:
    """SIGKILL a worker of the server ``server`` while it surely holds a match; whether one was.

    A worker seen with child processes may hold no match: a starting worker probes the sandbox
    with a process of its own, and one seen with bots may end its job before a signal reaches
    it (on a busy machine, while /proc is scanned); killed then, it leaves no void. So each is
    stopped first and killed only if, stopped, it still has a running bot of the competition
    as a child: a worker reaps its match's bots before it sends the match back, so its job
    cannot have ended. Otherwise it runs on (it holds no match: no clock runs)."""
    for worker in _workers(server, playing=True):
        with contextlib.suppress(ProcessLookupError):  # it may have just ended
            os.kill(worker, signal.SIGSTOP)
            until(lambda w=worker: _state(w) in "TXZ", what="the worker stopped", pause=0.001)
            if any(b"sample_bots/python" in _cmdline(child) for child in _children(worker)):
                os.kill(worker, signal.SIGKILL)
                return True
            os.kill(worker, signal.SIGCONT)
    return False


def _state(pid: int) -> str:
    """The process's state letter (X when it is gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return "X"


def _cmdline(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _children(pid: int) -> list[str]:
    """The child processes of ``pid`` (of each of its threads), zombies included."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += (task / "children").read_text().split()
        except OSError:
            continue
    return found


def test_sigkill_of_the_server_then_of_a_worker_loses_and_doubles_no_match(
    tmp_path: Path,
    served: Serve,
    new_database: Callable[[], str | None],
) -> None:
    killed = write_competition(tmp_path / "killed", house=3, rounds=2, slow=True,
                               database=new_database())  # fmt: skip
    calm = write_competition(tmp_path / "calm", house=3, rounds=2, slow=True,
                             database=new_database())  # fmt: skip
    for competition in (killed, calm):  # one deal key: the same deals, so the same standings
        share_key(load_competition(competition).database)
    database = load_competition(killed).database
    proc, url = served(killed)

    def first() -> bool:  # the database itself, read between the runner's writes
        try:
            return bool(_stored(database))
        except StoreError:  # not made yet
            return False

    until(first, what="a first match stored", pause=0.01)
    os.kill(proc.pid, signal.SIGKILL)  # the server alone: its workers must die with it
    proc.wait()
    before = _stored(database)
    assert 1 <= len(before) < 6, "killed while matches were still to play"
    proc, url = served(killed)
    # The restarted server loses a worker while it plays: it goes on with a fresh one.
    until(lambda: _kill_one_in_a_match(proc.pid), what="a worker killed in a match", pause=0.01)
    until(lambda: get_json(url + "/api/queue")["status"] == "idle", what="the restarted ladder")
    assert proc.poll() is None, "the server survives its worker's death"
    killed_standings = get_json(url + "/api/standings")
    _, url = served(calm)
    until(lambda: get_json(url + "/api/queue")["status"] == "idle", what="the calm ladder")
    calm_standings = get_json(url + "/api/standings")
    after = _stored(database)
    assert len(after) == len(set(after)) == 6  # 3 bots, 1 table, 2 rounds x 3 rotations
    assert set(before) <= set(after)
    assert _voids(database), "the worker died with matches in flight: void, then played again"
    assert killed_standings == calm_standings


def test_a_following_competition_killed_mid_set_completes_that_set_once(
    tmp_path: Path, served: Serve
) -> None:
    path = write_competition(tmp_path / "comp", house=3, follow=True, slow=True)
    database = path.parent / "test-open.db"
    proc, url = served(path)

    def cut() -> bool:  # the database itself, read between the runner's writes
        try:
            return any(len(r) < 3 for r in _sets(database).values())
        except StoreError:  # not made yet
            return False

    until(cut, what="a set cut in two", pause=0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _sets(database)
    assert any(len(rotations) < 3 for rotations in before.values())
    _, url = served(path)
    until(lambda: get_json(url + "/api/standings")["stored"] >= 3 * (len(before) + 1),
           what="the cut set completed and one more played")  # fmt: skip
    after = _sets(database)
    for set_id, rotations in before.items():
        assert sorted(after[set_id]) == [0, 1, 2], f"set {set_id} completed, each rotation once"
        assert set(rotations) <= set(after[set_id])


def _sets(database: Location) -> dict[str, list[int]]:
    """Each stored duplicate set's rotations (a rotation stored twice would show twice)."""
    store = Store.read(database, "happy_mochi")
    try:
        sets: dict[str, list[int]] = {}
        for set_id, rotation in store.conn.execute("SELECT set_id, rotation FROM matches"):
            sets.setdefault(set_id, []).append(rotation)
        return sets
    finally:
        store.close()


def _stored(database: Location, query: str = "SELECT id FROM matches") -> list[str]:
    store = Store.read(database, "happy_mochi")
    try:
        return [r[0] for r in store.conn.execute(query)]
    finally:
        store.close()


def _voids(database: Location) -> list[str]:
    return _stored(database, "SELECT reason FROM voids")


def test_the_standings_page_in_a_browser(tmp_path: Path, served: Serve, page: Page) -> None:
    path = write_competition(tmp_path / "comp", house=3)
    _, url = served(path)
    until(lambda: get_json(url + "/api/queue")["status"] == "idle", what="the ladder")
    page.goto(url + "/")
    rows = page.locator("#standings tbody tr")
    assert rows.count() == 3
    assert "house-greedy" in page.locator("#standings").inner_text()
    page.click("text=house-greedy")
    assert page.locator("h1").inner_text() == "house-greedy"
    page.click("text=queue")
    assert "ladder: idle" in page.locator("#runner").inner_text()
    match_id = get_json(url + "/api/queue")["done_today"][0]
    page.goto(f"{url}/matches/{match_id}?seat=0")
    page.wait_for_selector("#viewer *")
    assert f"match {match_id} · seat 0 (house-" in page.locator("h1").inner_text()


def test_the_queue_tells_running_from_waiting_matches(tmp_path: Path) -> None:
    competition = load_competition(write_competition(tmp_path / "comp", house=3, rounds=2,
                                                     slow=True))  # fmt: skip
    with TestClient(create_app(competition)) as client:
        queue = until(lambda: (q := client.get("/api/queue").json())["running"] and q,
                      pause=0.05, what="a match in a worker's hands")  # fmt: skip
        running = {m["id"] for m in queue["running"]}
        waiting = {m["id"] for m in queue["waiting"]}
        shown = len(running | waiting) + len(queue["done_today"]) + queue["unpublished"]
        assert not running & waiting and shown == 6
        assert not running & set(queue["done_today"])
        page = client.get("/queue").text
        assert '<table id="running">' in page and f"{len(running)} running · " in page
        until(lambda: client.get("/api/queue").json()["status"] == "idle", what="the ladder")
        queue = client.get("/api/queue").json()
    assert (queue["running"], queue["waiting"], len(queue["done_today"])) == ([], [], 6)
