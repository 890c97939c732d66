"""What ``arena bot status`` says of the matches when the latest upload did not get in: they are
the version that plays on, named, never "since the upload" of a version that never played.

Driven with ``/api/bots/mine`` documents as the server writes them (the whole command against
a real server is ``test_author_status.py``)."""

from __future__ import annotations

from typing import Any

from arena.cli.author import bot_status

URL = "http://arena.test"


def _version(ref: str, status: str, at: float, reason: str = "") -> dict[str, Any]:
    return {"version": ref, "status": status, "reason": reason, "submitted_at": at}


def _match(match_id: str, at: float, bot: str, status: str) -> dict[str, Any]:
    seat = {"seat": 0, "bot": bot, "score": 1.0, "status": status, "detail": "", "rank": 1,
            "log_tail": "", "incidents": []}  # fmt: skip
    return {"match": match_id, "finished_at": at, "seats": [seat]}


def _mine(versions: list[dict[str, Any]], matches: list[dict[str, Any]]) -> dict[str, Any]:
    return {"author": "alice", "bots": ["crasher"], "versions": versions, "matches": matches,
            "ratings": []}  # fmt: skip


MATCHES = [
    _match("m1", 150.0, "crasher@1", "ok"),
    _match("m2", 250.0, "crasher@1", "crashed"),  # after crasher@2's upload, by crasher@1
    _match("m3", 260.0, "crasher@1", "ok"),
]


def test_a_rejected_upload_names_the_version_that_plays_on() -> None:
    found = _mine(
        [
            _version("crasher@1", "active", 100.0),
            _version("crasher@2", "rejected", 200.0, "the build failed"),
        ],
        MATCHES,
    )
    lines = bot_status(found, "crasher", URL)
    assert lines[0] == "crasher: crasher@2 rejected (the build failed)"
    assert not any("since the upload" in line for line in lines)
    assert (
        "  since crasher@1's upload (crasher@1 plays on: crasher@2 is rejected): "
        "3 seats in 3 matches: 2 ok, 1 crashed"
    ) in lines
    assert f"    watch     {URL}/matches/m2" in lines


def test_an_upload_in_its_gate_and_a_first_rejection_say_so() -> None:
    waiting = _mine([_version("crasher@1", "active", 100.0),
                     _version("crasher@2", "queued", 200.0)], MATCHES)  # fmt: skip
    assert "since crasher@1's upload (crasher@1 plays on: crasher@2 is queued)" in "\n".join(
        bot_status(waiting, "crasher", URL)
    )
    first = _mine([_version("crasher@1", "rejected", 100.0, "no")], [])
    assert (
        bot_status(first, "crasher", URL)[-1]
        == "  no match: no version of crasher was accepted yet"
    )


def test_an_accepted_upload_counts_only_its_own_matches() -> None:
    found = _mine(
        [_version("crasher@1", "retired", 100.0), _version("crasher@2", "active", 200.0)],
        [*MATCHES, _match("m4", 270.0, "crasher@2", "ok")],
    )
    lines = bot_status(found, "crasher", URL)
    assert "  since the upload: 1 seats in 1 matches: 1 ok" in lines
