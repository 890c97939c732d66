"""Suite-wide: every process of a test session (referees, ladder runners and their workers) makes
its temporary folders in one private directory, which must hold no ``arena-*`` match folder when
the session ends: a referee cleans up after itself, and the folders of killed ones are swept as
production sweeps them (``arena.sandbox.workdirs``)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.sandbox import workdirs
from tests.postgres import PostgresServer


@pytest.fixture(scope="session", autouse=True)
def private_tmpdir() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="pytest-arena-tmp-"))
    folder.chmod(0o711)  # bot uids traverse it to reach their sockets, never list it
    before = (os.environ.get("TMPDIR"), tempfile.tempdir)
    os.environ["TMPDIR"], tempfile.tempdir = str(folder), None
    try:
        yield folder
        workdirs.sweep(folder)
        left = sorted(p.name for p in folder.glob(f"{workdirs.PREFIX}*"))
        assert left == [], f"match folders left behind by live processes: {left}"
    finally:
        if before[0] is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before[0]
        tempfile.tempdir = before[1]
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server(private_tmpdir: Path) -> Iterator[PostgresServer]:
    """One PostgreSQL server for this test process, started when a test first needs it."""
    try:
        server = PostgresServer()
    except FileNotFoundError as exc:
        pytest.skip(f"{exc}: scripts/install-system-deps installs it (needs root and apt-get)")
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A new empty PostgreSQL database of its own for one test."""
    return postgres_server.database()
