"""The private temporary folder of one match: bot sockets and logs (up to ``file_mb`` per seat).

Its name carries the pid of the process that made it (``arena-<pid>-...`` in the temporary
directory), so a referee killed before it could clean up leaves a folder that the next one to
start sweeps away, as ``cgroups.py`` sweeps the cgroups of dead referees.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
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


@functools.cache
def _swept_once(base: str) -> None:
    sweep(Path(base))


@contextlib.contextmanager
def match_directory() -> Iterator[Path]:
    """A fresh folder private to this process's user, removed afterwards (dead ones swept)."""
    _swept_once(tempfile.gettempdir())
    with tempfile.TemporaryDirectory(prefix=f"{PREFIX}{os.getpid()}-") as folder:
        yield Path(folder)
