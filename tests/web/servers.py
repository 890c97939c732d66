"""Real ``arena serve`` processes for the server tests: each started as its own process group on
a free port (the ``served`` fixture of ``conftest.py``), waited for, read as JSON, and killed
with its workers at the end."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.web.competitions import ROOT

ARENA = str(Path(sys.executable).parent / "arena")
Serve = Callable[..., tuple[subprocess.Popen, str]]  # (competition file, *arguments)


def until(
    check: Callable[[], Any], timeout: float = 240, what: str = "", pause: float = 0.5
) -> Any:
    """``check()``'s first true answer, asked every ``pause`` s; AssertionError after
    ``timeout`` s (a generous bound for a loaded machine, never a measure of speed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(pause)
    raise AssertionError(f"timed out waiting for {what}")


def settled(get: Callable[[str], Any], ref: str, timeout: float = 240) -> dict[str, Any]:
    """A version once its gate has spoken, polled as ``arena bot submit --server`` does;
    ``get(path)`` is the JSON of an author's GET (``/api/bots/NAME@N``, with its reports)."""
    from arena.registry.store import UNFINISHED

    return until(
        lambda: (v := get(f"/api/bots/{ref}"))["status"] not in UNFINISHED and v,
        timeout=timeout,
        what=f"{ref}'s gate",
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def closed(sock: socket.socket) -> bool:
    """Whether the server closed (or reset) a non-blocking connection of ours."""
    try:
        return sock.recv(1 << 16) == b""
    except BlockingIOError:
        return False
    except OSError:  # reset
        return True


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def post_archive(
    url: str, token: str, body: bytes, name: str | None = None
) -> tuple[int, dict[str, Any]]:
    """``POST /api/bots`` of ``body`` as ``token``'s author; the status and the JSON answer
    (an error's too: ``{"error": ...}``)."""
    query = "?" + urllib.parse.urlencode({"name": name}) if name is not None else ""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/gzip"}
    request = urllib.request.Request(f"{url}/api/bots{query}", body, headers)
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def uploaded(
    url: str, token: str, body: bytes, name: str | None = None
) -> tuple[int, dict[str, Any]]:
    """``post_archive``, then, for a stored version, its state once its gate has spoken (with
    its reports), polled as the author would; a refusal is returned as it came."""
    status, answer = post_archive(url, token, body, name)
    if status in (200, 201):
        answer = gate_outcome(url, token, answer["version"])
    return status, answer


def gate_outcome(url: str, token: str, ref: str) -> dict[str, Any]:
    """Version ``ref``'s final state with its reports, read as its author."""

    def read(path: str) -> Any:
        request = urllib.request.Request(url + path, headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    return settled(read, ref)


def get(url: str) -> tuple[int, str]:
    """The status and the text of a GET, an error's too."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/api/queue", timeout=5):
            return True
    except OSError:
        return False


def group_alive(group: int) -> bool:
    """Whether any process of process group ``group`` is left."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def serving(logs: Path) -> Iterator[Serve]:
    """Start ``arena serve`` on a competition file, with more arguments and environment
    variables when given (its log in ``logs``); the process and its URL. Every server started
    is killed at the end, its workers and their bots with it."""
    started: list[subprocess.Popen] = []

    def start(
        path: Path, *extra: str, env: dict[str, str] | None = None
    ) -> tuple[subprocess.Popen, str]:
        port = free_port()
        log = (logs / f"serve-{len(started)}.log").open("w")
        argv = [ARENA, "serve", str(path), "--port", str(port), *extra]
        proc = subprocess.Popen(
            argv, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, **(env or {})},
        )  # fmt: skip
        started.append(proc)
        url = f"http://127.0.0.1:{port}"
        until(lambda: _answers(url), timeout=60, what="the server to answer")
        return proc, url

    yield start
    for proc in started:
        if proc.poll() is None:  # its workers get SIGTERM, and stop their bots, when it dies
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        try:
            until(lambda proc=proc: not group_alive(proc.pid), 30, "its workers to exit")
        finally:
            if group_alive(proc.pid):
                os.killpg(proc.pid, signal.SIGKILL)
