"""The bubblewrap command line that gives a bot its own minimal view of the machine.

Run as root, bwrap needs no user namespace: it makes new pid, net, ipc, uts and (if possible)
cgroup namespaces and a fresh root holding only read-only binds of what the program needs
(the runtime and the directories of the bot's own folder its command names: ``paths.py``
decides and checks them), a private size-capped ``/tmp`` and the bot's own socket. The working
directory is bound only as part of those; else it is an empty directory, so a ladder's folder
(its database, other bots) stays out of view.
``setpriv`` then drops to the bot's uid with no capabilities before the bot starts.
Not root: bwrap's user namespace (``--unshare-all``) does the dropping.

Paths are bound at the same place as outside, so relative script paths, ``cwd`` and the ipc
endpoint in the environment mean the same thing inside.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from .paths import ETC_FILES, TOP_LINKS

SETPRIV = "/usr/bin/setpriv"
NOBODY = 65534  # the probe's throw-away sandbox needs no leased uid
CHECK_TRIES = 2  # test sandboxes the probe starts before it says bwrap does not work here
_NAMESPACES_AS_ROOT = (
    "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
)  # fmt: skip


def binary() -> str | None:
    return shutil.which("bwrap")


def check() -> str:
    """Empty if bwrap can start a program in the sandbox this module builds, else why not.
    A test sandbox that fails is tried once more: a process probes once for its whole life,
    and a moment's failure (a loaded machine) must not leave it without its strongest level."""
    exe = binary()
    if exe is None:
        return "bwrap: not installed"
    if os.geteuid() == 0 and not os.access(SETPRIV, os.X_OK):
        return f"bwrap: {SETPRIV} missing (util-linux), needed to drop to the bot's uid"
    argv = command(["/usr/bin/true"], cwd=Path("/"), binds=[], socket=None, uid=NOBODY)
    why = ""
    for _ in range(CHECK_TRIES):
        try:
            done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            why = f"bwrap: cannot run ({exc})"
            continue
        if done.returncode == 0:
            return ""
        first = done.stderr.decode(errors="replace").strip().splitlines() or ["no message"]
        why = f"bwrap: test sandbox failed ({first[0]})"
    return why


def _base() -> list[str]:
    """Namespaces, the top-level symlinks of a merged-/usr system, /usr, /etc bits, /proc, /dev."""
    args = [binary() or "bwrap", "--die-with-parent", "--new-session"]
    args += list(_NAMESPACES_AS_ROOT) if os.geteuid() == 0 else ["--unshare-all"]
    args += ["--ro-bind", "/usr", "/usr"]
    for name in TOP_LINKS:
        path = Path("/", name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--perms", "0755", "--dir", "/etc"]
    for name in ETC_FILES:
        if Path("/etc", name).exists():
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    # /proc/locks lists every file lock of the machine: another seat's locks among them.
    return [*args, "--proc", "/proc", "--ro-bind", "/dev/null", "/proc/locks", "--dev", "/dev"]


def _covered(path: Path, bound: Iterable[Path]) -> bool:
    return any(path == b or b in path.parents for b in bound)


class _Tree:
    """The sandbox's directory tree as bwrap arguments: every missing ancestor of a mount point
    is made 0755 first (bwrap would make it 0700, which the bot's uid could not traverse)."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self.made: set[Path] = {Path("/"), Path("/tmp"), Path("/etc"), Path("/usr")}
        self.bound: list[Path] = [Path("/usr")]

    def dir(self, path: Path, perms: str = "0755") -> None:
        for ancestor in [*reversed(path.parents), path]:
            if ancestor not in self.made and not _covered(ancestor, self.bound):
                self.args += ["--perms", perms if ancestor == path else "0755", "--dir"]
                self.args.append(str(ancestor))
                self.made.add(ancestor)

    def ro_bind(self, path: Path) -> None:
        if _covered(path, self.bound):
            return
        self.dir(path.parent)
        self.args += ["--ro-bind", str(path), str(path)]
        self.bound.append(path)


def command(
    argv: Sequence[str],
    *,
    cwd: Path,
    binds: Iterable[Path],
    socket: Path | None,
    uid: int,
    tmp_mb: int = 16,
    seccomp_fd: int | None = None,
    writable: Path | None = None,
) -> list[str]:
    """The full bwrap argv that runs ``argv`` in ``cwd`` as ``uid`` (ignored when not root).

    ``binds`` are shown read-only; ``socket`` (the bot's ipc socket file) is bound after the
    private /tmp is mounted, since the match directory usually lives under /tmp. ``writable``
    is the one folder bound read-write (a bot version's own folder while it is built).
    """
    args = _base()
    args += ["--size", str(tmp_mb << 20), "--perms", "1777", "--tmpfs", "/tmp"]
    tree = _Tree()
    if writable is not None:
        real = Path(os.path.realpath(writable))
        tree.dir(real.parent)
        tree.args += ["--bind", str(real), str(real)]
        tree.bound.append(real)
    for path in sorted({Path(os.path.realpath(b)) for b in binds}):
        tree.ro_bind(path)
    if socket is not None:
        tree.dir(socket.parent, perms="0711")
        tree.ro_bind(socket)
    tree.dir(cwd)
    args += tree.args
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args += ["--chdir", str(cwd), "--"]
    if os.geteuid() == 0:
        ids = [f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
        caps = ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
        args += [SETPRIV, *ids, *caps, "--"]
    return [*args, *argv]
