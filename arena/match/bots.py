"""Bot specifications: a name and a command line, checked before any match starts.

A command whose program is ``python`` or ``python3``, or that starts with a ``.py`` file, runs
with the interpreter Arena itself runs under, so Python bots can ``import protocol`` without any
set-up. Any other program is looked up on ``PATH`` (or taken as a path when it contains ``/``).

A bot talks ZeroMQ (``zmq``, the default) or JSON lines on its stdin and stdout (``stdio``); on the
command line the transport is a prefix of the command: ``stdio:./my_bot.sh``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from arena.sandbox import SandboxLimits

BOT_NAME = re.compile(r"^[A-Za-z0-9_.@+-]{1,64}$")
_PYTHON_NAMES = ("python", "python3")
TRANSPORTS = ("zmq", "stdio")


class BotCommandError(ValueError):
    """A bot command that cannot be run (missing program, unreadable script, bad name)."""


@dataclass(frozen=True)
class BotSpec:
    name: str
    command: tuple[str, ...]
    cwd: Path | None = None
    transport: str = "zmq"
    limits: SandboxLimits | None = None  # None: the match's limits

    def argv(self) -> list[str]:
        """The command with Python bots mapped onto Arena's own interpreter."""
        argv = list(self.command)
        if argv[0] in _PYTHON_NAMES:
            argv[0] = sys.executable
        elif argv[0].endswith(".py"):
            argv.insert(0, sys.executable)
        return argv

    def check(self) -> None:
        """Raise BotCommandError if the program (or the Python script) cannot be run."""
        argv = self.argv()
        base = self.cwd or Path.cwd()
        program = argv[0]
        if "/" in program:
            path = Path(program) if os.path.isabs(program) else base / program
            if not path.is_file() or not os.access(path, os.X_OK):
                raise BotCommandError(f"bot {self.name!r}: {program} is not an executable file")
        elif shutil.which(program) is None:
            raise BotCommandError(f"bot {self.name!r}: program {program!r} not found on PATH")
        if program == sys.executable and len(argv) > 1 and not argv[1].startswith("-"):
            script = Path(argv[1]) if os.path.isabs(argv[1]) else base / argv[1]
            if not script.is_file() or not os.access(script, os.R_OK):
                raise BotCommandError(f"bot {self.name!r}: cannot read script {argv[1]}")


def parse_bot(text: str, cwd: Path | None = None) -> BotSpec:
    """``[NAME=][TRANSPORT:]CMD``; without a name, the script's or program's file stem is used."""
    name = ""
    head, sep, rest = text.partition("=")
    if sep and BOT_NAME.match(head.strip()):
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
        script = next((a for a in argv if a.endswith(".py")), argv[0])
        name = Path(script).stem
    if not BOT_NAME.match(name):
        raise BotCommandError(f"bot name {name!r} must be 1-64 letters, digits or _.@+-")
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
