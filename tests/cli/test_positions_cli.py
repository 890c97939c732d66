"""`arena rules`, `arena play --position` and `arena replay position`, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.cli.positions import RulesMissing, rules_text
from arena.games import load_game
from arena.games.base import PositionError
from arena.games.happy_mochi import HappyMochi
from arena.match.replay import read

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")
RANDOM = "python sample_bots/python/random_bot.py"
GAMES_WITH_RULES = ["happy_mochi", "mai_star", "motora", "mottainai"]


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARENA, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def refused(out: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a refused command (exit status 2)."""
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    lines = [line for line in out.stderr.splitlines() if not line.startswith("arena: warning:")]
    assert len(lines) == 1 and lines[0].startswith("arena: error: "), out.stderr
    return lines[0]


@pytest.mark.parametrize("game_id", GAMES_WITH_RULES)
def test_rules_prints_the_packaged_rules(game_id: str) -> None:
    out = arena("rules", game_id)
    assert out.returncode == 0, out.stderr
    packaged = ROOT / "arena" / "games" / game_id / "RULES.md"
    assert out.stdout == packaged.read_text(encoding="utf-8")
    assert out.stdout.startswith("# ")


def test_rules_of_an_unknown_game_and_of_a_game_without_rules() -> None:
    assert "unknown game 'chess'" in refused(arena("rules", "chess"))

    class Unruled(HappyMochi):  # defined in the tests package, which ships no RULES.md
        id = "unruled"

    with pytest.raises(RulesMissing, match=r"'unruled' ships no RULES\.md"):
        rules_text(Unruled())


SHORT = {
    "form": "short",
    "game": "happy_mochi",
    "seed": 5,
    "hands": [["blue 4", "blue 5", "pink 9"], ["yellow 0", "green 8"]],
    "T": ["pink 0"],
    "U": ["purple 1"],
    "draw": ["green 3", "green 2", "orange 6"],
    "totals": [12, 25],
    "round": 3,
    "round_scores": [[6, 10], [6, 15]],
    "round_winners": [None, 0],
}


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_play_from_a_position_records_it_and_verifies(tmp_path: Path) -> None:
    """The match starts where the short position says; the replay re-simulates from there."""
    position = write(tmp_path / "p.json", SHORT)
    replay = tmp_path / "m.json"
    bots = ["--bot", RANDOM, "--bot", f"{RANDOM} --seed 1"]
    out = arena(
        "play", "happy_mochi", *bots, "--position", str(position), "--replay", str(replay), "--json"
    )
    assert out.returncode == 0, out.stderr
    data = read(replay)
    assert data["position"] == load_game("happy_mochi").load(SHORT).position()
    assert data["outcome"]["details"]["round_scores"][:2] == [[6, 10], [6, 15]]
    assert data["events"][0]["event"]["type"] != "game_start"  # no new deal
    verified = arena("replay", "verify", str(replay))
    assert verified.returncode == 0, verified.stderr

    first = arena("replay", "position", str(replay), "--at", "1")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == data["position"]


def test_replay_position_continues_the_recorded_match(tmp_path: Path) -> None:
    """The position before decision N, replayed with the recorded answers from N on, ends the
    same way."""
    replay = tmp_path / "m.json"
    bots = ["--bot", RANDOM, "--bot", f"{RANDOM} --seed 1", "--bot", f"{RANDOM} --seed 2"]
    assert (
        arena("play", "happy_mochi", *bots, "--seed", "3", "--replay", str(replay)).returncode == 0
    )
    data = read(replay)
    at = len(data["decisions"]) // 2
    out = tmp_path / "at.json"
    written = arena("replay", "position", str(replay), "--at", str(at), "--out", str(out))
    assert written.returncode == 0, written.stderr
    game = load_game("happy_mochi")
    state = game.load(json.loads(out.read_text()))
    for record in data["decisions"][at - 1 :]:
        assert record["kind"] in {d.kind for d in state.pending() if d.seat == record["seat"]}
        state.act(record["seat"], record["choice"])
    assert json.loads(json.dumps(state.outcome().as_dict())) == data["outcome"]
    assert "must be 1.." in refused(arena("replay", "position", str(replay), "--at", "0"))


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"hands": [["blue 4", "teal 1"], ["yellow 0"]]}, "hands[0][1]: unknown card 'teal 1'"),
        ({"T": ["pink 0"], "U": ["pink 0"]}, "U[0]: card 0 is also in T[0]"),
        ({"active": 4}, "active: must be 0..1"),
    ],
)
def test_play_refuses_a_bad_position_naming_the_field(
    tmp_path: Path, change: dict[str, Any], words: str
) -> None:
    position = write(tmp_path / "bad.json", {**SHORT, **change})
    bots = ["--bot", RANDOM, "--bot", RANDOM]
    line = refused(arena("play", "happy_mochi", *bots, "--position", str(position)))
    assert f"{position}: {words}" in line


def test_play_refuses_a_position_for_other_seats_or_with_options(tmp_path: Path) -> None:
    position = write(tmp_path / "p.json", SHORT)
    three = ["--bot", RANDOM, "--bot", RANDOM, "--bot", RANDOM]
    assert "for 2 players, got 3" in refused(
        arena("play", "happy_mochi", *three, "--position", str(position))
    )
    two = three[:4]
    with_option = ["--position", str(position), "--option", "max_rounds=2"]
    assert "--option cannot be used" in refused(arena("play", "happy_mochi", *two, *with_option))
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    assert "not a JSON position" in refused(
        arena("play", "happy_mochi", *two, "--position", str(broken))
    )


MALFORMED = [
    ("[" * 100_000 + "]" * 100_000, "not a JSON position (nested too deeply)"),
    (json.dumps({**SHORT, "note": json.loads("[" * 40 + "]" * 40)}), "note: nested more than 32"),
    (json.dumps({**SHORT, "options": [1, 2]}), "options: must be a map of option names to values"),
    (json.dumps({**SHORT, "options": "max_rounds=2"}), "options: must be a map"),
]


@pytest.mark.parametrize(("text", "words"), MALFORMED)
def test_play_refuses_a_malformed_position_with_one_line(
    tmp_path: Path, text: str, words: str
) -> None:
    """Deep nesting, options that are not a map, values of the wrong type: one error line."""
    position = tmp_path / "bad.json"
    position.write_text(text, encoding="utf-8")
    bots = ["--bot", RANDOM, "--bot", RANDOM]
    line = refused(arena("play", "happy_mochi", *bots, "--position", str(position)))
    assert f"{position}: {words}" in line


def test_a_value_of_a_type_no_check_foresaw_is_a_position_error() -> None:
    """An engine that meets a list where it hashes a card: PositionError, not a TypeError."""
    game = load_game("mai_star")
    state = game.new(3, 1)
    position = state.position()
    position["deck"] = [[1]]
    with pytest.raises(PositionError, match=r"^position: malformed \(TypeError"):
        game.load(position)
