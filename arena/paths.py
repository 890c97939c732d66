"""Paths made from what authors send, and files read where a bot or a build could have written.

Two rules, each one function used everywhere:

* :func:`contained`: a path built under a root from parts (validated names, version numbers)
  is checked, once resolved through every link, to stay inside that root;
* :func:`open_beneath`: a file below a root that an author's archive, a build or a bot could
  have touched is opened without following any link on any component below the root, and
  only when it is a regular file. A link there is refused, whatever it points to, so the
  answer never tells whether a host file exists, and nothing is read from a device or a fifo.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import BinaryIO

NAME_MAX = 255  # bytes in one path component (Linux)


class PathError(ValueError):
    """A path that would leave its root, or a file that must not be read; the message says
    which path, relative to its root."""


def component(part: str) -> str:
    """``part`` when it is one plain path component (not empty, ``.`` or ``..``, no ``/`` or
    NUL, at most 255 bytes); PathError otherwise."""
    if part in ("", ".", "..") or "/" in part or "\0" in part:
        raise PathError(f"{part!r}: not a plain file or folder name")
    if len(os.fsencode(part)) > NAME_MAX:
        raise PathError(f"{part[:40]!r}...: a name over {NAME_MAX} bytes")
    return part


def is_inside(root: Path, path: Path) -> bool:
    """``path``, resolved through every link, is ``root`` (resolved) or below it."""
    top = os.path.realpath(root)
    resolved = os.path.realpath(path)
    return resolved == top or resolved.startswith(top.rstrip(os.sep) + os.sep)


def contained(root: Path, *parts: str) -> Path:
    """``root / part / ...``, each part one plain component and the whole, resolved, still
    inside ``root``; PathError otherwise."""
    path = root.joinpath(*(component(p) for p in parts))
    if not is_inside(root, path):
        raise PathError(f"{'/'.join(parts)}: leads outside {root}")
    return path


def escaping_link(root: Path, links: Iterable[str]) -> str | None:
    """The first of ``links`` (paths relative to ``root``) that, resolved through every other
    link, leads outside ``root``; None when all stay inside. Only links are resolved: no
    file is opened."""
    return next((rel for rel in links if not is_inside(root, root / rel)), None)


def open_beneath(root: Path, rel: str) -> BinaryIO:
    """The regular file ``root/rel`` opened for reading, no link followed below ``root``.

    FileNotFoundError when it is missing; PathError when a component is a link (or not a
    folder), or the file is not a regular one.
    """
    parts = PurePosixPath(rel).parts
    if not parts:
        raise PathError(f"{rel!r}: not a file name")
    for part in parts:
        component(part)
    folder = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
            inner = _open(part, flags, folder, rel)
            os.close(folder)
            folder = inner
        # O_NONBLOCK: opening a fifo must not wait for a writer (it is refused just below).
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = _open(parts[-1], flags, folder, rel)
    finally:
        os.close(folder)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise PathError(f"{rel}: not a regular file: refused")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _open(part: str, flags: int, folder: int, rel: str) -> int:
    try:
        return os.open(part, flags, dir_fd=folder)
    except FileNotFoundError:
        raise
    except OSError as exc:  # ELOOP, ENOTDIR: a link, or a file where a folder should be
        raise PathError(f"{rel}: a symbolic link or not a regular file: refused") from exc


def read_beneath(root: Path, rel: str, limit: int) -> bytes:
    """The bytes of ``root/rel`` as :func:`open_beneath` opens it; PathError when there are
    more than ``limit`` (nothing more is read)."""
    with open_beneath(root, rel) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise PathError(f"{rel}: over {_size(limit)}: refused")
    return data


def _size(limit: int) -> str:
    return f"{limit >> 10} KiB" if limit < 1 << 20 else f"{limit >> 20} MiB"
