"""The `arena` command as a user runs it: real process, real bots, real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")
RANDOM = "python sample_bots/python/random_bot.py"


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARENA, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_games_lists_ids_players_and_options() -> None:
    out = arena("games", "--json")
    assert out.returncode == 0
    games = {g["id"]: g for g in json.loads(out.stdout)}
    assert games["happy_mochi"]["players"] == "2-6"
    assert any(o.startswith("max_rounds=100") for o in games["happy_mochi"]["options"])
    table = arena("games").stdout
    assert "happy_mochi" in table and "Happy Mochi" in table


@pytest.mark.parametrize("seats", [2, 6])
def test_play_prints_json_with_scores_ranks_statuses(seats: int, tmp_path: Path) -> None:
    bots = [arg for i in range(seats) for arg in ("--bot", f"{RANDOM} --seed {i}")]
    replay = tmp_path / "m.json"
    out = arena("play", "happy_mochi", *bots, "--seed", "7", "--json", "--replay", str(replay))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert len(result["seats"]) == seats
    assert {s["status"] for s in result["seats"]} == {"ok"}
    assert sorted(s["rank"] for s in result["seats"])[0] == 0
    assert [s["score"] for s in result["seats"]] == result["outcome"]["scores"]
    verified = arena("replay", "verify", str(replay))
    assert verified.returncode == 0, verified.stderr
    assert "identical" in verified.stdout


def test_play_table_and_replay_show(tmp_path: Path) -> None:
    replay = tmp_path / "t.json"
    bots = ["--bot", f"a={RANDOM}", "--bot", f"b={RANDOM} --seed 1"]
    out = arena("play", "happy_mochi", *bots, "--option", "max_rounds=1", "--replay", str(replay))
    assert out.returncode == 0, out.stderr
    header = out.stdout.splitlines()[0].split()
    assert header == ["seat", "bot", "score", "rank", "status"]
    shown = arena("replay", "show", str(replay))
    assert shown.returncode == 0
    assert "seat 0 (a) turn: choice" in shown.stdout
    result = shown.stdout[shown.stdout.index("\nresult:\n") :].splitlines()
    assert result[2].startswith("  seat 0 a: place") and result[4].startswith("  seat 1 b: place")
    assert result[5].startswith("    zmq bot, sandbox ") and "exit code 0" in result[5]


def test_tampered_replay_fails_verification(tmp_path: Path) -> None:
    replay = tmp_path / "t.json"
    bots = ["--bot", RANDOM, "--bot", f"{RANDOM} --seed 1"]
    assert (
        arena(
            "play", "happy_mochi", *bots, "--option", "max_rounds=1", "--replay", str(replay)
        ).returncode
        == 0
    )
    data = json.loads(replay.read_text())
    data["outcome"]["scores"][0] += 1
    replay.write_text(json.dumps(data))
    out = arena("replay", "verify", str(replay))
    assert out.returncode == 1
    assert "outcome differs" in out.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["play", "chess", "--bot", RANDOM, "--bot", RANDOM], "unknown game 'chess'"),
        (["play", "happy_mochi", "--bot", RANDOM], "takes 2 to 6 players, got 1"),
        (
            ["play", "happy_mochi", "--bot", RANDOM, "--bot", RANDOM, "--option", "speed=3"],
            "has no option 'speed'",
        ),
        (
            ["play", "happy_mochi", "--bot", RANDOM, "--bot", RANDOM, "--option", "max_rounds=x"],
            "must be an integer",
        ),
        (
            ["play", "happy_mochi", "--bot", RANDOM, "--bot", "python nowhere/bot.py"],
            "nowhere/bot.py: no such file",
        ),
        (
            ["play", "happy_mochi", "--bot", RANDOM, "--bot", "nonexistent-prog"],
            "not found on PATH",
        ),
        (["replay", "verify", "no/such/file.json"], "no such file"),
    ],
)
def test_bad_input_gives_one_line_error_and_nonzero_exit(args: list[str], words: str) -> None:
    out = arena(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error:")
    assert words in lines[0]


def test_corrupt_replay_is_refused(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "arena-replay", "format_version": 1, "seed": "x"')
    out = arena("replay", "show", str(broken))
    assert out.returncode == 2
    assert "not a readable replay" in out.stderr


def test_play_without_a_seed_deals_from_128_secret_bits(tmp_path: Path) -> None:
    """No seed given: one drawn from `secrets` (recorded for the organiser in the replay), and
    a random match id, so nothing a bot is told is derived from a guessable number."""
    bots = ["--bot", f"{RANDOM}", "--bot", f"{RANDOM} --seed 1"]
    played = []
    for name in ("a.json", "b.json"):
        replay = tmp_path / name
        out = arena(
            "play", "happy_mochi", *bots, "--option", "max_rounds=1", "--replay", str(replay)
        )
        assert out.returncode == 0, out.stderr
        played.append(json.loads(replay.read_text()))
        assert arena("replay", "verify", str(replay)).returncode == 0
    assert all(2**64 < p["seed"] < 2**128 for p in played)  # fails with odds 2**-64 each
    assert played[0]["seed"] != played[1]["seed"] and played[0]["match"] != played[1]["match"]
    assert "it is not secret" in " ".join(arena("play", "--help").stdout.split())
    out = arena("play", "happy_mochi", *bots, "--seed", "7", "--replay", str(tmp_path / "c.json"))
    assert out.returncode == 0 and json.loads((tmp_path / "c.json").read_text())["seed"] == 7


def test_verify_names_the_engine_version_a_replay_needs(tmp_path: Path) -> None:
    """A replay of an older engine (which dealt differently) is not called a mismatch."""
    replay = tmp_path / "old.json"
    bots = ["--bot", f"{RANDOM}", "--bot", f"{RANDOM} --seed 1"]
    out = arena("play", "happy_mochi", *bots, "--seed", "3", "--replay", str(replay))
    assert out.returncode == 0, out.stderr
    data = json.loads(replay.read_text())
    data["game"]["version"] = "1.0.0"
    replay.write_text(json.dumps(data))
    verified = arena("replay", "verify", str(replay))
    assert verified.returncode == 2
    assert verified.stderr.startswith(
        f"arena: error: {replay}: cannot verify it here: made by happy_mochi 1.0.0, and this "
        "Arena's happy_mochi is 2.0.0, which deals and plays differently"
    )
    assert "does not verify" not in verified.stderr and "an Arena whose happy_mochi is 1.0.0" in (
        verified.stderr
    )
