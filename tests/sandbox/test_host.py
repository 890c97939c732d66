"""Failures of this machine are never a bot's fault, and never run strangers' code unsandboxed.

Each test breaks the host for real (a Python bot uids cannot reach, a uid pool with every uid
taken, a cgroup tree remounted read-only, a seccomp library that does not load) and checks that
the match is void with a ``host:`` reason, no seat is ruled ``crashed``, and the probe and
``check-bot`` say what to fix.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import sandbox
from arena.sandbox import HostError, SandboxError, bwrap, cgroups, host, seccomp, workdirs
from tests.broken_hosts import ROOT, private_python, run_cli, taken_uids
from tests.procs import leftovers

from .conftest import need, run_bot

RANDOM = ROOT / "sample_bots/python/random_bot.py"


@pytest.fixture
def fresh_probe() -> Iterator[None]:
    """Probe again inside the test (its layers may be broken there), and again after it."""
    sandbox.probe.cache_clear()
    yield
    sandbox.probe.cache_clear()


@pytest.fixture(scope="module")
def unreachable_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return private_python(tmp_path_factory.mktemp("host"))


def confined_level() -> str:
    for level in sandbox.CONFINED:
        if sandbox.probe().levels[level].works:
            return level
    pytest.skip("no confining sandbox level works here")


def test_automatic_choice_never_falls_to_unsandboxed(
    fresh_probe: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_SANDBOX", raising=False)
    monkeypatch.setattr(seccomp, "check", lambda: "seccomp: libseccomp not loadable (simulated)")
    with pytest.raises(SandboxError) as refused:
        sandbox.choose(None)
    assert "no sandbox level that confines bots works here" in str(refused.value)
    assert "libseccomp not loadable" in str(refused.value)
    assert "--sandbox rlimits" in str(refused.value)
    assert sandbox.choose("rlimits") == "rlimits"  # only when asked for by name
    monkeypatch.setenv("ARENA_SANDBOX", "rlimits")
    assert sandbox.choose(None) == "rlimits"


# A bwrap that fails its first $FAILS runs (as bwrap does when it cannot make a namespace),
# then is the real one.
FLAKY_BWRAP = """#!/bin/sh
n=$(cat "$COUNT" 2>/dev/null || echo 0)
echo $((n + 1)) > "$COUNT"
if [ "$n" -lt "$FAILS" ]; then
    echo "bwrap: Creating new namespace failed: simulated" >&2
    exit 1
fi
exec {real} "$@"
"""


@pytest.mark.parametrize("fails", [1, 2])
def test_a_bwrap_that_fails_once_is_tried_again_before_the_probe_gives_it_up(
    fails: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_probe: None
) -> None:
    need("bwrap")
    real = bwrap.binary()
    fake = tmp_path / "bwrap"
    fake.write_text(FLAKY_BWRAP.format(real=real))
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.setenv("COUNT", str(tmp_path / "count"))
    monkeypatch.setenv("FAILS", str(fails))
    sandbox.probe.cache_clear()  # need() probed with the real one
    if fails == 1:  # a moment's failure: the level stays
        assert sandbox.probe().level == "bwrap"
    else:
        reason = "bwrap: test sandbox failed (bwrap: Creating new namespace failed: simulated)"
        assert sandbox.probe().layers["bwrap"].reason == reason
    assert (tmp_path / "count").read_text().strip() == "2"


def test_a_seccomp_library_that_does_not_load_stops_play_and_probe(tmp_path: Path) -> None:
    """A real broken layer in real processes: ``pyseccomp`` cannot be imported."""
    (tmp_path / "pyseccomp.py").write_text("raise ImportError('libseccomp.so.2: cannot open')\n")
    env = {"PYTHONPATH": str(tmp_path)}
    env.pop("ARENA_SANDBOX", None)
    probed = run_cli(Path(sys.executable), "sandbox", "probe", env=env)
    assert probed.returncode == 1
    assert probed.stdout.startswith("in force: none: no sandbox level that confines bots")
    bots = ["--bot", f"python {RANDOM}", "--bot", f"python {RANDOM}"]
    args = [
        "play",
        "happy_mochi",
        *bots,
        "--option",
        "max_rounds=1",
        "--replay",
        str(tmp_path / "r.json"),
    ]
    refused = run_cli(Path(sys.executable), *args, env=env)
    assert refused.returncode == 2, refused.stderr
    assert "no sandbox level that confines bots works here" in refused.stderr
    assert not (tmp_path / "r.json").exists()
    loud = run_cli(Path(sys.executable), *args, "--sandbox", "rlimits", env=env)
    assert loud.returncode == 0, loud.stderr
    assert "arena: warning: bots run UNSANDBOXED" in loud.stderr


def test_a_python_bot_uids_cannot_reach_voids_the_match(
    unreachable_python: Path, tmp_path: Path
) -> None:
    need("uid")
    bots = ["--bot", f"python {RANDOM}", "--bot", f"python {RANDOM} --seed 2"]
    args = ["play", "happy_mochi", *bots, "--sandbox", "uid", "--json"]
    out = run_cli(unreachable_python, *args, "--replay", str(tmp_path / "r.json"))
    assert out.returncode == 1
    private = str(unreachable_python.parents[2])
    assert f"match void: host: uid: a bot uid cannot run {unreachable_python}" in out.stderr
    hint = out.stderr.split("make ")[1]
    assert private in hint.split(" traversable by other users (chmod o+x)")[0]
    assert "crashed" not in out.stdout


def test_the_probe_runs_the_bots_python_as_a_bot_and_says_what_to_fix(
    unreachable_python: Path,
) -> None:
    level = confined_level()
    out = run_cli(unreachable_python, "sandbox", "probe")
    assert out.returncode == 1, out.stdout
    section = out.stdout.split("Arena's Python as a bot")[1]
    assert f"{level}" in section and "no:" in section, out.stdout
    if level == "uid" or sandbox.probe().levels["uid"].works:
        hint = out.stdout.split("make ")[1].split(" traversable by other users")[0]
        assert str(unreachable_python.parents[2]) in hint


def test_check_bot_does_not_blame_the_author_for_the_host(unreachable_python: Path) -> None:
    confined_level()
    out = run_cli(unreachable_python, "check-bot", "happy_mochi", "--bot", f"python {RANDOM}")
    assert out.returncode == 1
    assert "a problem of the host, not of the bot" in out.stdout
    assert out.stdout.count("\ngame ") == 1  # one host failure is enough to stop
    assert "check-bot: NOT CHECKED: this machine could not start the bots" in out.stdout
    assert "crashed" not in out.stdout and "FORFEITED" not in out.stdout


def test_a_uid_pool_with_no_free_uid_voids_the_match(tmp_path: Path) -> None:
    confined_level()
    if not sandbox.probe().has("uid"):
        pytest.skip("no bot uids here")
    with taken_uids(tmp_path) as env:
        script = (
            "from arena.games.happy_mochi import GAME\n"
            "from arena.match.bots import parse_bot\n"
            "from arena.match.referee import play_match\n"
            f"bots = [parse_bot('a=python {RANDOM}'), parse_bot('b=python {RANDOM}')]\n"
            "r = play_match(GAME, bots, 1, {'max_rounds': 1})\n"
            "print(r.void); print([s.status for s in r.seats])\n"
        )
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             env={**os.environ, **env}, timeout=120)  # fmt: skip
    void, statuses = out.stdout.splitlines()[-2:]
    assert void.startswith("host: ") and "no free bot uid in 40000-40999" in void, out.stdout
    assert statuses == "['ok', 'ok']"


READ_ONLY_CGROUPS = """
import ctypes, subprocess, sys
from arena import sandbox
from arena.games.happy_mochi import GAME
from arena.match.bots import parse_bot
from arena.match.referee import play_match
assert sandbox.probe().has("cgroup")  # the tree works when the referee starts ...
if ctypes.CDLL(None, use_errno=True).unshare(0x00020000) != 0:  # CLONE_NEWNS
    sys.exit(77)
subprocess.run(["mount", "--make-rprivate", "/"], check=True)
for line in open("/proc/self/mounts"):
    target, kind = line.split()[1:3]
    if kind in ("cgroup", "cgroup2"):  # ... and turns read-only under it
        subprocess.run(["mount", "-o", "remount,bind,ro", target], check=True)
bots = [parse_bot("a=python {random}"), parse_bot("b=python {random}")]
r = play_match(GAME, bots, 1, {{"max_rounds": 1}})
print(r.void); print([s.status for s in r.seats])
"""


def test_a_cgroup_tree_gone_read_only_voids_the_match() -> None:
    confined_level()
    if not sandbox.probe().has("cgroup") or os.geteuid() != 0:
        pytest.skip("needs root and a working cgroup tree")
    script = READ_ONLY_CGROUPS.format(random=RANDOM)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    if out.returncode == 77 or "mount:" in out.stderr:
        pytest.skip(f"cannot make a private mount namespace here: {out.stderr.strip()}")
    void, statuses = out.stdout.splitlines()[-2:]
    assert void.startswith("host: cgroup: Read-only file system"), out.stdout + out.stderr
    assert statuses == "['ok', 'ok']"


def test_start_failures_are_sorted_into_the_bots_and_the_hosts() -> None:
    missing = FileNotFoundError(errno.ENOENT, "No such file or directory", "/bots/x")
    assert host.start_failure(missing, "/bots/x", "uid") is missing
    assert isinstance(host.start_failure(OSError(errno.EAGAIN, "busy"), "/x", "uid"), HostError)
    denied = host.start_failure(PermissionError(errno.EACCES, "Permission denied"), "/x", "uid")
    assert isinstance(denied, HostError) and "a bot uid cannot run /x" in str(denied)


def test_dev_shm_is_closed_at_the_bwrap_level(bots: Path, match_dir: Path) -> None:
    before = set(Path("/dev/shm").glob("fill-*"))
    out = run_bot("bwrap", bots, match_dir, "memory_bomb.py", "shm")
    assert out.attacks()["shm"] == "Permission denied after 0 MiB", out.log
    assert set(Path("/dev/shm").glob("fill-*")) == before


def test_match_folders_of_dead_processes_are_swept(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    gone = tmp_path / f"{workdirs.PREFIX}{dead.pid}-abc"
    mine = tmp_path / f"{workdirs.PREFIX}{os.getpid()}-def"
    other = tmp_path / f"{workdirs.PREFIX}hostile-xyz"  # not a referee's: left alone
    for folder in (gone, mine, other):
        folder.mkdir()
        (folder / "seat0.log").write_text("log")
    assert workdirs.sweep(tmp_path) == [gone]
    assert mine.exists() and other.exists() and not gone.exists()


KILLED_REFEREE = """
from arena.games.happy_mochi import GAME
from arena.match.bots import parse_bot
from arena.match.referee import play_match
from arena.match.results import Limits
bot = parse_bot("slow=python {random} --seed 9191")
play_match(GAME, [bot, parse_bot("sleeper=sleep 60")], 1, {{"max_rounds": 1}},
           Limits(init_ms=60_000))
"""


def test_a_killed_referees_folder_is_swept_by_the_next_one() -> None:
    confined_level()
    base = Path(os.environ["TMPDIR"])
    before = set(base.glob(f"{workdirs.PREFIX}*"))
    referee = subprocess.Popen([sys.executable, "-c", KILLED_REFEREE.format(random=RANDOM)])
    try:
        for _ in range(600):
            left = set(base.glob(f"{workdirs.PREFIX}{referee.pid}-*"))
            if left and all((f / "seat1.log").exists() for f in left):
                break
            subprocess.run(["sleep", "0.05"], check=True)
    finally:
        referee.kill()
        referee.wait()
    assert left and all(f.exists() for f in left)  # killed: no chance to clean up
    workdirs._swept_once.cache_clear()
    with sandbox.match_directory():  # the first use in a process sweeps
        pass
    assert not any(f.exists() for f in left)
    assert set(base.glob(f"{workdirs.PREFIX}*")) <= before | left
    if sandbox.probe().has("cgroup"):  # and a bot that outlived it is killed with its cgroup
        cgroups._prepare_parents.cache_clear()
        cgroups._prepare_parents()
        assert leftovers("--seed 9191") == []
