"""Unpacking an uploaded bot archive (tar.gz or zip) without trusting a byte of it.

Every member is checked before anything is written: a relative path with no ``..`` part made
of printable names of at most 255 bytes, a regular file or folder (a symlink only when
relative and leading inside the archive; no hard links, devices, fifos or sockets), at most
``max_files`` members and ``max_bytes`` in all as declared. While writing, each file's bytes
are counted again, so an archive that lies about a size (a zip bomb) stops at the limit. Once
written, and before any file of it is read, every link is resolved through the others: a
chain whose every link reads as inside (``l -> .``, ``m -> l/..``) but climbs out is refused.
The archive's own top folder (``./``, as ``tar -czf - .`` writes it) is skipped. Any refusal
is an :class:`ArchiveError` naming the member.
"""

from __future__ import annotations

import io
import os
import posixpath
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from arena.paths import NAME_MAX, escaping_link
from arena.registry.content import LINK_OUT

_CHUNK = 1 << 16
MAX_PATH = 1024  # bytes of a member's path or a link's target


class ArchiveError(ValueError):
    """An archive refused; the message names the member and what is wrong."""


@dataclass(frozen=True)
class Member:
    path: str
    kind: str  # "file", "dir" or "link"
    size: int
    mode: int
    target: str = ""  # a link's target


def unpack(blob: bytes, dest: Path, max_bytes: int, max_files: int) -> Path:
    """Unpack ``blob`` into the empty folder ``dest``; the bot's folder (``dest``, or its single
    top-level folder when the archive wraps everything in one)."""
    if blob[:2] == b"\x1f\x8b":
        with _open_tar(blob) as tar:
            infos = _tar_members(tar, max_bytes, max_files)
            members = _checked([_tar_member(m) for m in infos], max_bytes, max_files)
            for m in members:
                _write(dest, m, lambda m=m: tar.extractfile(m.path), max_bytes)
    elif blob[:4] == b"PK\x03\x04":
        with _open_zip(blob) as archive:
            entries = archive.infolist()
            if len(entries) > max_files:
                raise ArchiveError(f"more than {max_files} members (the limit)")
            members = _checked([_zip_member(i) for i in entries], max_bytes, max_files)
            for m in members:
                _write(dest, m, lambda m=m: archive.open(m.path), max_bytes)
    else:
        raise ArchiveError("not a tar.gz or zip archive")
    escaping = escaping_link(dest, [_safe_path(m.path) for m in members if m.kind == "link"])
    if escaping is not None:
        raise ArchiveError(f"{escaping}: {LINK_OUT}")
    top = list(dest.iterdir())
    if len(top) == 1 and top[0].is_dir() and not top[0].is_symlink():
        return top[0]
    return dest


def _open_tar(blob: bytes) -> tarfile.TarFile:
    try:
        return tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ArchiveError(f"not a readable tar.gz archive ({exc})") from None


def _open_zip(blob: bytes) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(blob))
    except (zipfile.BadZipFile, OSError) as exc:
        raise ArchiveError(f"not a readable zip archive ({exc})") from None


def _tar_members(tar: tarfile.TarFile, max_bytes: int, max_files: int) -> list[tarfile.TarInfo]:
    """The members, read header by header: reaching the next header decompresses the data
    before it, so the limits are checked before that (a gzip bomb stops at the limit)."""
    found = []
    total = 0
    try:
        for info in tar:
            found.append(info)
            total += info.size if info.isreg() else 0
            if len(found) > max_files:
                raise ArchiveError(f"more than {max_files} members (the limit)")
            if total > max_bytes:
                raise ArchiveError(
                    f"{_label(info.name)}: the files unpack to more than {max_bytes >> 20} MiB"
                )
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ArchiveError(f"not a readable tar.gz archive ({exc})") from None
    return found


def _tar_member(info: tarfile.TarInfo) -> Member:
    if info.isreg():
        kind = "file"
    elif info.isdir():
        kind = "dir"
    elif info.issym():
        kind = "link"
    elif info.islnk():
        raise ArchiveError(f"{_label(info.name)}: hard links are refused (store the file itself)")
    else:
        raise ArchiveError(f"{_label(info.name)}: a device, fifo or other special file is refused")
    return Member(info.name, kind, info.size if kind == "file" else 0, info.mode, info.linkname)


def _zip_member(info: zipfile.ZipInfo) -> Member:
    mode = info.external_attr >> 16
    if info.is_dir():
        return Member(info.filename, "dir", 0, 0o755)
    if stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # 0: no type recorded, a plain file
        what = "a symlink" if stat.S_ISLNK(mode) else "a device, fifo or other special file"
        raise ArchiveError(
            f"{_label(info.filename)}: {what} in a zip archive is refused (use tar.gz)"
        )
    return Member(info.filename, "file", info.file_size, mode or 0o644)


def _checked(members: list[Member], max_bytes: int, max_files: int) -> list[Member]:
    """The members to write (the archive's own top folder left out), once every path, link
    and the totals are known to be safe."""
    if len(members) > max_files:
        raise ArchiveError(f"more than {max_files} members (the limit)")
    total = 0
    seen: set[str] = set()
    kept = []
    for m in members:
        if m.kind == "dir" and _is_top(m.path):
            continue
        path = _safe_path(m.path)
        if path in seen:
            raise ArchiveError(f"{_label(m.path)}: stored twice")
        seen.add(path)
        if m.kind == "link":
            _check_target(m)
        total += m.size
        if total > max_bytes:
            raise ArchiveError(
                f"{_label(m.path)}: the files unpack to more than {max_bytes >> 20} MiB"
            )
        kept.append(m)
    return sorted(kept, key=lambda m: m.path)


def _is_top(name: str) -> bool:
    """``.`` or ``./``: the folder the archive was made from, which is ``dest`` itself."""
    return name != "" and all(p in ("", ".") for p in name.split("/"))


def _check_target(m: Member) -> None:
    target = m.target
    _plain_text(target, m.path, "its target")
    if len(target.encode()) > MAX_PATH or not target:
        raise ArchiveError(f"{_label(m.path)}: a symlink target empty or over {MAX_PATH} bytes")
    path = _safe_path(m.path)
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    if target.startswith("/") or joined == ".." or joined.startswith("../"):
        raise ArchiveError(f"{_label(m.path)}: a symlink leading out of the bot ({target})")


def _safe_path(name: str) -> str:
    """``name`` as a clean relative path; ArchiveError for absolute paths, ``..`` parts, names
    that are not printable text or over 255 bytes, and paths over 1024 bytes."""
    if not name or "\\" in name:
        raise ArchiveError(f"{_label(name)}: not a plain relative path")
    _plain_text(name, name, "its name")
    if name.startswith("/"):
        raise ArchiveError(f"{_label(name)}: an absolute path is refused")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ArchiveError(f"{_label(name)}: a path with '..' is refused")
    if not parts:
        raise ArchiveError(f"{name!r}: an empty path")
    if any(len(p.encode()) > NAME_MAX for p in parts):
        raise ArchiveError(f"{_label(name)}: a name over {NAME_MAX} bytes is refused")
    if len(name.encode()) > MAX_PATH:
        raise ArchiveError(f"{_label(name)}: a path over {MAX_PATH} bytes is refused")
    return "/".join(parts)


def _plain_text(text: str, name: str, what: str) -> None:
    """Refuse ``text`` (a member's name or target) unless it is printable UTF-8 text: a
    control character or undecodable bytes have no place in a bot's file names."""
    if not _is_plain(text):
        raise ArchiveError(f"{_label(name)}: {what} is not printable UTF-8 text: refused")


def _is_plain(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:  # a byte that was not UTF-8, kept as a surrogate
        return False
    return text.isprintable()


def _label(name: str) -> str:
    """A member's name as a message shows it: as is when short printable text, else quoted
    with escapes and cut (a message must always be printable and valid JSON text)."""
    if _is_plain(name) and len(name) <= 80:
        return name
    text = ascii(name)
    return text if len(text) <= 80 else f"{text[:80]}... ({len(name)} characters)"


def _write(dest: Path, m: Member, source: object, max_bytes: int) -> None:
    """Write one checked member under ``dest`` (parents made as folders, never followed)."""
    path = dest / _safe_path(m.path)
    for parent in reversed(path.relative_to(dest).parents[:-1]):
        folder = dest / parent
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            raise ArchiveError(f"{m.path}: its folder {parent} is not a folder")
        folder.mkdir(exist_ok=True)
    if m.kind == "dir":
        if not path.is_dir():
            path.mkdir()
        return
    if m.kind == "link":
        os.symlink(m.target, path)
        return
    assert callable(source)
    stream: IO[bytes] | None = source()
    assert stream is not None
    written = 0
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    mode = 0o755 if m.mode & 0o111 else 0o644
    with stream, os.fdopen(os.open(path, flags, mode), "wb") as out:
        try:
            while chunk := stream.read(_CHUNK):
                written += len(chunk)
                if written > m.size or written > max_bytes:
                    raise ArchiveError(f"{m.path}: holds more bytes than it declares")
                out.write(chunk)
        except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError) as exc:
            raise ArchiveError(f"{m.path}: cannot be read ({exc})") from None
