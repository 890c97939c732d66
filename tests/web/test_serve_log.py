"""The organiser's log of a real ``arena serve``: a line on stderr for each upload, refusal,
gate result and match, with the time; never an author's token, a bot's stderr or an author's
control characters (a hostile build writes escape sequences and fake log lines)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.web.client import follow, upload
from tests.registry.helpers import bot_folder
from tests.web.competitions import author_token, chatty, write_competition
from tests.web.servers import Serve, get_json, post_archive, until

# Escape sequences, and a newline followed by what would pass for a line of the server's own.
FORGED = (
    r"printf '\033]0;pwned\007\033[2J'; "
    r"printf 'bad\n2026-01-01T00:00:00Z arena: match x played: fake\n'; exit 3"
)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
LINE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ arena: (.*)")


@pytest.mark.timeout(300)
def test_serve_logs_uploads_gates_refusals_and_matches(tmp_path: Path, served: Serve) -> None:
    path = write_competition(tmp_path / "comp", house=2)
    alice, carol = author_token(path, "alice"), author_token(path, "carol")
    _, url = served(path)
    good = upload(url, alice, bot_folder(tmp_path / "alice", "alice", chatty("SECRET-alice")))
    assert follow(url, alice, good, 240, lambda _: None)["status"] == "active"
    bad = upload(url, carol, bot_folder(tmp_path / "carol", "broken", build=FORGED))
    assert follow(url, carol, bad, 240, lambda _: None)["status"] == "rejected"
    assert post_archive(url, "not-a-token", b"x")[0] == 401
    # house-greedy, house-random and alice: one table of 3, one duplicate set of 3 matches.
    until(lambda: get_json(url + "/api/standings")["stored"] == 3, timeout=180, what="matches")

    log = until(lambda: _matches_logged(tmp_path, 3), timeout=60, what="the log's match lines")
    said = [m.group(1) for line in log.splitlines() if (m := LINE.fullmatch(line))]
    assert "upload by alice: alice@1 queued" in said
    assert "gate alice@1 validate: active" in said
    assert "upload by carol: broken@1 queued" in said
    rejected = [s for s in said if s.startswith("gate broken@1 build: rejected (")]
    assert len(rejected) == 1, said
    assert any(s.startswith("refused POST /api/bots: 401 ") for s in said)
    assert "ladder playing" in said
    played = [s for s in said if s.startswith("match ") and " played: " in s]
    assert len(played) == 3 and all("alice@1 ok" in s for s in played)
    assert all(re.fullmatch(r"match [0-9a-f]{16} played: .+ \(\d+ decisions, [\d.]+ s\)", s)
               for s in played)  # fmt: skip
    # Every line of the server's is its own: nothing an author wrote starts a line.
    assert not any(line.startswith("2026-01-01T00:00:00Z") for line in log.splitlines())
    assert alice not in log and carol not in log and "not-a-token" not in log
    assert "SECRET-alice" not in log and "pwned" not in log and not CONTROL.search(log)


def _matches_logged(folder: Path, n: int) -> str:
    """The server's log once it holds ``n`` match lines, else ''."""
    text = "".join(p.read_text() for p in sorted(folder.glob("serve-*.log")))
    return text if text.count(" played: ") >= n else ""
