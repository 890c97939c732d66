"""The private temporary folder of one match: bot sockets and logs (up to ``file_mb`` per seat).

It is made on a tmpfs when there is one (``$XDG_RUNTIME_DIR``, else ``/dev/shm``): making and
removing it there costs a tenth of a millisecond, against a few on a loaded disk, once per
match. ``TMPDIR``, when set, is the organiser's choice and is used as it is. Without either the
folder goes to the temporary directory, and the process says so once on stderr.

Its name carries the pid of the process that made it (``arena-<pid>-...``), so a referee killed
before it could clean up leaves a folder that the next one to start sweeps away, as
``cgroups.py`` sweeps the cgroups of dead referees.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

PREFIX = "arena-"
_OWNED = re.compile(rf"^{PREFIX}(\d+)-")


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` still exists (whoever owns it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(folder: Path | None = None) -> list[Path]:
    """Remove the match folders of processes that are gone; the folders removed."""
    base = folder or Path(tempfile.gettempdir())
    removed = []
    for path in base.glob(f"{PREFIX}*"):
        owner = _OWNED.match(path.name)
        if owner and path.is_dir() and not pid_alive(int(owner.group(1))):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def filesystem(path: Path) -> str:
    """The type of the filesystem ``path`` is on (``tmpfs``, ``ext4``...; '' if unknown)."""
    real, best, kind = os.path.realpath(path), "", ""
    with open("/proc/self/mounts") as mounts:
        for line in mounts:
            fields = line.split()
            point = fields[1].replace("\\040", " ")
            inside = real == point or real.startswith(point.rstrip("/") + "/")
            if inside and len(point) >= len(best):
                best, kind = point, fields[2]
    return kind


def tmpfs_candidates() -> list[Path]:
    """Where a match folder may go in memory, in order of preference."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return [*([Path(runtime)] if runtime else []), Path("/dev/shm")]


@functools.cache
def match_base() -> Path:
    """Where this process makes its match folders (see the module's docstring)."""
    if os.environ.get("TMPDIR"):
        return Path(tempfile.gettempdir())
    for place in tmpfs_candidates():
        if place.is_dir() and os.access(place, os.W_OK | os.X_OK) and filesystem(place) == "tmpfs":
            return place
    disk = Path(tempfile.gettempdir())
    where = " or ".join(str(p) for p in tmpfs_candidates())
    print(
        f"arena: note: match folders are made in {disk}: no writable tmpfs at {where} "
        "(each match costs a few milliseconds more on disk)",
        file=sys.stderr,
    )
    return disk


@functools.cache
def _swept_once(base: Path) -> None:
    sweep(base)


@contextlib.contextmanager
def match_directory() -> Iterator[Path]:
    """A fresh folder private to this process's user, removed afterwards (dead ones swept)."""
    base = match_base()
    _swept_once(base)
    with tempfile.TemporaryDirectory(prefix=f"{PREFIX}{os.getpid()}-", dir=base) as folder:
        yield Path(folder)


class MatchFolder:
    """A match's private folder (:func:`match_directory`), made the first time it is asked
    for and removed at the end: a match whose bots are all kept processes needs none."""

    def __init__(self) -> None:
        self._made = contextlib.ExitStack()
        self._path: Path | None = None

    def __call__(self) -> Path:
        if self._path is None:
            self._path = self._made.enter_context(match_directory())
        return self._path

    def __enter__(self) -> MatchFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self._made.close()
