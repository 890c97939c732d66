"""A bot's files: which ones belong to it, copied without trusting them, and one content hash.

The hash covers every file's path, executable bit and bytes (and every symlink's target),
sorted by path, so the same tree hashes the same on any machine and any change of one byte,
one name or one mode makes another version. When a copy is made, the hash is computed from the
bytes as they are written into the copy: what is hashed is what is stored, even if the source
changes meanwhile.

Refused, with the path: symlinks that are absolute or lead out of the folder, devices, fifos
and sockets, and folders over the size or file-count limit. Skipped: version-control folders
and Python caches, which change without the bot changing.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena.paths import PathError, escaping_link, open_beneath
from arena.registry.manifest import MANIFEST, ManifestError, read_manifests

MAX_BYTES = 64 << 20
MAX_FILES = 2000
SKIPPED_DIRS = (".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".ruff_cache")
SKIPPED_SUFFIXES = (".pyc",)
_CHUNK = 1 << 16
LINK_OUT = (
    "symlink leads outside the bot folder through other links: refused (copy the file in instead)"
)


class ContentError(ValueError):
    """A bot folder that cannot be stored; the message names the path and what is wrong."""


@dataclass(frozen=True)
class Entry:
    """One file or symlink of a bot, relative to its folder."""

    path: str  # posix, relative
    kind: str  # "file" or "link"
    executable: bool
    digest: str  # sha256 of the bytes, or of the link's target


@dataclass(frozen=True)
class Snapshot:
    entries: tuple[Entry, ...]
    size: int

    def files(self) -> dict[str, str]:
        """Each path's own digest, to say which files differ between two snapshots."""
        return {e.path: e.digest for e in self.entries}

    def digest(self, salt: str = "") -> str:
        """The content hash of the tree (``salt``: what else defines the bot, its manifest)."""
        h = hashlib.sha256(salt.encode())
        for e in self.entries:
            h.update(f"\0{e.path}\0{e.kind}\0{int(e.executable)}\0{e.digest}".encode())
        return h.hexdigest()


def snapshot(
    folder: Path,
    patterns: tuple[str, ...] = (),
    dest: Path | None = None,
    max_bytes: int = MAX_BYTES,
    max_files: int = MAX_FILES,
) -> Snapshot:
    """Scan ``folder`` (only paths matching ``patterns`` when given), copying into ``dest``."""
    if not folder.is_dir():
        raise ContentError(f"{folder}: not a folder")
    entries: list[Entry] = []
    size = 0
    for rel in _walk(folder, patterns):
        source = folder / rel
        st = os.lstat(source)
        if stat.S_ISLNK(st.st_mode):
            entries.append(_link(folder, rel, dest))
        elif stat.S_ISREG(st.st_mode):
            size += st.st_size
            if size > max_bytes:
                raise ContentError(
                    f"{folder}: more than {max_bytes >> 20} MiB of files (at {rel}); a bot "
                    "folder holds its sources and what it needs to run, not build output "
                    "or data sets (raise the limit with --max-mb)"
                )
            entries.append(_file(folder, rel, dest, max_bytes))
        else:
            raise ContentError(f"{source}: not a regular file, folder or symlink: refused")
        if len(entries) > max_files:
            raise ContentError(
                f"{folder}: more than {max_files} files (raise the limit with --max-files)"
            )
    if not entries:
        raise ContentError(f"{folder}: no files to store")
    _links_stay_inside(dest or folder, [e.path for e in entries if e.kind == "link"], folder)
    return Snapshot(tuple(entries), size)


def _links_stay_inside(root: Path, links: list[str], shown: Path) -> None:
    """Each link, resolved through every other link, still inside ``root`` (the tree as written;
    messages name it as ``shown``, the folder submitted).

    ``_link`` checks a target's text; a chain can still climb out (``s -> .`` then
    ``a/b/t -> ../../s/../x`` reads as ``x`` but ``s/..`` is the folder above), so the tree as
    written is resolved for real.
    """
    rel = escaping_link(root, links)
    if rel is not None:
        raise ContentError(f"{shown / rel}: {LINK_OUT}")


def _walk(folder: Path, patterns: tuple[str, ...]) -> list[str]:
    """Relative posix paths of every file and symlink, sorted, folders not followed."""
    found = []
    for top, dirs, files in os.walk(folder, followlinks=False):
        base = PurePosixPath(Path(top).relative_to(folder).as_posix())
        kept = []
        for d in sorted(dirs):
            if (Path(top) / d).is_symlink():
                files.append(d)  # a symlink to a folder is an entry, never followed
            elif d not in SKIPPED_DIRS:
                kept.append(d)
        dirs[:] = kept
        for name in files:
            rel = (base / name).as_posix()
            if name.endswith(SKIPPED_SUFFIXES) or not _wanted(rel, patterns):
                continue
            found.append(rel)
    return sorted(found)


def _wanted(rel: str, patterns: tuple[str, ...]) -> bool:
    if not patterns:
        return True
    parts = PurePosixPath(rel).parts
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return any(fnmatch.fnmatchcase(p, pattern) for pattern in patterns for p in prefixes)


def _link(folder: Path, rel: str, dest: Path | None) -> Entry:
    target = os.readlink(folder / rel)
    inside = os.path.normpath(os.path.join(os.path.dirname(rel), target))
    if os.path.isabs(target) or inside == ".." or inside.startswith("../"):
        raise ContentError(
            f"{folder / rel}: symlink to {target} points outside the bot folder: refused "
            "(copy the file in instead)"
        )
    if dest is not None:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, dest / rel)
    return Entry(rel, "link", False, hashlib.sha256(target.encode()).hexdigest())


def _file(root: Path, rel: str, dest: Path | None, limit: int) -> Entry:
    """Hash (and copy) the regular file ``root/rel``, opened without following any link below
    ``root`` (one swapped in meanwhile included)."""
    h = hashlib.sha256()
    try:
        src = open_beneath(root, rel)
    except (PathError, FileNotFoundError):
        raise ContentError(f"{root / rel}: changed into something else while being read") from None
    with src:
        executable = bool(os.fstat(src.fileno()).st_mode & stat.S_IXUSR)
        out = None
        if dest is not None:
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            out = open(dest / rel, "xb")  # noqa: SIM115 (closed below)
        try:
            read = 0
            while chunk := src.read(_CHUNK):
                read += len(chunk)
                if read > limit:
                    raise ContentError(f"{root / rel}: grew over the size limit while being read")
                h.update(chunk)
                if out is not None:
                    out.write(chunk)
        finally:
            if out is not None:
                out.close()
    return Entry(rel, "file", executable, h.hexdigest())


def seal(folder: Path, executables: set[str] | None = None) -> None:
    """Make a stored tree read-only for everyone, readable by every bot uid: files 0444 (0555
    when executable), folders 0555, all owned by this process's user again (a build ran as a
    bot uid). ``executables``: the paths that are, else as they are."""
    if os.geteuid() == 0:
        for top, dirs, files in os.walk(folder):
            for name in [*dirs, *files]:
                os.lchown(os.path.join(top, name), os.getuid(), os.getgid())
        os.chown(folder, os.getuid(), os.getgid())
    for top, dirs, files in os.walk(folder, topdown=False):
        for name in files:
            path = Path(top) / name
            if path.is_symlink():
                continue
            rel = path.relative_to(folder).as_posix()
            run = rel in executables if executables is not None else os.access(path, os.X_OK)
            os.chmod(path, 0o555 if run else 0o444)
        for name in dirs:
            if not (Path(top) / name).is_symlink():
                os.chmod(Path(top) / name, 0o555)
    os.chmod(folder, 0o555)


def unseal(folder: Path) -> None:
    """Give the owner write access again (a build, or removing a failed submission)."""
    for top, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            path = Path(top) / name
            if not path.is_symlink():
                os.chmod(path, os.stat(path).st_mode | stat.S_IWUSR)
    os.chmod(folder, os.stat(folder).st_mode | stat.S_IWUSR)


def program_files(argv: list[str], cwd: Path) -> dict[str, str]:
    """What a bot command runs, file by file (path -> digest), to tell whether the program
    behind a name changed: the program when it is the author's file (not a system program or
    Arena's own Python), and the script it is given. A file whose folder has a manifest brings
    the files of the manifest's bot that runs it (all of them when it names none)."""
    found: dict[str, str] = {}
    candidates = [argv[0]] if "/" in argv[0] and argv[0] != sys.executable else []
    candidates += [a for a in argv[1:] if not a.startswith("-")][:1]
    for arg in candidates:
        path = Path(os.path.normpath(arg if os.path.isabs(arg) else cwd / arg))
        # Below the bot's folder (a build may have written there), no link is followed.
        root, rel = (
            (cwd, path.relative_to(cwd)) if path.is_relative_to(cwd) else (path.parent, path.name)
        )
        try:
            digest = _file(root, Path(rel).as_posix(), None, 1 << 62).digest
        except ContentError:  # missing, a link, or not a regular file: not a program file
            continue
        folder = path.parent
        patterns = _manifest_files(folder, path.name)
        if patterns is not None:
            try:
                shot = snapshot(folder, patterns)
            except ContentError:  # a manifest folder not storable: the file alone, then
                patterns = None
            else:
                found.update({_shown(folder / p, cwd): d for p, d in shot.files().items()})
        if patterns is None:
            found[_shown(path, cwd)] = digest
    return found


def _manifest_files(folder: Path, script: str) -> tuple[str, ...] | None:
    """The file patterns of the bot of ``folder``'s manifest that runs ``script`` (``()``:
    the whole folder), or None when there is no such manifest or bot."""
    if not (folder / MANIFEST).is_file():
        return None
    try:
        bots = read_manifests(folder)
    except ManifestError:
        return None
    runs = [b for b in bots if any(Path(a).name == script for a in b.run)]
    return runs[0].files if runs else None


def _shown(path: Path, cwd: Path) -> str:
    """``path`` relative to ``cwd`` when it is below it (as a ladder file names it)."""
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return path.as_posix()


def changes(before: dict[str, str], after: dict[str, str]) -> str:
    """``changed: a.py; added: b.py; removed: c.py`` between two ``program_files``."""
    parts = []
    for word, paths in (
        ("changed", [p for p in after if p in before and before[p] != after[p]]),
        ("added", [p for p in after if p not in before]),
        ("removed", [p for p in before if p not in after]),
    ):
        if paths:
            shown = ", ".join(sorted(paths)[:5]) + (" ..." if len(paths) > 5 else "")
            parts.append(f"{word}: {shown}")
    return "; ".join(parts)
