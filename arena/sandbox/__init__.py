"""Starting bot processes at the strongest isolation level this machine allows.

``launch`` starts one bot; ``probe`` says which level is in force here and why stronger ones
are not; ``HostError`` is a failure of this machine, never of the bot. See ``docs/sandbox.md``
for the levels, the layers and what each one stops.
"""

from typing import Any

from .cgroups import Counters, Reading
from .limits import SandboxLimits
from .paths import BotPathError, check_command, runtime_path_problem
from .probe import (
    CONFINED,
    LEVELS,
    UNSANDBOXED,
    HostError,
    Layer,
    Probe,
    SandboxError,
    choose,
    probe,
)
from .process import (
    BotProcess,
    Usage,
    bot_environment,
    clean_output,
    interpreter_problem,
    kill_running,
    launch,
)
from .workdirs import MatchFolder, match_directory

__all__ = [
    "CONFINED",
    "LEVELS",
    "UNSANDBOXED",
    "BotPathError",
    "BotProcess",
    "Counters",
    "HostError",
    "Layer",
    "MatchFolder",
    "Probe",
    "Reading",
    "SandboxError",
    "SandboxLimits",
    "Usage",
    "bot_environment",
    "check_command",
    "choose",
    "clean_output",
    "interpreter_problem",
    "kill_running",
    "launch",
    "match_directory",
    "probe",
    "runtime_path_problem",
]


def __getattr__(name: str) -> Any:
    """``LEVEL``: the level bots start at by default here (probed on first use)."""
    if name == "LEVEL":
        return choose(None)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
