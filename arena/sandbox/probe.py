"""Which isolation layers work on this machine, and so which level bots run at.

Levels, strongest first (``docs/sandbox.md``): ``bwrap`` (bubblewrap + seccomp, plus a bot uid
and a cgroup as root), ``uid`` (a bot uid + seccomp, plus a cgroup; no namespaces) and
``rlimits`` (unsandboxed: development only). The probe runs once per process.

Strangers' code never runs unsandboxed by accident: the automatic choice is the strongest of the
*confining* levels, and when none works it refuses (``SandboxError``, saying why) instead of
falling to ``rlimits``, which must be asked for by name.
"""

from __future__ import annotations

import functools
import os
from dataclasses import asdict, dataclass
from typing import Any

from . import bwrap, cgroups, seccomp, uids

LEVELS = ("bwrap", "uid", "rlimits")
CONFINED = ("bwrap", "uid")  # the levels the automatic choice may pick
LEVEL_TITLES = {"bwrap": "bwrap", "uid": "uid", "rlimits": "rlimits (unsandboxed)"}
# The layers each level cannot do without; a cgroup is used at every level when it works.
_REQUIRED = {"bwrap": ("bwrap", "seccomp"), "uid": ("uid", "seccomp"), "rlimits": ()}
ENV_VAR = "ARENA_SANDBOX"


UNSANDBOXED = (
    "bots run UNSANDBOXED (sandbox level rlimits): as this user, able to read and change "
    "everything it can; use it only for bots you trust"
)


class SandboxError(ValueError):
    """A sandbox level was asked for that this machine cannot provide (or does not exist)."""


class HostError(RuntimeError):
    """This machine failed to start a bot: sandbox set-up, cgroup, uid lease, fork, or an
    interpreter the bot's uid cannot run. Never the bot's fault; the message says what to fix."""


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
    """``level``, else ``$ARENA_SANDBOX``, else the strongest confining level (``auto``);
    SandboxError if it is not available, or if no confining level is."""
    wanted = level or os.environ.get(ENV_VAR) or None
    found = probe()
    if wanted in (None, "auto"):
        for name in CONFINED:
            if found.levels[name].works:
                return name
        why = "; ".join(dict.fromkeys(found.levels[name].reason for name in CONFINED))
        raise SandboxError(
            f"no sandbox level that confines bots works here ({why}); fix that (see `arena "
            "sandbox probe`), or run bots unsandboxed only by asking for it: --sandbox rlimits, "
            'sandbox = "rlimits" in a ladder file or ARENA_SANDBOX=rlimits'
        )
    if wanted not in LEVELS:
        raise SandboxError(f"unknown sandbox level {wanted!r} (levels: {', '.join(LEVELS)})")
    if not found.levels[wanted].works:
        raise SandboxError(f"sandbox level {wanted!r} is not available here: "
                           f"{found.levels[wanted].reason}")  # fmt: skip
    return wanted
