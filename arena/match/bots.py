"""Bot specifications: a name and a command line, checked before any match starts.

A command whose program is ``python`` or ``python3``, or that starts with a ``.py`` file, runs
with the interpreter Arena itself runs under, so Python bots can ``import protocol`` without any
set-up. Any other program is looked up on ``PATH`` (or taken as a path when it contains ``/``).

A bot talks ZeroMQ (``zmq``, the default), length-prefixed msgpack on its stdin and stdout
(``pipe``: the lean local transport) or JSON lines on them (``stdio``); on the command line the
transport is a prefix of the command: ``pipe:./my_bot``, ``stdio:./my_bot.sh``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import stat
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from arena.names import RULE, is_ref, shown
from arena.sandbox import SandboxLimits

_PYTHON_NAMES = ("python", "python3")
TRANSPORTS = ("zmq", "pipe", "stdio")


class BotCommandError(ValueError):
    """A bot command that cannot be run (missing program, unreadable script, bad name)."""


@dataclass(frozen=True)
class BotSpec:
    name: str
    command: tuple[str, ...]
    cwd: Path | None = None
    transport: str = "zmq"
    limits: SandboxLimits | None = None  # None: the match's limits
    reuse: bool = True  # its process may be kept between matches if the bot offers (pool.py)

    def argv(self) -> list[str]:
        """The command with Python bots mapped onto Arena's own interpreter."""
        argv = list(self.command)
        if argv[0] in _PYTHON_NAMES:
            argv[0] = sys.executable
        elif argv[0].endswith(".py"):
            argv.insert(0, sys.executable)
        return argv

    def check(self, level: str | None = None) -> None:
        """Raise BotCommandError if the program (or its script) cannot be run; at the ``bwrap``
        and ``uid`` sandbox levels, started by root, the bot runs as another user, so its files
        must be readable by others."""
        argv = self.argv()
        base = self.cwd or Path.cwd()
        program = argv[0]
        files = []
        if "/" in program:
            path = Path(program) if os.path.isabs(program) else base / program
            if not path.exists():
                raise BotCommandError(f"bot {self.name!r}: {program}: no such file")
            if not path.is_file() or not os.access(path, os.X_OK):
                raise BotCommandError(
                    f"bot {self.name!r}: {program} is not an executable file (chmod +x {program})"
                )
            if program != sys.executable:  # Arena's own interpreter is not the author's file
                files.append(path)
        elif shutil.which(program) is None:
            raise BotCommandError(f"bot {self.name!r}: program {program!r} not found on PATH")
        if program == sys.executable and len(argv) > 1 and not argv[1].startswith("-"):
            script = Path(argv[1]) if os.path.isabs(argv[1]) else base / argv[1]
            if not script.exists():
                raise BotCommandError(f"bot {self.name!r}: {argv[1]}: no such file")
            if not script.is_file() or not os.access(script, os.R_OK):
                raise BotCommandError(f"bot {self.name!r}: cannot read script {argv[1]}")
        script_arg = _script_argument(argv, base)
        if script_arg is not None:
            files.append(script_arg)
        if level == "uid" or (level == "bwrap" and os.geteuid() == 0):
            for path in files:
                _check_readable_by_others(self.name, path, level)


def _script_argument(argv: list[str] | tuple[str, ...], base: Path) -> Path | None:
    """The bot's script: the first argument after the program that is not an option and names
    a file (as the sandbox decides what to show the bot)."""
    arg = next((a for a in argv[1:] if not a.startswith("-")), None)
    if arg is None:
        return None
    path = Path(arg) if os.path.isabs(arg) else base / arg
    return path if path.is_file() else None


def default_name(argv: list[str] | tuple[str, ...], cwd: Path | None = None) -> str:
    """The stem of the script an interpreter runs, whatever the interpreter (``ruby mochi_bot.rb``
    is ``mochi_bot``, ``java -jar bot.jar`` is ``bot``), else the program's own stem. A program
    given by its path (``./my_bot --config x.json``) is the bot itself: its arguments are not."""
    interpreted = "/" not in argv[0] and not argv[0].endswith(".py")
    for arg in argv[1:] if interpreted else ():
        if arg.startswith("-"):
            continue
        path = Path(arg)
        is_file = (path if path.is_absolute() else (cwd or Path.cwd()) / path).is_file()
        if is_file or re.fullmatch(r"[\w.@+/-]*\w\.[A-Za-z0-9]{1,5}", arg):
            return path.stem
        break
    return Path(argv[0]).stem


def _check_readable_by_others(name: str, path: Path, level: str) -> None:
    """Refuse a file the bot's own uid could not read: it, or a folder above it, shut to others."""
    path = path.resolve()
    folder = path.parent
    needs = [(path, stat.S_IROTH), (folder, stat.S_IXOTH)]
    if level == "uid":  # bwrap shows the folder alone; here every folder above must open
        needs += [(d, stat.S_IXOTH) for d in folder.parents]
    for target, bit in needs:
        if not target.stat().st_mode & bit:
            fix = f"chmod -R a+rX {folder}" if target in (path, folder) else f"chmod a+x {target}"
            raise BotCommandError(
                f"bot {name!r}: {target} is not readable by other users, and the {level} "
                f"sandbox runs the bot as another user: {fix}"
            )


def parse_bot(text: str, cwd: Path | None = None) -> BotSpec:
    """``[NAME=][TRANSPORT:]CMD``; without a name, the script's or program's file stem is used."""
    name = ""
    head, sep, rest = text.partition("=")
    if sep and re.fullmatch(r"[^\s/:'\"]+", head.strip()):  # one word: meant as a name
        name, text = head.strip(), rest
    transport = "zmq"
    head, sep, rest = text.strip().partition(":")
    if sep and head in TRANSPORTS:
        transport, text = head, rest
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise BotCommandError(f"bot command {text!r}: {exc}") from None
    if not argv:
        raise BotCommandError(f"bot {name or text!r} has an empty command")
    if not name:
        name = default_name(argv, cwd)
    if not is_ref(name):
        raise BotCommandError(f"bot name {shown(name)}: expected {RULE} (or NAME@VERSION)")
    return BotSpec(name, tuple(argv), cwd, transport)


def unique_names(specs: list[BotSpec]) -> list[BotSpec]:
    """Number repeated names apart: ``random_bot``, ``random_bot-2``, ..."""
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        seen[spec.name] = seen.get(spec.name, 0) + 1
        if seen[spec.name] > 1:
            spec = replace(spec, name=f"{spec.name}-{seen[spec.name]}")
        out.append(spec)
    return out
