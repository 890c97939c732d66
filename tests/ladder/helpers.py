"""Tiny real ladders for the tests: short Happy Mochi matches between seeded random bots."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")
RANDOM = ROOT / "sample_bots" / "python" / "random_bot.py"
SHORT = {"max_rounds": 1, "max_turns_per_round": 10}


def toml_value(value: object) -> str:
    return json.dumps(value) if not isinstance(value, bool) else str(value).lower()


def write_ladder(
    folder: Path,
    bots: int = 3,
    seats: int = 2,
    rounds: int = 3,
    extra: str = "",
    own_bot_copy: bool = False,
) -> Path:
    """``folder/tiny.toml``: ``bots`` random bots, short matches; returns its path.

    With ``own_bot_copy`` the bots run a copy of random_bot.py inside ``folder``, so a test can
    find every bot process of this ladder by its command line.
    """
    folder.mkdir(parents=True, exist_ok=True)
    script = RANDOM
    if own_bot_copy:
        script = folder / "bots" / "random_bot.py"
        script.parent.mkdir(exist_ok=True)
        shutil.copy(RANDOM, script)
    lines = [
        'name = "tiny"',
        'game = "happy_mochi"',
        f"seats = {seats}",
        f"rounds = {rounds}",
        "seed = 7",
        extra,
        "[options]",
        *(f"{k} = {v}" for k, v in SHORT.items()),
    ]
    for i in range(1, bots + 1):
        command = f"python {script} --seed {i}"
        lines += ["[[bots]]", f'name = "r{i}"', f"command = {toml_value(command)}"]
    path = folder / "tiny.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def arena(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARENA, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def show_json(path: Path) -> dict:
    out = arena("ladder", "show", str(path), "--format", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def stored_count(db: Path) -> int:
    """Matches stored so far (0 while the database does not exist yet)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            return conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    except sqlite3.OperationalError:  # schema not created yet
        return 0
