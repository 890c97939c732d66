"""The sample bots in other languages play every game through the real referee.

Each sample bot (Node and C++ over ZeroMQ and over the pipe transport, bash + jq and Java over
stdio, and the Python random bot for reference) plays a full match of every game against the
Python random bot; every seat must finish ``ok`` having made decisions, the sample bot must
leave on its own after ``game_over``, and the replay must verify. Then the transports are
compared: the Node, C++ and bash bots share a deterministic rule (``--rule hash``), so a match
with some seats on stdio or pipe must be decided exactly like the same match all on ZeroMQ.

The Node packages, the C++ binary and the Java classes are built by ``make bots`` (``make test``
does it first); without them these tests skip and say so.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.games import load_game
from arena.match.bots import BotSpec, parse_bot
from arena.match.referee import play_match
from arena.match.replay import read, verify
from arena.match.results import Limits, MatchResult

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / "sample_bots" / "node"
CPP_BIN = ROOT / "sample_bots" / "cpp" / "build" / "random_bot"
STDIO_BOT = ROOT / "sample_bots" / "stdio" / "random_bot.sh"
JAVA_CLASS = ROOT / "sample_bots" / "java" / "build" / "RandomBot.class"
# Generous clocks: under `pytest -n auto` on a small machine a bot may wait for a core.
LIMITS = Limits(init_ms=10_000, move_ms=5_000, bank_ms=10_000)
SEED = 3
# Seats per game: the minimum the game allows (Motora's random games get long with many seats).
SEATS = {"happy_mochi": 2, "mottainai": 2, "mai_star": 3, "motora": 2}

COMMANDS = {
    "node": "sample_bots/node/random_bot.js",
    "node_pipe": "pipe:sample_bots/node/random_bot.js",
    "cpp": "sample_bots/cpp/build/random_bot",
    "cpp_pipe": "pipe:sample_bots/cpp/build/random_bot",
    "stdio": "stdio:sample_bots/stdio/random_bot.sh",
    "java": "stdio:java -cp sample_bots/java/build RandomBot",
    "python": "python sample_bots/python/random_bot.py",
}
TRANSPORTS = {"node_pipe": "pipe", "cpp_pipe": "pipe", "stdio": "stdio", "java": "stdio"}


def require(kind: str) -> None:
    """Skip unless the sample bot ``kind`` can run here (built by `make bots`)."""
    if kind.startswith("node"):
        if shutil.which("node") is None:
            pytest.skip("node is not installed: the Node sample bot cannot run")
        for package in ("zeromq", "@msgpack/msgpack"):
            if not (NODE_DIR / "node_modules" / package / "package.json").is_file():
                pytest.skip(f"Node package {package} not installed: run `make bots`")
    elif kind.startswith("cpp") and not CPP_BIN.is_file():
        pytest.skip(f"{CPP_BIN.relative_to(ROOT)} not built: run `make bots`")
    elif kind == "java" and not JAVA_CLASS.is_file():
        pytest.skip(f"{JAVA_CLASS.relative_to(ROOT)} not built: run `make bots` (needs a JDK)")
    elif kind == "stdio" and shutil.which("jq") is None:
        pytest.skip("jq is not installed (scripts/install-system-deps): the stdio bot needs it")


def bot(name: str, kind: str, *args: str) -> BotSpec:
    return parse_bot(f"{name}={COMMANDS[kind]} {' '.join(args)}".strip(), ROOT)


def check_match(result: MatchResult, replay_path: Path) -> None:
    assert result.void is None, result.void
    for seat in result.seats:
        assert seat.status == "ok", (seat.name, seat.status, seat.detail, seat.log_tail)
        assert seat.decisions > 0, f"{seat.name} was never asked"
    assert verify(read(replay_path)).ok


@pytest.mark.parametrize("game_id", sorted(SEATS))
@pytest.mark.parametrize(
    "kind", ["node", "node_pipe", "cpp", "cpp_pipe", "stdio", "java", "python"]
)
def test_sample_bot_plays_every_game(kind: str, game_id: str, tmp_path: Path) -> None:
    require(kind)
    # The sample bot in seat 0 (and 2, for three seats), the Python random bot in seat 1.
    bots = [bot(f"{kind}-a", kind, "--seed", "1"), bot("ref", "python", "--seed", "2")]
    if SEATS[game_id] > 2:
        bots.append(bot(f"{kind}-b", kind, "--seed", "3"))
    replay_path = tmp_path / "r.json"
    result = play_match(load_game(game_id), bots, seed=SEED, limits=LIMITS, replay_path=replay_path)
    check_match(result, replay_path)
    for seat in result.seats:
        if seat.name.startswith(f"{kind}-"):
            assert seat.transport == TRANSPORTS.get(kind, "zmq")
            assert seat.exit_code == 0, f"{seat.name} did not exit 0 after game_over: {seat}"


def without_timings(replay: dict[str, Any]) -> dict[str, Any]:
    """What two plays of one match must share whatever the transports: every decision (without
    its thinking time), the event log, the outcome and each seat's rank and status."""
    return {
        "decisions": [{k: v for k, v in d.items() if k != "ms"} for d in replay["decisions"]],
        "events": replay["events"],
        "outcome": replay["outcome"],
        "result": [{k: r.get(k) for k in ("seat", "rank", "status")} for r in replay["result"]],
    }


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_stdio_and_zeromq_seats_decide_alike(game_id: str, tmp_path: Path) -> None:
    """Seat a plays (seq * 7 + seat) % options in Node over ZeroMQ or in bash over stdio; seat b
    the same rule in C++ (a control on ZeroMQ); seat c the seeded Python random bot over ZeroMQ
    or stdio. Three seats suit every game. Same seed, same answers: the same match."""
    for kind in ("node", "cpp", "stdio", "java"):
        require(kind)
    lineups = {
        "zeromq": [
            bot("a", "node", "--rule", "hash"),
            bot("b", "cpp", "--rule", "hash"),
            bot("c", "python", "--seed", "5"),
        ],
        "mixed": [
            bot("a", "stdio", "--rule", "hash"),
            bot("b", "cpp", "--rule", "hash"),
            parse_bot(f"c=stdio:{COMMANDS['python']} --seed 5", ROOT),
        ],
        "java": [
            bot("a", "java", "--rule", "hash"),
            bot("b", "cpp", "--rule", "hash"),
            bot("c", "python", "--seed", "5"),
        ],
        "pipe": [
            bot("a", "node_pipe", "--rule", "hash"),
            bot("b", "cpp_pipe", "--rule", "hash"),
            parse_bot(f"c=pipe:{COMMANDS['python']} --seed 5", ROOT),
        ],
    }
    assert [b.transport for b in lineups["mixed"]] == ["stdio", "zmq", "stdio"]
    plays = {}
    for label, bots in lineups.items():
        replay_path = tmp_path / f"{label}.json"
        result = play_match(
            load_game(game_id), bots, seed=SEED, limits=LIMITS, replay_path=replay_path
        )
        check_match(result, replay_path)
        assert [s.transport for s in result.seats] == [b.transport for b in bots]
        assert all(s.exit_code == 0 for s in result.seats), (
            label,
            [s.exit_code for s in result.seats],
        )
        plays[label] = (result, without_timings(read(replay_path)))
    zmq_result, zmq_play = plays["zeromq"]
    for label in ("mixed", "java", "pipe"):
        other_result, other_play = plays[label]
        assert [s.score for s in other_result.seats] == [s.score for s in zmq_result.seats]
        assert other_result.ranks == zmq_result.ranks
        assert [s.decisions for s in other_result.seats] == [s.decisions for s in zmq_result.seats]
        assert other_play == zmq_play, label
    assert any(d["by"] == "bot" and d["seat"] == 0 for d in zmq_play["decisions"])
