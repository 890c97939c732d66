"""Which isolation layers work on this machine, and so which level bots run at.

Levels, strongest first (``docs/sandbox.md``): ``bwrap`` (bubblewrap + seccomp, plus a bot uid
and a cgroup as root), ``uid`` (a bot uid + seccomp, plus a cgroup; no namespaces) and
``rlimits`` (unsandboxed: development only). The probe runs once per process.
"""

from __future__ import annotations

import functools
import os
from dataclasses import asdict, dataclass
from typing import Any

from . import bwrap, cgroups, seccomp, uids

LEVELS = ("bwrap", "uid", "rlimits")
LEVEL_TITLES = {"bwrap": "bwrap", "uid": "uid", "rlimits": "rlimits (unsandboxed)"}
# The layers each level cannot do without; a cgroup is used at every level when it works.
_REQUIRED = {"bwrap": ("bwrap", "seccomp"), "uid": ("uid", "seccomp"), "rlimits": ()}
ENV_VAR = "ARENA_SANDBOX"


class SandboxError(ValueError):
    """A sandbox level was asked for that this machine cannot provide (or does not exist)."""


@dataclass(frozen=True)
class Layer:
    name: str
    works: bool
    reason: str = ""  # why not, when it does not work


@dataclass(frozen=True)
class Probe:
    layers: dict[str, Layer]
    levels: dict[str, Layer]

    @property
    def level(self) -> str:
        """The strongest level that works here."""
        return next(name for name in LEVELS if self.levels[name].works)

    def has(self, layer: str) -> bool:
        return self.layers[layer].works

    def as_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "layers": {k: asdict(v) for k, v in self.layers.items()},
            "levels": {k: asdict(v) for k, v in self.levels.items()},
        }


@functools.cache
def probe() -> Probe:
    """Test each layer for real (bwrap runs a throw-away sandbox): about 10 ms, once."""
    checks = {"bwrap": bwrap.check, "uid": uids.check, "cgroup": cgroups.check}
    checks["seccomp"] = seccomp.check
    layers = {}
    for name, check in checks.items():
        reason = check()
        layers[name] = Layer(name, not reason, reason)
    levels = {}
    for name in LEVELS:
        required = _REQUIRED[name]
        if name == "bwrap" and os.geteuid() == 0:  # as root, only setpriv to a bot uid drops root
            required = (*required, "uid")
        missing = [layers[r].reason for r in required if not layers[r].works]
        levels[name] = Layer(LEVEL_TITLES[name], not missing, "; ".join(missing))
    return Probe(layers, levels)


def choose(level: str | None) -> str:
    """``level``, else ``$ARENA_SANDBOX``, else the strongest; SandboxError if not available."""
    wanted = level or os.environ.get(ENV_VAR) or None
    found = probe()
    if wanted is None:
        return found.level
    if wanted not in LEVELS:
        raise SandboxError(f"unknown sandbox level {wanted!r} (levels: {', '.join(LEVELS)})")
    if not found.levels[wanted].works:
        raise SandboxError(f"sandbox level {wanted!r} is not available here: "
                           f"{found.levels[wanted].reason}")  # fmt: skip
    return wanted
