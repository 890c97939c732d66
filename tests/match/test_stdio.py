"""The stdio transport: JSON lines on a bot's stdin and stdout, with the same rulings as ZeroMQ."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.games import load_game
from arena.match.bots import parse_bot
from arena.match.referee import play_match
from arena.match.replay import read, verify
from arena.match.results import Limits
from tests.procs import leftovers

from .test_referee import ROOT

GAME = load_game("happy_mochi")
BOT = ROOT / "tests" / "bots" / "stdio_misbehave.py"
RANDOM = ROOT / "sample_bots" / "python" / "random_bot.py"
# A long move clock: every framing fault must be ruled when it happens, not at a deadline.
PATIENT = Limits(init_ms=5000, move_ms=60_000, bank_ms=0, grace_ms=50)


def stdio_bot(folder: Path, mode: str, after: int = 3):
    """The bot run from a private copy, so its leftover processes can be found by path."""
    folder = folder / "bots"  # made with mode 0755: readable by the sandbox's bot uid
    folder.mkdir(exist_ok=True)
    shutil.copy(BOT, folder / BOT.name)
    return parse_bot(f"{mode}=stdio:python {folder / BOT.name} {mode} --after {after}")


def test_stdio_bots_play_a_whole_match_that_verifies(tmp_path) -> None:
    bots = [
        stdio_bot(tmp_path, "ok"),
        parse_bot(f"zmq=python {RANDOM}"),
        parse_bot(f"sdk=stdio:{RANDOM}"),
    ]
    result = play_match(GAME, bots, seed=4, limits=PATIENT, replay_path=tmp_path / "r.json")
    assert [s.status for s in result.seats] == ["ok"] * 3
    assert [s.transport for s in result.seats] == ["stdio", "zmq", "stdio"]
    assert all(s.decisions > 0 for s in result.seats)
    assert verify(read(tmp_path / "r.json")).ok


@pytest.mark.parametrize(
    ("mode", "status", "detail"),
    [
        ("garbage", "malformed", "not a valid JSON line"),
        ("unterminated", "malformed", "without a newline"),
        ("endless", "too_large", "no end in sight"),
        ("chatter", "malformed", "not a valid JSON line"),
        ("crash", "crashed", "exited with code 5"),
    ],
)
def test_broken_framing_is_ruled_at_once(
    mode: str, status: str, detail: str, tmp_path: Path
) -> None:
    bots = [stdio_bot(tmp_path, mode), parse_bot(f"python {RANDOM}")]
    result = play_match(GAME, bots, seed=2, limits=PATIENT, options={"max_rounds": 1})
    faulty, other = result.seats
    assert (faulty.status, other.status) == (status, "ok")
    assert detail in faulty.detail
    assert faulty.decisions == 3
    assert result.duration_ms < 20_000  # long before the 60 s move clock
    assert faulty.incidents[-1]["fatal"] and faulty.incidents[-1]["code"] == status
    assert leftovers(tmp_path) == []


def test_a_crashing_stdio_bot_keeps_its_last_words(tmp_path: Path) -> None:
    bots = [stdio_bot(tmp_path, "crash", 0), parse_bot(f"python {RANDOM}")]
    result = play_match(GAME, bots, seed=2, limits=PATIENT, options={"max_rounds": 1})
    assert "giving up" in result.seats[0].log_tail
