"""Ladder files: every mistake is one clear line naming file and key, exit 2, database untouched."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from arena.ladder.config import CLOCK_KEYS, SANDBOX_KEYS, TOP_KEYS, LadderConfigError, load_ladder

from .helpers import RANDOM, ROOT, arena

BASE = f"""name = "bad"
game = "happy_mochi"
seats = 2
[options]
max_rounds = 1
[[bots]]
name = "r1"
command = "python {RANDOM} --seed 1"
[[bots]]
name = "r2"
command = "python {RANDOM} --seed 2"
[[bots]]
name = "r3"
command = "python {RANDOM} --seed 3"
"""


def top(line: str) -> Callable[[str], str]:
    return lambda text: f"{line}\n{text}"


def swap(old: str, new: str) -> Callable[[str], str]:
    return lambda text: text.replace(old, new, 1)


CASES = [
    ("not toml", swap("seats = 2", "seats = = 2"), ": not valid TOML:"),
    ("unknown key", top('colour = "red"'), ": colour: unknown key (expected one of: name,"),
    ("unknown nested key", lambda t: t + "[limits]\nfoo = 1\n", ": limits.foo: unknown key"),
    ("unknown bot key", swap('name = "r2"', 'name = "r2"\nsize = 1'), ": bots[1].size: unknown"),
    (
        "wrong type",
        swap(f'command = "python {RANDOM} --seed 3"', "command = 3"),
        ": bots[2].command: expected a string or an array of strings, got 3",
    ),
    ("wrong type seats", swap("seats = 2", 'seats = "2"'), ": seats: expected an integer, got '2'"),
    ("missing game", swap('game = "happy_mochi"', ""), ": game: missing: expected a string"),
    ("unknown game", swap("happy_mochi", "chess"), ": game: unknown game 'chess' (known games:"),
    (
        "unknown option",
        swap("max_rounds = 1", "colour = 1"),
        ": options.colour: game 'happy_mochi' has no option 'colour'",
    ),
    (
        "bad option value",
        swap("max_rounds = 1", "max_rounds = 0"),
        ": options: option 'max_rounds' must be at least 1, got 0",
    ),
    (
        "seat count",
        swap("seats = 2", "seats = 7"),
        ": seats: happy_mochi takes 2 to 6 players, got 7",
    ),
    ("fewer bots than seats", swap("seats = 2", "seats = 4"), ": bots: 3 bots cannot fill 4 seats"),
    (
        "duplicate name",
        swap('name = "r2"', 'name = "r1"'),
        ": bots[1].name: 'r1' is already the name of bots[0]",
    ),
    (
        "bot cannot run",
        swap(f"{RANDOM} --seed 1", "no_such_bot.py"),
        ": bots[0].command: bot 'r1': no_such_bot.py: no such file",
    ),
    ("gauntlet", top('format = "gauntlet"'), ': candidate: missing: format = "gauntlet" needs'),
    ("bad format", top('format = "swiss"'), ": format: expected one of round-robin, gauntlet"),
    (
        "bad model",
        lambda t: t + '[rating]\nmodel = "elo"\n',
        ": rating.model: expected one of trueskill, openskill, got 'elo'",
    ),
    ("bad tau", lambda t: t + "[rating]\ntau = -1\n", ": rating.tau: expected a number at least 0"),
    (
        "no draws",
        lambda t: t + "[rating]\ndraw_probability = 0\n",
        ": rating.draw_probability: expected a number above 0 with TrueSkill, got 0",
    ),
    (
        "bad transport",
        swap('name = "r3"', 'name = "r3"\ntransport = "tcp"'),
        ": bots[2].transport: expected one of zmq, pipe, stdio, got 'tcp'",
    ),
    ("bad ladder transport", top('transport = "udp"'), ": transport: expected one of zmq, pipe,"),
    ("bad limit", lambda t: t + "[limits]\nmemory_mb = 0\n", ": limits.memory_mb: expected an"),
    (
        "bad bot limit",
        swap('name = "r3"', 'name = "r3"\nlimits = { disk_mb = 5 }'),
        ": bots[2].limits.disk_mb: unknown key (expected one of: memory_mb,",
    ),
    ("bad sandbox", top('sandbox = "docker"'), ": sandbox: expected auto or one of bwrap,"),
    (
        "bad fault action",
        lambda t: t + '[faults]\ntimeout = "ignore"\n',
        ": faults: timeout must be one of forfeit, substitute, got 'ignore'",
    ),
    (
        "unknown fault class",
        lambda t: t + "[faults]\nlateness = 1\n",
        ": faults: unknown fault class 'lateness'",
    ),
]


@pytest.mark.parametrize(
    ("transform", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_file_is_one_line_exit_2_and_database_untouched(
    transform: Callable[[str], str], message: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(transform(BASE))
    with pytest.raises(LadderConfigError) as caught:
        load_ladder(path)
    assert str(caught.value) == f"{path}{message}" or str(caught.value).startswith(
        f"{path}{message}"
    )


def test_cli_refuses_a_bad_file_before_touching_the_database(tmp_path: Path) -> None:
    database = tmp_path / "bad.db"
    database.write_bytes(b"not touched")
    for _, transform, message in (CASES[4], CASES[10], CASES[12]):
        path = tmp_path / "bad.toml"
        path.write_text(transform(BASE))
        out = arena("ladder", "run", str(path), "--quiet")
        assert out.returncode == 2
        assert out.stdout == ""
        lines = out.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"arena: error: {path}{message}")
        assert database.read_bytes() == b"not touched"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.db", "bad.toml"]


def test_reports_need_a_database(tmp_path: Path) -> None:
    path = tmp_path / "ok.toml"
    path.write_text(BASE)
    out = arena("ladder", "show", str(path))
    assert out.returncode == 2
    assert "no ladder database yet" in out.stderr
    assert not (tmp_path / "ok.db").exists()


def test_demo_file_paths_are_relative_to_the_file() -> None:
    cfg = load_ladder(ROOT / "ladders" / "demo.toml")
    assert cfg.database == ROOT / "ladders" / "demo.db"
    assert cfg.replays == ROOT / "ladders" / "demo.replays"
    assert {b.cwd for b in cfg.bots} == {ROOT}
    assert cfg.seats == 3 and "greedy" in cfg.bot_names
    assert cfg.rating.model == "trueskill" and cfg.rating.tau == 0


def test_defaults_and_explicit_keys(tmp_path: Path) -> None:
    text = BASE.replace('name = "bad"\n', "")
    (tmp_path / "sub").mkdir()
    extra = 'database = "data/x.db"\nreplays = "keep"\nrounds = 2\nseed = 5\n'
    path = tmp_path / "sub" / "plain.toml"
    path.write_text(extra + text + '[rating]\nmodel = "openskill"\n[limits]\nmove_ms = 50\n')
    cfg = load_ladder(path)
    assert cfg.name == "plain" and cfg.format == "round-robin"
    assert cfg.database == tmp_path / "sub" / "data" / "x.db"
    assert cfg.replays == tmp_path / "sub" / "keep"
    assert (cfg.rounds, cfg.seed, cfg.limits.move_ms, cfg.limits.bank_ms) == (2, 5, 50, 10_000)
    assert cfg.options["max_rounds"] == 1 and cfg.rating.model == "openskill"
    assert {b.cwd for b in cfg.bots} == {tmp_path / "sub"}


def test_sandbox_limits_fault_policy_and_transport(tmp_path: Path) -> None:
    text = BASE.replace(
        'name = "r3"', 'name = "r3"\ntransport = "stdio"\nlimits = { memory_mb = 2048 }'
    )
    extra = 'sandbox = "rlimits"\n'
    tables = '[limits]\nmove_ms = 50\nprocesses = 32\n[faults]\nillegal_action = "substitute"\n'
    path = tmp_path / "x.toml"
    path.write_text(extra + text + tables + "max_strikes = 2\n")
    cfg = load_ladder(path)
    assert cfg.sandbox == "rlimits"
    assert (cfg.limits.move_ms, cfg.sandbox_limits.processes) == (50, 32)
    assert cfg.sandbox_limits.memory_mb == 1024  # the default
    r1, _, r3 = cfg.bots
    assert (r1.transport, r1.limits) == ("zmq", None)
    assert r3.transport == "stdio"
    path.write_text('transport = "pipe"\n' + extra + text + tables)
    assert [b.transport for b in load_ladder(path).bots] == ["pipe", "pipe", "stdio"]
    assert r3.limits is not None and (r3.limits.memory_mb, r3.limits.processes) == (2048, 32)
    assert cfg.policy.illegal_action == "substitute" and cfg.policy.max_strikes == 2
    assert cfg.policy.crash == "forfeit"


def test_the_cpu_clock_with_its_wall_factor_and_a_wrong_clock_named(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_text(BASE + '[limits]\nclock = "cpu"\nwall_factor = 5\n')
    cfg = load_ladder(path)
    assert (cfg.limits.clock, cfg.limits.wall_factor) == ("cpu", 5)
    path.write_text(BASE)
    assert load_ladder(path).limits.clock == "wall"  # the default
    path.write_text(BASE + '[limits]\nclock = "cpu-time"\n')
    with pytest.raises(LadderConfigError) as caught:
        load_ladder(path)
    assert [p.removeprefix(f"{path}: ") for p in caught.value.problems] == [
        "limits.clock: expected one of wall, cpu, got 'cpu-time'",
    ]


def test_every_mistake_is_reported_with_the_nearest_key_or_name(tmp_path: Path) -> None:
    text = BASE.replace("seats = 2", 'seats = "2"').replace('name = "r2"', 'name = "r2"\nsize = 1')
    text = 'round = 3\nformat = "gauntlet"\ncandidate = "r11"\n' + text + "[limits]\nmove_s = 5\n"
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(LadderConfigError) as caught:
        load_ladder(path)
    assert [p.removeprefix(f"{path}: ") for p in caught.value.problems] == [
        "round: unknown key (did you mean 'rounds'?) (expected one of: "
        + ", ".join(TOP_KEYS)
        + ")",
        "seats: expected an integer, got '2'",
        "limits.move_s: unknown key (did you mean 'move_ms'?) (expected one of: "
        + ", ".join(CLOCK_KEYS + SANDBOX_KEYS)
        + ")",
        "bots[1].size: unknown key (expected one of: name, command, cwd, transport, limits, reuse)",
        "candidate: expected the name of a bot, got 'r11' (did you mean 'r1'?)",
    ]
    out = arena("ladder", "show", str(path))
    assert out.returncode == 2
    lines = out.stderr.splitlines()
    assert len(lines) == 5 and all(line.startswith(f"arena: error: {path}: ") for line in lines)


def test_a_typo_in_the_game_suggests_the_nearest(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(BASE.replace("happy_mochi", "happy_moch"))
    with pytest.raises(LadderConfigError, match=r"\(did you mean 'happy_mochi'\?\)$"):
        load_ladder(path)


def test_a_bot_without_a_name_takes_its_script_s(tmp_path: Path) -> None:
    (tmp_path / "mochi_bot.rb").write_text("# a Ruby bot\n")
    (tmp_path / "other.rb").write_text("# another\n")
    text = BASE.replace('name = "r1"\n', "").replace(
        f'command = "python {RANDOM} --seed 2"', 'command = "ruby mochi_bot.rb --seed 2"'
    )
    path = tmp_path / "x.toml"
    path.write_text(text)
    cfg = load_ladder(path, check_bots=False)
    assert cfg.bot_names == ("random_bot", "r2", "r3")
    path.write_text(text.replace('name = "r2"\n', ""))
    assert load_ladder(path, check_bots=False).bot_names == ("random_bot", "mochi_bot", "r3")
    path.write_text(text.replace('name = "r3"\n', ""))
    with pytest.raises(LadderConfigError, match=r"bots\[2\].name: 'random_bot' \(from its "):
        load_ladder(path, check_bots=False)
