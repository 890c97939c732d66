"""Telling the host's failures from the bot's, and what an organiser should fix.

A bot that cannot start because of this machine (a cgroup tree that cannot be written, no free
bot uid, fork failing, an interpreter or library the bot's uid cannot reach) has done nothing
wrong: ``launch`` raises :class:`~arena.sandbox.probe.HostError` for those, and the referee voids
the match. Only a program that does not exist or is not a program stays the bot's own problem
(``OSError``), and the command line catches that before any match starts.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from .probe import HostError

# Errors of exec that say the bot's command is broken, not the machine.
_BOTS_OWN = (errno.ENOENT, errno.ENOTDIR, errno.ENOEXEC)
_MARK = "arena-sandbox: "  # how the launcher's child reports a failed set-up step


def unreachable(path: Path) -> list[str]:
    """Directories on ``path`` (and on what its symlinks point to) that other users cannot
    traverse: what keeps a bot uid from running a program the referee can run."""
    found: list[str] = []
    chain = [Path(os.path.abspath(path)), Path(os.path.realpath(path))]
    for target in chain:
        for folder in reversed(target.parents):
            try:
                mode = folder.stat().st_mode
            except OSError:
                continue
            if not mode & 0o001 and str(folder) not in found:
                found.append(str(folder))
    return found


def reachability_hint(program: str) -> str:
    """What to change so bot uids can run ``program``."""
    blocked = unreachable(Path(program))
    if blocked:
        return f"make {', '.join(blocked)} traversable by other users (chmod o+x), or move it"
    return "make it and its libraries readable and executable by other users (chmod -R a+rX)"


def start_failure(exc: OSError, program: str, level: str) -> OSError | HostError:
    """The error ``launch`` raises when starting ``program`` failed with ``exc``."""
    if exc.errno in _BOTS_OWN and level != "bwrap":
        return exc  # the bot's program or directory does not exist, or is not a program
    if exc.errno in (errno.EACCES, errno.EPERM):
        why = f"a bot uid cannot run {program} ({exc.strerror})"
        return HostError(f"{level}: {why}: {reachability_hint(program)}")
    if exc.errno in (errno.EAGAIN, errno.ENOMEM, errno.EMFILE, errno.ENFILE):
        return HostError(f"{level}: cannot start a bot process ({exc.strerror}): this machine is "
                         "out of processes, memory or file descriptors")  # fmt: skip
    return HostError(f"{level}: cannot start {program}: {exc}")


def setup_failure(step: str, exc: BaseException) -> HostError:
    """A failure of the sandbox's own set-up before the bot's program ran."""
    detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    where = f" ({exc.filename})" if isinstance(exc, OSError) and exc.filename else ""
    fixes = {
        "cgroup": "is the cgroup tree writable? (see `arena sandbox probe`)",
        "uid": "are too many bots running, or is the uid lock directory writable?",
        "seccomp": "is libseccomp installed? (see `arena sandbox probe`)",
    }
    fix = fixes.get(step.split()[0], "see `arena sandbox probe`")
    return HostError(f"{step}: {detail}{where}; {fix}")


def child_report(log_path: Path) -> str:
    """The failed step the launcher's child wrote to the log before the program ran."""
    try:
        first = log_path.read_text(errors="replace").splitlines()[:1]
    except OSError:
        return "unknown step"
    return first[0][len(_MARK) :] if first and first[0].startswith(_MARK) else "unknown step"


def report_in_child(step: str, exc: BaseException) -> None:
    """In the child between fork and exec: say on the log which step failed, and why."""
    os.write(2, f"{_MARK}{step}: {exc}\n".encode(errors="replace"))
