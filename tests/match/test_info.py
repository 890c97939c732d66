"""A bot's note on each choice (``action.info``): kept with its decision in the replay, bounded
and printable, and shown by ``arena replay show``; played by a real bot that writes its own
hidden cards, HTML and control characters into every note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.games import load_game
from arena.match import referee
from arena.match.bots import parse_bot
from arena.match.referee import INFO_CHARS, play_match
from arena.match.replay import describe, read, verify
from arena.match.results import Limits
from tests.ladder.helpers import ROOT

GAME = load_game("happy_mochi")
TALKER = ROOT / "tests" / "bots" / "faulty" / "talker.py"
OPTIONS = {"max_rounds": 1, "first_seat": 0}
LIMITS = Limits(init_ms=10_000, move_ms=5_000, bank_ms=10_000)


def _play(tmp_path: Path) -> dict:
    bots = [
        parse_bot(f"talker=python {TALKER}", ROOT),
        parse_bot("python sample_bots/python/random_bot.py --seed 1", ROOT),
    ]
    path = tmp_path / "talk.json"
    result = play_match(GAME, bots, 4, OPTIONS, LIMITS, replay_path=path)
    assert [s.status for s in result.seats] == ["ok", "ok"]
    data = read(path)
    assert verify(data).ok
    return data


def _hands(data: dict) -> list[list]:
    """Seat 0's hand before each decision, re-simulated."""
    state = GAME.new(2, data["seed"], data["game"]["options"])
    hands = []
    for record in data["decisions"]:
        hands.append(json.loads(json.dumps(state.view(0)["hand"])))
        state.act(record["seat"], record["choice"])
    return hands


def test_each_answer_keeps_its_note_bounded_and_printable(tmp_path: Path) -> None:
    data = _play(tmp_path)
    asked = [(i, d) for i, d in enumerate(data["decisions"]) if d["by"] == "bot"]
    talked = [(i, d) for i, d in asked if d["seat"] == 0]
    assert talked and all(d["seat"] == 0 for _, d in asked if "info" in d)
    assert not any("info" in d for d in data["decisions"] if d["seat"] == 1)
    hands = _hands(data)
    for k, (i, record) in enumerate(talked, 1):
        info = record["info"]
        hand = json.dumps(hands[i], separators=(",", ":"))
        assert info.startswith(f"note {k}: holding {hand} <img src=x onerror=")
        assert len(info) == INFO_CHARS and info.endswith("xxx...")  # 5 000 x sent
        assert info.isprintable() and "?[31m??" in info  # ESC, NUL and newline made "?"


def test_a_seats_notes_stop_when_its_allowance_is_spent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(referee, "INFO_CHARS_PER_SEAT", 2 * INFO_CHARS + 10)
    data = _play(tmp_path)
    talked = [d for d in data["decisions"] if d["seat"] == 0 and d["by"] == "bot"]
    assert len(talked) > 2
    assert [("info" in d) for d in talked] == [True, True] + [False] * (len(talked) - 2)


def test_replay_show_prints_each_note_under_its_decision(tmp_path: Path) -> None:
    data = _play(tmp_path)
    lines = describe(data)
    first = next(i for i, line in enumerate(lines) if line.startswith("#") and "(talker)" in line)
    assert lines[first + 1].startswith("  info: note 1: holding [")
    notes = [line for line in lines if line.startswith("  info: ")]
    assert len(notes) == sum("info" in d for d in data["decisions"])
    data["decisions"][0]["info"] = "\x1b]0;owned\x07" + "y" * 5000  # a replay edited by hand
    shown = describe(data)
    assert sum(line.startswith("  info: ?]0;owned?yyy") for line in shown) == 1
    assert all(len(line) <= INFO_CHARS + 10 for line in shown if line.startswith("  info: "))
