"""Bot folders for registry tests, written as a bot author would: a manifest and a script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")
RANDOM_BOT = (ROOT / "sample_bots" / "python" / "random_bot.py").read_text()
ILLEGAL_BOT = """
from protocol.bot import Bot, Turn, run


class Illegal(Bot):
    def choose(self, turn: Turn) -> int:
        return len(turn.options) + 5


run(Illegal())
"""


def bot_folder(
    folder: Path, name: str = "alice", source: str = RANDOM_BOT, build: str | None = None
) -> Path:
    """A one-bot folder playing Happy Mochi: ``bot.py`` and its manifest."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(source)
    lines = [
        f'name = "{name}"',
        'language = "python"',
        'run = "python bot.py"',
        'games = ["happy_mochi"]',
    ]
    if build is not None:
        lines.append(f"build = '''{build}'''")  # a TOML literal string: no escapes
    (folder / "arena-bot.toml").write_text("\n".join(lines) + "\n")
    return folder


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """The real ``arena`` command."""
    return subprocess.run([ARENA, *args], cwd=cwd, capture_output=True, text=True, timeout=300)
