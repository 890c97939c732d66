"""Real broken set-ups for the host-failure tests: an interpreter in a directory bot uids cannot
enter, a uid pool with every uid taken, and a subprocess whose cgroup tree turns read-only."""

from __future__ import annotations

import fcntl
import os
import site
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.sandbox import uids

ROOT = Path(__file__).resolve().parents[1]


def private_python(folder: Path) -> Path:
    """A venv inside a 0700 directory (like one under root's home) that imports Arena: the
    referee runs it, no bot uid can. Returns its ``python``."""
    private = folder / "private"
    private.mkdir(mode=0o700)
    venv = private / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    packages = next(venv.glob("lib/python3*/site-packages"))
    ours = next(p for p in site.getsitepackages() if Path(p, "zmq").exists())
    (packages / "arena_host.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    return venv / "bin" / "python"


def run_cli(
    python: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` run by ``python``."""
    argv = [str(python), "-c", "from arena.cli.main import app; app()", *args]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})  # fmt: skip


@contextmanager
def taken_uids(folder: Path, only_workers: bool = False) -> Iterator[dict[str, str]]:
    """A uid lock directory with every bot uid locked by this process; yields the environment
    that makes Arena processes lease from it (through ``sitecustomize`` in ``folder``): every
    process, or with ``only_workers`` only a ladder's worker processes (``spawn`` children)."""
    locks = folder / "uids"
    locks.mkdir()
    fds = []
    try:
        for uid in range(uids.FIRST_UID, uids.LAST_UID + 1):
            fd = os.open(locks / str(uid), os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fds.append(fd)
        hook = folder / "hook"
        hook.mkdir()
        (hook / "sitecustomize.py").write_text(
            textwrap.dedent(f"""\
            import sys
            from pathlib import Path
            if not {only_workers} or "--multiprocessing-fork" in sys.argv:
                from arena.sandbox import uids
                uids.LOCK_DIR = Path({str(locks)!r})
            """)
        )
        yield {"PYTHONPATH": str(hook)}
    finally:
        for fd in fds:
            os.close(fd)
