"""One author must not be able to slow or freeze the site: hostile uploads and connections
against a real ``arena serve`` process, each attempt made as an attacker would make it.

* many uploads whose build sleeps, from several authors: the gate queue takes one build at a
  time, refuses an author's third, and the site answers meanwhile; an honest bot uploaded
  after them is validated (in its own lane) and not rejected for timeouts;
* a build printing 100 MB: its log is kept capped (head and tail), out of what pages read;
  a failing build's reason is its first error line, and the whole kept log can be printed;
* 500 half-sent requests: closed after the head timeout while the site answers others;
* an upload whose body trickles: refused (408) once its time is up.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from arena.registry.store import REPORT_BYTES
from arena.web.accounts import Accounts
from arena.web.client import pack, upload
from arena.web.competition import load_competition
from tests.registry.helpers import arena, bot_folder
from tests.web.competitions import write_competition
from tests.web.servers import Serve, closed, get_json, settled, until

HALF_SENT = 500


def _tokens(path: Path, *authors: str) -> dict[str, str]:
    accounts = Accounts(load_competition(path).server.accounts)
    try:
        return {a: accounts.add_author(a) for a in authors}
    finally:
        accounts.close()


def _post(url: str, token: str, body: bytes) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url + "/api/bots", body, {"Authorization": f"Bearer {token}"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _author_get(url: str, token: str) -> Any:
    def get(path: str) -> Any:
        request = urllib.request.Request(url + path, headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    return get


def test_slow_builds_wait_in_their_queue_and_the_site_and_honest_bots_go_on(
    tmp_path: Path, served: Serve
) -> None:
    path = write_competition(tmp_path / "comp", house=2, builders=1, gates_per_author=2)
    tokens = _tokens(path, "a1", "a2", "a3", "honest")
    _, url = served(path)
    sleepers = []
    for author in ("a1", "a2", "a3"):
        for n in range(3):
            folder = bot_folder(tmp_path / f"{author}-{n}", f"{author}-bot", build=f"sleep 90 #{n}")
            status, answer = _post(url, tokens[author], pack(folder))
            if n < 2:
                assert (status, answer["status"]) == (201, "queued"), answer
                sleepers.append(answer["version"])
            else:  # a third version of the same author while two are in the gate: refused
                assert status == 429, answer
                assert "2 of your versions are in the gate queue (at most 2)" in answer["error"]
    # The site answers while the builds sleep (each read bounded generously, never timed).
    for _ in range(20):
        assert get_json(url + "/api/changes")["version"]
    gates = until(lambda: (g := get_json(url + "/api/queue")["gates"])["running"] and g,
                  what="a build running")  # fmt: skip
    assert gates == {"running": 1, "waiting": 5}  # one build at a time, the rest waiting
    # An honest bot uploaded after them: no build, so straight to the validation lane.
    honest = upload(url, tokens["honest"], bot_folder(tmp_path / "honest", "honest"))
    done = settled(_author_get(url, tokens["honest"]), honest["version"])
    assert (done["status"], done["reason"]) == ("active", ""), done
    assert "check-bot: ok" in done["validation"] and "timeout" not in done["validation"]
    states = {ref: _author_get(url, tokens[ref.partition("-")[0]])(f"/api/bots/{ref}")["status"]
              for ref in sleepers}  # fmt: skip
    assert sorted(states.values()) == ["building"] + ["queued"] * 5, states


FAILING_BUILD = """printf 'make: Entering directory /bot\\n'
printf "main.c:3:5: error: expected ';' before '}' token\\n"
printf 'main.c:9:1: error: expected declaration\\n'
printf 'make: *** [Makefile:2: all] Error 1\\n'
exit 2"""


def test_a_huge_build_log_is_kept_capped_and_a_failure_names_its_first_error(
    tmp_path: Path, served: Serve
) -> None:
    path = write_competition(tmp_path / "comp", house=2)
    token = _tokens(path, "alice")["alice"]
    _, url = served(path)
    build = "yes 'all work and no play' | head -c 100000000; echo; echo done"
    loud = bot_folder(tmp_path / "loud", "alice", build=build)
    done = settled(_author_get(url, token), upload(url, token, loud)["version"])
    assert done["status"] == "active", done["reason"]
    log = done["build_log"]
    assert len(log.encode()) <= REPORT_BYTES + 100
    assert log.startswith("all work and no play\n") and log.rstrip().endswith("done")
    assert "bytes cut ...]" in log
    registry = load_competition(path).registry
    stored = sum(f.stat().st_size for f in registry.glob("registry.db*"))
    assert stored < 8 * REPORT_BYTES, stored  # the 100 MB are not in the database
    for page in ("/", "/bots/alice@1", "/api/changes", "/api/queue"):
        with urllib.request.urlopen(url + page, timeout=60) as response:
            assert response.status == 200
            assert b"all work and no play" not in response.read()

    broken = bot_folder(tmp_path / "broken", "alice", build=FAILING_BUILD)
    failed = settled(_author_get(url, token), upload(url, token, broken)["version"])
    assert failed["status"] == "rejected"
    assert failed["reason"] == (
        "the build failed with exit status 2: main.c:3:5: error: expected ';' before '}' token"
    )
    whole = arena("bot", "status", "--server", url, "--token", token, "alice", "--log")
    assert whole.returncode == 0, whole.stderr
    for line in ("make: Entering directory /bot", "main.c:9:1: error: expected declaration",
                 "[arena: the build failed with exit status 2]"):  # fmt: skip
        assert f"  | {line}\n" in whole.stdout
    shown = arena("bot", "show", "alice@2", "--log", "--registry", str(registry))
    assert "  | main.c:9:1: error: expected declaration\n" in shown.stdout


def test_half_sent_requests_are_closed_and_the_site_answers_meanwhile(
    tmp_path: Path, served: Serve
) -> None:
    path = write_competition(tmp_path / "comp", house=2, header_timeout_s=2, upload_timeout_s=2)
    token = _tokens(path, "alice")["alice"]
    _, url = served(path, "--no-ladder")
    port = int(url.rpartition(":")[2])
    attackers = []
    for _ in range(HALF_SENT):  # from another loopback address than the honest requests
        sock = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
        sock.sendall(b"GET / HTTP/1.1\r\nHost: arena\r\nX-Slow: ")  # never finished
        sock.setblocking(False)
        attackers.append(sock)
    try:
        for _ in range(10):
            assert get_json(url + "/api/changes")["version"]
        until(lambda: all(closed(s) for s in attackers), timeout=120,
              what="every half-sent request closed")  # fmt: skip
        assert get_json(url + "/api/changes")["version"]

        # An upload whose body trickles in is refused once its time is up.
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(
            b"POST /api/bots HTTP/1.1\r\nHost: arena\r\nContent-Length: 100000\r\n"
            + f"Authorization: Bearer {token}\r\n\r\n".encode()
            + b"\x1f\x8b"
        )
        slow.settimeout(60)
        answer = b""
        for _ in range(10):  # a byte now and then, never the whole body
            time.sleep(0.5)
            try:
                slow.sendall(b"x")
            except OSError:
                break
        while chunk := _recv(slow):
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
        assert b"did not arrive whole in 2 s" in answer
    finally:
        for sock in attackers:
            sock.close()


def _recv(sock: socket.socket) -> bytes:
    try:
        return sock.recv(1 << 16)
    except OSError:
        return b""
