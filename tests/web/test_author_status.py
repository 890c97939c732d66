"""``arena bot status --server URL`` against a real ``arena serve`` process: real uploads
through the real gate, real matches played by the server's ladder, the real command's output.

A hostile author's bot passes the validation gate (check-bot plays long games) and crashes in
the ladder's short ones, writing terminal escape sequences and a secret to its stderr."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from arena.web.client import mine
from arena.web.competition import load_competition
from tests.registry.helpers import ARENA, ROOT, arena, bot_folder
from tests.web.competitions import author_token, chatty, write_competition
from tests.web.servers import Serve, free_port, get_json, until

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x9b2J"  # retitle the terminal, clear the screen (ESC and CSI)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # what may not reach a terminal
# A build that writes escape sequences: its log is stored and shown without them.
HOSTILE_BUILD = r"printf '\033]0;pwned\007\033[2J'; echo compiling; exit 3"
CRASHER = f"""
import sys
from protocol.bot import Bot, Turn, Welcome, run


class Crasher(Bot):
    moves = 0

    def on_welcome(self, welcome: Welcome) -> None:
        super().on_welcome(welcome)
        # The ladder plays one round; check-bot plays the game's default, many more.
        self.ladder = welcome.game["options"]["max_rounds"] == 1

    def choose(self, turn: Turn) -> int:
        self.moves += 1
        print({ESCAPES!r} + "SECRET-alice move", self.moves, file=sys.stderr, flush=True)
        if self.ladder:  # at its first decision: every deal has one
            raise SystemExit(3)
        return 0


run(Crasher())
"""


def _status(url: str, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    return arena("bot", "status", "--server", url, "--token", token, *args)


# Four uploads through the gate queue and two ladders of 12 matches: about 90 s on a loaded
# 2-core machine; the bound is generous, never a measure of speed.
@pytest.mark.timeout(300)
def test_an_author_sees_their_crashes_and_no_one_elses_secrets(
    tmp_path: Path, served: Serve
) -> None:
    path = write_competition(tmp_path / "comp", house=1, rounds=4)
    alice, bob, carol = (author_token(path, who) for who in ("alice", "bob", "carol"))
    _, url = served(path)
    folders = {
        "alice": bot_folder(tmp_path / "alice", "crasher", CRASHER),
        "bob": bot_folder(tmp_path / "bob", "chatty", chatty("SECRET-bob")),
        "carol": bot_folder(tmp_path / "carol", "broken", build=HOSTILE_BUILD),
    }
    for who, token in (("alice", alice), ("bob", bob), ("carol", carol)):
        done = arena("bot", "submit", str(folders[who]), "--server", url, "--token", token)
        assert done.returncode == (1 if who == "carol" else 0), done.stderr
        assert not CONTROL.search(done.stdout + done.stderr)
    # house-greedy, crasher and chatty: one table of 3, 4 duplicate sets of 3 matches.
    until(lambda: get_json(url + "/api/standings")["stored"] == 12, timeout=120, what="matches")

    shown = _status(url, alice)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert out.startswith(f"alice's bots on {url}\n\ncrasher: crasher@1 active\n"), out
    assert "rating     crasher@1: mu " in out and "after 12 matches" in out
    assert "since the upload: 12 seats in 12 matches: 12 crashed" in out
    newest = sorted(mine(url, alice)["matches"], key=lambda m: -m["finished_at"])
    listed = [line.split()[-1] for line in out.splitlines() if line.startswith("    watch ")]
    assert listed == [f"{url}/matches/{m['match']}" for m in newest[:10]]
    assert out.count("  - crashed in match ") == 10
    assert "  ... and 2 more faulted seats (--format json has them)\n" in out
    assert re.search(r"incident  crashed \(fatal\), seq \d+ ", out), out
    assert "    | 2JSECRET-alice move 1\n" in out  # the stderr tail, its escapes gone
    assert "pwned" not in out and not CONTROL.search(out)

    only = _status(url, alice, "crasher")
    assert only.stdout == out  # alice has only the one bot

    theirs = _status(url, bob)
    assert theirs.returncode == 0, theirs.stderr
    assert "chatty: chatty@1 active" in theirs.stdout
    assert "since the upload: 12 seats in 12 matches: 12 ok" in theirs.stdout
    assert "SECRET-alice" not in theirs.stdout + theirs.stderr
    raw = _status(url, bob, "--format", "json")
    assert "SECRET-alice" not in raw.stdout
    assert json.loads(raw.stdout) == mine(url, bob)

    rejected = _status(url, carol).stdout
    # The build log is stored without its escape sequences, and printed so.
    assert "broken: broken@1 rejected (the build failed with exit status 3: compiling" in rejected
    assert "pwned" not in rejected
    assert "  | compiling\n" in rejected and not CONTROL.search(rejected)
    assert "rating     broken@1: not rated yet (0 matches)" in rejected
    registry = str(load_competition(path).registry)  # the organiser looks at it too
    shown = arena("bot", "show", "broken", "--registry", registry).stdout
    assert "  | compiling\n" in shown and not CONTROL.search(shown)

    # Fixed: the next upload's status counts only what it played, every seat ok.
    fixed = bot_folder(tmp_path / "alice-2", "crasher", chatty("the fix"))
    assert arena("bot", "submit", str(fixed), "--server", url, "--token", alice).returncode == 0
    until(lambda: len(_played(mine(url, alice), "crasher@2")) == 12, timeout=120, what="matches")
    after = _status(url, alice).stdout
    assert "\ncrasher: crasher@2 active\n" in after
    assert "rating     crasher@2: mu " in after and "after 12 matches" in after
    assert "since the upload: 12 seats in 12 matches: 12 ok\n" in after
    assert "crashed" not in after

    env = {k: v for k, v in os.environ.items() if k != "ARENA_AUTHOR_TOKEN"}
    closed = f"http://127.0.0.1:{free_port()}"
    for args, why in (
        (("--server", url), "--server needs your author token"),
        (("--server", url, "--token", "not-a-token"), "the server refused your token"),
        (("--server", closed, "--token", alice), f"{closed}: cannot be reached"),
        (("--server", url, "--token", alice, "chatty"), "chatty: not one of your bots"),
        (("--server", url, "--token", alice, "--format", "yaml"), "--format must be one of"),
    ):
        argv = [ARENA, "bot", "status", *args]
        wrong = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        assert wrong.returncode == 2 and wrong.stdout == ""
        assert wrong.stderr.startswith("arena: error: ") and wrong.stderr.count("\n") == 1
        assert why in wrong.stderr


def _played(found: dict[str, Any], version: str) -> list[str]:
    """The matches of ``version`` in a ``/api/bots/mine`` answer."""
    return [m["match"] for m in found["matches"] if any(s["bot"] == version for s in m["seats"])]
