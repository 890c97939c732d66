"""Resource limits of one bot process, configurable per ladder and per bot, and the runtime
paths an organiser adds to every sandbox (they travel with the limits to every launch)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class SandboxLimits:
    """What one bot (with every process it starts) may use during one match.

    The defaults let Python, Node and a C++ binary start and play comfortably.
    """

    memory_mb: int = 1024  # cgroup memory limit (heap, tmpfs, page cache), not RLIMIT_AS
    processes: int = 128  # cgroup pids.max: threads and processes together
    cpu_s: int = 600  # RLIMIT_CPU: CPU seconds for the whole match
    cpus: int = 1  # cores it may keep busy at once (cgroup CPU quota)
    open_files: int = 256  # RLIMIT_NOFILE
    file_mb: int = 16  # RLIMIT_FSIZE: the largest file it may write, its log included
    tmp_mb: int = 64  # size of its private /tmp
    output_kb: int = 4  # how much of the tail of its stderr is kept in results
    # Absolute paths shown read-only to the bot beside the system's runtime (a JDK in /opt);
    # checked where the organiser names them (``runtime_paths`` of a ladder file).
    runtime_paths: tuple[str, ...] = ()

    def __post_init__(self) -> None:  # a list after a trip through JSON: kept hashable
        object.__setattr__(self, "runtime_paths", tuple(self.runtime_paths))

    def as_dict(self) -> dict[str, Any]:
        """Plain data, the same after a trip through JSON."""
        return asdict(self) | {"runtime_paths": list(self.runtime_paths)}

    def merged(self, overrides: Mapping[str, Any]) -> SandboxLimits:
        """A copy with ``overrides`` applied; ValueError names an unknown key or a bad value."""
        known = set(NUMBERS)
        for key, value in overrides.items():
            if key not in known:
                raise ValueError(f"unknown limit {key!r} (known: {', '.join(sorted(known))})")
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"limit {key!r} must be a positive integer, got {value!r}")
        return replace(self, **dict(overrides))


NUMBERS = tuple(f.name for f in fields(SandboxLimits) if f.name != "runtime_paths")
