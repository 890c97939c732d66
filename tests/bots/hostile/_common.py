"""Shared by the hostile bots: report what an attack observed, then play like a random bot.

Each observation goes to stderr as one line ``ATTACK <name>: <outcome>`` (the outcome is
``ok ...`` when the attack worked, else the errno name), which tests read from the bot's log
or from the referee's ``log_tail``. Runs under any Python 3; ``protocol`` is only imported to
play, so the uid-level tests can use the system interpreter.
"""

from __future__ import annotations

import errno
import os
import random
import sys
from collections.abc import Callable
from typing import Any


def report(name: str, outcome: str) -> None:
    sys.stderr.write(f"ATTACK {name}: {outcome}\n")
    sys.stderr.flush()


def attempt(name: str, action: Callable[[], Any]) -> None:
    """Run ``action`` and report ``ok <result>`` or the errno name it failed with."""
    try:
        result = action()
    except OSError as exc:
        report(name, errno.errorcode.get(exc.errno or 0, type(exc).__name__))
    except Exception as exc:  # a hostile bot reports everything, it never stops early
        report(name, f"{type(exc).__name__}: {exc}")
    else:
        report(name, f"ok {result!r}"[:200])


def play_on() -> None:
    """Play the match randomly when run by a referee; just exit when launched directly."""
    if "ARENA_ENDPOINT" not in os.environ:
        return
    from protocol.bot import Bot, Turn, run

    class RandomBot(Bot):
        def choose(self, turn: Turn) -> int:
            return random.randrange(len(turn.options))

    run(RandomBot())
