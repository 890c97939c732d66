"""A real PostgreSQL server for the tests, from Debian's package (``scripts/install-system-deps``).

Each test session that asks for one gets its own cluster in a temporary folder, listening on a
free loopback port with trust authentication, and each test its own database in it. PostgreSQL
refuses to run as root, so as root (CI) the server runs as Debian's ``postgres`` user.
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg

BINARIES = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name))
READY_S = 60.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """One throwaway cluster: ``database()`` makes an empty database and gives its URL.
    The tests trade durability for speed (no fsync); ``durable`` keeps the server's defaults,
    for benchmarks whose figures must hold for a real installation."""

    def __init__(self, durable: bool = False) -> None:
        self.durable = durable
        if not BINARIES:
            raise FileNotFoundError("no PostgreSQL server (Debian's postgresql package)")
        self.bin = BINARIES[-1]
        self.folder = Path(tempfile.mkdtemp(prefix="postgres-"))
        self.folder.chmod(0o755)
        self.data = self.folder / "data"
        self.data.mkdir(mode=0o700)
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(self.data, "postgres")
            shutil.chown(self.folder, "postgres")
        self.port = _free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}"
        self.names = itertools.count()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> PostgresServer:
        subprocess.run(
            [*self.as_user, str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
             "--auth=trust", "-E", "UTF8", "--no-sync"],
            check=True, capture_output=True,
        )  # fmt: skip
        log = (self.folder / "server.log").open("wb")
        self.proc = subprocess.Popen(
            [*self.as_user, str(self.bin / "postgres"), "-D", str(self.data),
             "-c", "listen_addresses=127.0.0.1", "-p", str(self.port),
             "-c", f"unix_socket_directories={self.folder}",
             *([] if self.durable else ["-c", "fsync=off", "-c", "full_page_writes=off",
                                        "-c", "synchronous_commit=off"])],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + READY_S
        while True:
            try:
                psycopg.connect(f"{self.url}/postgres", connect_timeout=2).close()
                return self
            except psycopg.OperationalError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    tail = (self.folder / "server.log").read_text(errors="replace")[-2000:]
                    raise RuntimeError(f"PostgreSQL did not start:\n{tail}") from None
                time.sleep(0.1)

    def database(self, stem: str = "test") -> str:
        """A new empty database; its URL."""
        name = f"{stem}_{next(self.names)}"
        with psycopg.connect(f"{self.url}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"{self.url}/{name}"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)  # a fast shutdown: clients cut off
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)
