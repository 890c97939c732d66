"""Fault rulings: which faults forfeit a seat, which are played through, and how exits read.

Every fault belongs to a class; the organiser's :class:`FaultPolicy` says per class whether it
**forfeits** the seat (the default) or is **substituted**: a seeded random legal choice is
played in its place and one strike is counted; a seat over ``max_strikes`` is forfeited. A
seat that never joined properly (no hello, wrong token or version), a bot that resigned, and
the faults against the referee itself (``flood``, ``too_many_connections``, ``match_timeout``:
codes in no class) are always forfeited: a substitute would only let the attack go on.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

FORFEIT = "forfeit"
SUBSTITUTE = "substitute"
ACTIONS = (FORFEIT, SUBSTITUTE)

# fault class -> the error codes in it
CLASSES: dict[str, tuple[str, ...]] = {
    "crash": ("crashed", "oom", "cpu_limit"),
    "timeout": ("timeout",),
    "bank_exhausted": ("bank_exhausted",),
    "illegal_action": ("illegal_action",),
    "protocol": ("malformed", "bad_field", "unknown_type", "too_large"),
}
_CLASS_OF = {code: name for name, codes in CLASSES.items() for code in codes}


@dataclass(frozen=True)
class FaultPolicy:
    """Per fault class, ``forfeit`` or ``substitute``; strikes allowed before a forfeit."""

    crash: str = FORFEIT
    timeout: str = FORFEIT
    bank_exhausted: str = FORFEIT
    illegal_action: str = FORFEIT
    protocol: str = FORFEIT
    max_strikes: int = 3

    def action(self, code: str) -> str:
        """What a fault with this error code leads to (codes outside the classes forfeit)."""
        name = _CLASS_OF.get(code)
        return FORFEIT if name is None else getattr(self, name)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def merged(self, overrides: Mapping[str, Any]) -> FaultPolicy:
        """A copy with ``overrides``; ValueError names an unknown key or a bad value."""
        for key, value in overrides.items():
            if key == "max_strikes":
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ValueError(f"max_strikes must be an integer >= 0, got {value!r}")
            elif key in CLASSES:
                if value not in ACTIONS:
                    raise ValueError(f"{key} must be one of {', '.join(ACTIONS)}, got {value!r}")
            else:
                known = ", ".join(f.name for f in fields(self))
                raise ValueError(f"unknown fault class {key!r} (known: {known})")
        return replace(self, **dict(overrides))


def signal_name(exit_code: int | None) -> str | None:
    """``SIGSEGV`` for a process killed by that signal (negative exit code), else None."""
    if exit_code is None or exit_code >= 0:
        return None
    try:
        return signal.Signals(-exit_code).name
    except ValueError:
        return f"signal {-exit_code}"


def exit_fault(
    exit_code: int | None, oom_killed: bool, when: str = "during the match"
) -> tuple[str, str]:
    """The error code and sentence for a bot process that ended ``when``."""
    if oom_killed:
        return "oom", "killed for going over its memory limit"
    name = signal_name(exit_code)
    if name == "SIGXCPU":
        return "cpu_limit", "killed for going over its CPU time limit"
    if name is not None:
        return "crashed", f"killed by {name}"
    if exit_code is None:
        return "crashed", "connection lost"
    return "crashed", f"exited with code {exit_code} {when}"
