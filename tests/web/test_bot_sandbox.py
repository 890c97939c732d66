"""What a submitted bot's sandbox may show, through a real ``arena serve`` process: hostile
uploads (archives made here, sent over HTTP) whose ``run`` reaches another author's code or the
competition's own files are refused, and a Java bot compiled by its build step in the sandbox
passes the gate and plays the competition.
"""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arena.web.client import upload
from tests.web.competitions import ROOT, author_token, member, tar_gz, write_competition
from tests.web.servers import Serve, gate_outcome, get_json, until

SECRET = "ORGANISER-SECRET-7f3a"
SPY = b'#!/bin/sh\ncat "$1" >&2\nexec python3 -c "import sys; sys.exit(1)"\n'


def _post(url: str, token: str, body: bytes) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url + "/api/bots", body, {"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _spy(run: str, build: str | None = None) -> bytes:
    manifest = f'name = "mallory"\nlanguage = "sh"\nrun = "{run}"\ngames = ["happy_mochi"]\n'
    if build:
        manifest += f'build = "{build}"\n'
    spy = member("spy.sh")
    spy.mode = 0o755
    return tar_gz([member("arena-bot.toml"), spy], {"arena-bot.toml": manifest.encode(),
                                                     "spy.sh": SPY})  # fmt: skip


@pytest.mark.timeout(600)  # builds and check-bot gates on a busy host
def test_hostile_runs_reach_no_other_author_and_no_competition_file(
    tmp_path: Path, served: Serve
) -> None:
    path = write_competition(tmp_path / "comp", house=2, follow=True)
    (path.parent / "notes.txt").write_text(SECRET)
    mallory = author_token(path, "mallory")
    _, url = served(path)
    alice = tar_gz(
        [member("arena-bot.toml"), member("alice.py")],
        {
            "arena-bot.toml": b'name = "alice-bot"\nlanguage = "python"\nrun = "python alice.py"\n'
            b'games = ["happy_mochi"]\n',
            "alice.py": (ROOT / "sample_bots/python/random_bot.py").read_bytes()
            + f"# {SECRET}-alice\n".encode(),
        },
    )
    alice_token = author_token(path, "alice")
    status, answer = _post(url, alice_token, alice)
    assert status == 201, answer
    assert gate_outcome(url, alice_token, answer["version"])["status"] == "active"
    # Another author's code, and the competition's database: refused as the archive arrives.
    for run in ("./spy.sh ../../alice-bot/1/alice.py", "./spy.sh ../../../../test-open.db"):
        status, answer = _post(url, mallory, _spy(run))
        assert status == 400, answer
        assert "run:" in answer["error"] and "climbs out of the bot's folder" in answer["error"]
    # A build that links ``root -> /`` and a run through the link: textually inside, resolved
    # outside; refused by name before the bot ever starts.
    run = f"./spy.sh root{path.parent}/notes.txt"
    status, answer = _post(url, mallory, _spy(run, build="ln -s / root"))
    assert status in (200, 201, 202), answer
    version = gate_outcome(url, mallory, answer["version"])
    assert version["status"] == "rejected", version
    assert f"root{path.parent}/notes.txt resolves to {path.parent}" in version["reason"]
    assert "outside the bot's folder" in version["reason"]
    mine = _mine(url, mallory)
    assert SECRET not in json.dumps(mine)
    assert [v["status"] for v in mine["versions"]] == ["rejected"]


def _mine(url: str, token: str) -> dict[str, Any]:
    request = urllib.request.Request(
        url + "/api/bots/mine", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


@pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK (scripts/install-system-deps)")
@pytest.mark.timeout(600)  # javac, then a JVM in every check-bot and placement match
def test_a_java_bot_builds_in_the_sandbox_passes_the_gate_and_plays(
    tmp_path: Path, served: Serve
) -> None:
    path = write_competition(tmp_path / "comp", house=2, follow=True)
    token = author_token(path, "jane")
    _, url = served(path)
    folder = tmp_path / "java"
    shutil.copytree(ROOT / "sample_bots/java", folder, ignore=shutil.ignore_patterns("build"))
    version = gate_outcome(url, token, upload(url, token, folder)["version"])
    assert version["status"] == "active", version
    assert "check-bot: ok" in version["validation"]
    assert "Error loading java.security" not in version["build_log"]

    def played() -> bool:
        bots = {b["bot"]: b["games"] for b in get_json(url + "/api/standings")["bots"]}
        return bots.get("java_random@1", 0) >= 3

    until(played, what="the Java bot's placement matches")
    seats = [s for m in _mine(url, token)["matches"] for s in m["seats"]]
    own = [s for s in seats if s["bot"] == "java_random@1"]
    assert len(own) >= 3 and all(s["status"] == "ok" for s in own), own
