"""What `arena play` prints after a match, and where it keeps its replays: real process, real
bots, real files."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cli import ROOT, arena

FAULTY = ROOT / "tests" / "bots" / "faulty"
RANDOM = f"python {ROOT}/sample_bots/python/random_bot.py"


def test_every_fault_prints_the_seats_stderr_and_where_its_record_is(tmp_path: Path) -> None:
    """Not only a crash: an illegal answer too (its bot's own log often says why)."""
    replay = tmp_path / "illegal.json"
    bots = ["--bot", f"python {FAULTY}/illegal_choice.py", "--bot", f"{RANDOM} --seed 1"]
    options = ["--option", "max_rounds=1", "--option", "first_seat=0"]
    out = arena("play", "happy_mochi", *bots, *options, "--replay", str(replay))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "seat 0 (illegal_choice) illegal_action: nothing on its stderr" in lines
    assert f"every seat's full record (incidents, stderr): arena replay show {replay}" in lines
    assert not any(line.startswith("seat 1 (") for line in lines)  # the clean seat: no log


def test_two_plays_of_one_seed_and_bots_keep_both_replays(tmp_path: Path) -> None:
    bots = ["--bot", RANDOM, "--bot", f"{RANDOM} --seed 1"]
    args = ("play", "happy_mochi", *bots, "--seed", "3", "--option", "max_rounds=1")
    runs = [arena(*args, cwd=tmp_path) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    said = [r.stdout.splitlines()[-1].removeprefix("replay: ") for r in runs]
    assert said[0] != said[1]
    files = sorted((tmp_path / "replays").iterdir())
    assert [f.relative_to(tmp_path) for f in files] == sorted(Path(s) for s in said)
