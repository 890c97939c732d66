"""Cores (``arena.sandbox.cores``): a worker pinned to a core starts its bots on that core, and a
bot allowed more than one core on every core the worker could use before; real bots at each
level that runs here, started from a real pinned process."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.sandbox import cores

from .conftest import ROOT, need, python_for

# Pins itself to the core argv[1], then starts a bot at level argv[2] allowed 1 core, then one
# allowed 2: each prints the cores it may run on.
PINNED_WORKER = """\
import sys
from pathlib import Path
from arena import sandbox
from arena.sandbox import cores
core, level, python, folder = int(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
cores.pin(core)
for cpus in (1, 2):
    log = folder / f"{cpus}.log"
    proc = sandbox.launch(
        [python, "where.py"], cwd=folder, env=sandbox.bot_environment({}), log_path=log,
        limits=sandbox.SandboxLimits(cpus=cpus), level=level,
    )
    try:
        proc.exited_within(30)
    finally:
        proc.kill()
    print(cpus, log.read_text().strip())
"""
WHERE = "import os\nprint(*sorted(os.sched_getaffinity(0)))\n"


def test_workers_get_a_core_each_when_they_take_all_or_are_asked_to() -> None:
    assert cores.assign(3, (0, 1, 2)) == [0, 1, 2]
    assert cores.assign(2, (0, 1, 2)) == [None] * 2  # a core left over: the kernel's, unless
    assert cores.assign(2, (0, 1, 2), pin=True) == [0, 1]  # --pin
    assert cores.assign(4, (0, 1, 2), pin=True) == [None] * 4  # more workers than cores
    assert cores.assign(2, (5, 7), pin=False) == [None] * 2  # --no-pin
    assert cores.assign(1, (5, 7), pin=True) == [5]  # numbered as the machine numbers them


@pytest.mark.parametrize("level", ["bwrap", "uid", "rlimits"])
def test_bots_run_on_their_workers_core_unless_allowed_more(level: str) -> None:
    need(level)
    usable = cores.usable()
    if len(usable) < 2:
        pytest.skip("one core here: nothing to pin apart")
    folder = Path(tempfile.mkdtemp(prefix="arena-cores-"))
    folder.chmod(0o755)  # bot uids must reach it at the uid level
    (folder / "where.py").write_text(WHERE)
    core = usable[-1]
    try:
        out = subprocess.run(
            [sys.executable, "-c", PINNED_WORKER, str(core), level, python_for(level), str(folder)],
            cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
        ).stdout.splitlines()  # fmt: skip
    finally:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
    allowed = " ".join(map(str, usable))
    assert out == [f"1 {core}", f"2 {allowed}"], out
    assert os.sched_getaffinity(0) == set(usable)  # the test's own process was left alone
