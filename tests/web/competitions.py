"""Competitions for the server tests: a file in a temporary folder, bot folders and archives."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

from tests.registry.helpers import RANDOM_BOT, bot_folder

ROOT = Path(__file__).resolve().parents[2]
HOUSE = [
    ("house-greedy", "python sample_bots/python/mochi_greedy.py"),
    ("house-random", "python sample_bots/python/random_bot.py --seed 1"),
    ("house-random-2", "python sample_bots/python/random_bot.py --seed 2"),
]


def write_competition(
    folder: Path, house: int = 2, rounds: int = 1, seats: int = 3, follow: bool = False,
    slow: bool = False, database: str | None = None, **server: int | str,
) -> Path:  # fmt: skip
    """A Happy Mochi competition with ``house`` house bots and short games (a following one
    with ``follow``); ``server`` overrides keys of its ``[server]`` table. ``database``: a
    PostgreSQL URL, or None for the default SQLite file.

    ``slow`` makes each match last long enough to be killed in the middle of a run: longer
    games, and fresh bot processes (reused ones play a short game in a few milliseconds).
    """
    folder.mkdir(parents=True, exist_ok=True)
    settings = {"upload_mb": 1, "expanded_mb": 1, "max_files": 50, "uploads_per_hour": 20,
                "workers": 2, "check_games": 1, "poll_s": 1, "page_poll_s": 1} | server  # fmt: skip
    lines = [
        'name = "test-open"',
        'game = "happy_mochi"',
        f"seats = {seats}",
        f"rounds = {rounds}",
        "seed = 11",
        f'root = "{ROOT}"',
        "replays = true",
        f"reuse = {'false' if slow else 'true'}",
        *([f'database = "{database}"'] if database else []),
        "[options]",
        f"max_rounds = {20 if slow else 1}",
        "[limits]",
        "move_ms = 5000",
    ]
    for name, command in HOUSE[:house]:
        lines += ["[[bots]]", f'name = "{name}"', f'command = "{command}"']
    if follow:
        lines += ["[follow]", "placement = 1", "poll_s = 0.2"]
    lines.append("[server]")
    lines += [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
    path = folder / "test-open.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def author_token(path: Path, author: str) -> str:
    """Create ``author`` in the competition of ``path`` (as ``arena serve --add-author``
    does); their token."""
    from arena.web.accounts import Accounts
    from arena.web.competition import load_competition

    accounts = Accounts(load_competition(path).server.accounts)
    try:
        return accounts.add_author(author)
    finally:
        accounts.close()


def chatty(secret: str) -> str:
    """A bot that plays the first option and writes ``secret`` to its stderr every turn."""
    return (
        "import sys\n"
        "from protocol.bot import Bot, Turn, run\n\n\n"
        "class Chatty(Bot):\n"
        "    def choose(self, turn: Turn) -> int:\n"
        f"        print({secret!r}, file=sys.stderr, flush=True)\n"
        "        return 0\n\n\n"
        "run(Chatty())\n"
    )


def bot_archive(folder: Path, name: str = "alice", source: str = RANDOM_BOT, **kw: str) -> bytes:
    """A bot folder as ``arena bot submit --server`` sends it."""
    from arena.web.client import pack

    return pack(bot_folder(folder, name, source, **kw))


def tar_gz(members: list[tarfile.TarInfo], data: dict[str, bytes] | None = None) -> bytes:
    """A tar.gz of hand-made members (any name, type or link)."""
    data = data or {}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info in members:
            body = data.get(info.name)
            if body is not None:
                info.size = len(body)
            tar.addfile(info, io.BytesIO(body) if body is not None else None)
    return buffer.getvalue()


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.mode = 0o644
    return info


def manifest(name: str = "alice") -> bytes:
    return (
        f'name = "{name}"\nlanguage = "python"\nrun = "python bot.py"\ngames = ["happy_mochi"]\n'
    ).encode()


def zip_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in files.items():
            archive.writestr(name, body)
    return buffer.getvalue()
