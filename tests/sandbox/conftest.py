"""Helpers for the sandbox tests: a private copy of the hostile bots, running one directly at a
level, reading what it reported, and finding processes left behind."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena import sandbox
from tests.procs import leftovers

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests/bots/hostile"
SYSTEM_PYTHON = "/usr/bin/python3"


def need(level: str) -> None:
    """Skip the test when ``level`` cannot run here, with the probe's reason."""
    found = sandbox.probe().levels[level]
    if not found.works:
        pytest.skip(f"sandbox level {level} not available: {found.reason}")


def python_for(level: str) -> str:
    """Arena's interpreter, except at ``uid`` level: there the bot's uid must be able to reach
    the interpreter, and one under a 0700 home directory is out of its reach."""
    if level != "uid" or _reachable_by_others(Path(sys.executable)):
        return sys.executable
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.skip(f"uid level: {sys.executable} is not reachable by bot uids, no {SYSTEM_PYTHON}")
    return SYSTEM_PYTHON


def _reachable_by_others(path: Path) -> bool:
    return all(p.stat().st_mode & 0o001 for p in Path(os.path.realpath(path)).parents)


@pytest.fixture
def bots() -> Iterator[Path]:
    """A copy of the hostile bots in a fresh world-traversable directory (bot uids must reach
    it at the uid level); its unique path also finds any process left behind."""
    folder = Path(tempfile.mkdtemp(prefix="arena-hostile-"))
    folder.chmod(0o755)
    for path in HOSTILE.glob("*.py"):
        shutil.copy(path, folder / path.name)
    shutil.copy(ROOT / "sample_bots/python/random_bot.py", folder / "random_bot.py")
    yield folder
    assert leftovers(str(folder)) == []
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def match_dir() -> Iterator[Path]:
    """Like the referee's: private to root, holding the logs (and sockets)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-match-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@dataclass
class Outcome:
    code: int | None  # None: still running at the deadline (then killed)
    log: str
    usage: sandbox.Usage
    level: str

    def attacks(self) -> dict[str, str]:
        """``ATTACK name: outcome`` lines of the log, by name (the last one wins)."""
        found = {}
        for line in self.log.splitlines():
            if line.startswith("ATTACK "):
                name, _, outcome = line[len("ATTACK ") :].partition(": ")
                found[name] = outcome
        return found


def run_bot(
    level: str,
    folder: Path,
    match: Path,
    script: str,
    *args: str,
    limits: sandbox.SandboxLimits | None = None,
    timeout: float = 10.0,
    env: dict[str, str] | None = None,
) -> Outcome:
    """Launch a hostile bot directly at ``level``, wait for it to exit (or ``timeout``), kill
    every process of it, and return what it reported."""
    need(level)
    argv = [python_for(level), str(folder / script), *args]
    log = match / f"{script}.log"
    proc = sandbox.launch(
        argv,
        cwd=folder,
        env=sandbox.bot_environment(env or {}),
        log_path=log,
        limits=limits,
        level=level,
    )
    try:
        code = proc.exited_within(timeout)
    finally:
        proc.kill()
    return Outcome(code, log.read_text(errors="replace"), proc.usage(), proc.level)
