"""Resource limits of one bot process, configurable per ladder and per bot."""

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

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    def merged(self, overrides: Mapping[str, Any]) -> SandboxLimits:
        """A copy with ``overrides`` applied; ValueError names an unknown key or a bad value."""
        known = {f.name for f in fields(self)}
        for key, value in overrides.items():
            if key not in known:
                raise ValueError(f"unknown limit {key!r} (known: {', '.join(sorted(known))})")
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"limit {key!r} must be a positive integer, got {value!r}")
        return replace(self, **dict(overrides))
