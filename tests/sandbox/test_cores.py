"""Cores (``arena.sandbox.cores``): a worker pinned to a core starts its bots on that core, a
bot allowed more than one core on every core the worker could use before, and no confined bot
can move itself to other cores (where other matches play). Real bots at each level that runs
here, started from a real pinned process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena import sandbox
from arena.sandbox import cores

from .conftest import ROOT, need, python_for

# Pins itself to the core argv[1], then starts each bot argv[5:] ("script cpus") at level
# argv[2] and prints its log.
PINNED_WORKER = """\
import sys
from pathlib import Path
from arena import sandbox
from arena.sandbox import cores
core, level, python, folder = int(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
cores.pin(core)
for bot in sys.argv[5:]:
    script, cpus = bot.split()
    log = folder / f"{script}-{cpus}.log"
    proc = sandbox.launch(
        [python, script], cwd=folder, env=sandbox.bot_environment({}), log_path=log,
        limits=sandbox.SandboxLimits(cpus=int(cpus)), level=level,
    )
    try:
        proc.exited_within(30)
    finally:
        proc.kill()
    print(log.read_text().strip().replace("\\n", "; "))
"""
WHERE = "import os\nprint(*sorted(os.sched_getaffinity(0)))\n"


def test_workers_get_a_core_each_when_they_take_all_or_are_asked_to() -> None:
    assert cores.assign(3, (0, 1, 2)) == [0, 1, 2]
    assert cores.assign(2, (0, 1, 2)) == [None] * 2  # a core left over: the kernel's, unless
    assert cores.assign(2, (0, 1, 2), pin=True) == [0, 1]  # --pin
    assert cores.assign(4, (0, 1, 2), pin=True) == [None] * 4  # more workers than cores
    assert cores.assign(2, (5, 7), pin=False) == [None] * 2  # --no-pin
    assert cores.assign(1, (5, 7), pin=True) == [5]  # numbered as the machine numbers them


def _pinned_worker(level: str, core: int, folder: Path, *bots: str) -> list[str]:
    """The logs of ``bots`` ("script cpus") started by a process pinned to ``core``."""
    out = subprocess.run(
        [sys.executable, "-c", PINNED_WORKER, str(core), level, python_for(level), str(folder),
         *bots],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    ).stdout.splitlines()  # fmt: skip
    assert os.sched_getaffinity(0) == set(cores.usable())  # this process was left alone
    return out


@pytest.mark.parametrize("level", ["bwrap", "uid", "rlimits"])
def test_bots_run_on_their_workers_core_unless_allowed_more(level: str, bots: Path) -> None:
    need(level)
    usable = cores.usable()
    if len(usable) < 2:
        pytest.skip("one core here: nothing to pin apart")
    (bots / "where.py").write_text(WHERE)
    out = _pinned_worker(level, usable[-1], bots, "where.py 1", "where.py 2")
    assert out == [str(usable[-1]), " ".join(map(str, usable))], out


@pytest.mark.parametrize("level", ["bwrap", "uid"])
def test_a_confined_bot_cannot_move_to_other_cores(level: str, bots: Path) -> None:
    need(level)
    usable = cores.usable()
    if len(usable) < 2:
        pytest.skip("one core here: nothing to move to")
    [log] = _pinned_worker(level, usable[0], bots, "core_hop.py 1")
    assert log == f"ATTACK widen: EPERM; ATTACK cores: {usable[0]}", log


# Pins itself to the core argv[1], then plays a match between argv[2] (the hostile bot's
# command) and an honest random bot argv[3] on short clocks; prints each seat's status.
PINNED_MATCH = """\
import sys
from arena.games import load_game
from arena.match.bots import parse_bot
from arena.match.referee import play_match
from arena.match.results import Limits
from arena.sandbox import cores
cores.pin(int(sys.argv[1]))
bots = [parse_bot(f"hostile={sys.argv[2]}"), parse_bot(f"honest={sys.argv[3]}")]
limits = Limits(init_ms=20000, move_ms=200)
result = play_match(load_game("happy_mochi"), bots, seed=1, options={"max_rounds": 1},
                    limits=limits)
print(result.void, *(seat.status for seat in result.seats))
"""


def test_a_bot_burning_its_matchs_core_costs_the_other_seat_no_clock_time(bots: Path) -> None:
    """Seats of a pinned match share its core: a seat that burns it while the other thinks takes
    a share of it, and the other seat's clock does not charge it the waits (no timeout, no
    void)."""
    level = sandbox.probe().level
    python = python_for(level)
    if python != sys.executable:
        pytest.skip(f"at level {level}, Python bots need an interpreter bot uids can reach")
    out = subprocess.run(
        [sys.executable, "-c", PINNED_MATCH, str(cores.usable()[0]),
         f"{python} {bots}/cpu_burner.py", f"{python} {bots}/random_bot.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True,
    ).stdout.split()  # fmt: skip
    assert out == ["None", "ok", "ok"], out
