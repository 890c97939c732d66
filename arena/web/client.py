"""The command-line client of a competition server: pack a bot folder, upload it, follow its
gate until it has spoken; read the author's own bots, matches and ratings; ask for a recheck.

The archive is a tar.gz of the folder as it is (the server keeps only what the manifest's
``files`` name, as a local submission does); version-control folders and Python caches are left
out, and symlinks stay symlinks (the server refuses one leading out of the bot).
"""

from __future__ import annotations

import http.client
import io
import json
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.registry.content import SKIPPED_DIRS, SKIPPED_SUFFIXES
from arena.registry.store import UNFINISHED

TIMEOUT_S = 300.0  # to send the archive (the server answers once it is stored)
READ_TIMEOUT_S = 60.0
POLL_S = 1.0


class ClientError(RuntimeError):
    """The server refused the request or could not be reached; the message says which and why."""


def pack(folder: Path) -> bytes:
    """``folder`` as a tar.gz, its files at the archive's top level."""
    if not folder.is_dir():
        raise ClientError(f"{folder}: not a folder")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder)
            if any(p in SKIPPED_DIRS for p in rel.parts) or path.suffix in SKIPPED_SUFFIXES:
                continue
            tar.add(path, arcname=rel.as_posix(), recursive=False)
    return buffer.getvalue()


def upload(server: str, token: str, folder: Path, name: str | None = None) -> dict[str, Any]:
    """Send ``folder`` to ``server``'s ``POST /api/bots`` (``name``: which bot of a manifest
    holding several); the version as the server stored it."""
    query = "?" + urllib.parse.urlencode({"name": name}) if name else ""
    return _answer(server, "/api/bots" + query, token, "the upload", TIMEOUT_S, pack(folder))


def version(server: str, token: str, ref: str) -> dict[str, Any]:
    """One of the author's versions (``NAME@N``) with its build log and validation report."""
    path = "/api/bots/" + urllib.parse.quote(ref, safe="@")
    return _answer(server, path, token, "the request", READ_TIMEOUT_S)


def recheck(server: str, token: str, ref: str) -> dict[str, Any]:
    """Ask ``server`` to run the gate of one of the author's versions again."""
    path = "/api/bots/" + urllib.parse.quote(ref, safe="@") + "/recheck"
    return _answer(server, path, token, "the recheck", READ_TIMEOUT_S, b"")


def follow(
    server: str,
    token: str,
    answer: dict[str, Any],
    timeout: float,
    progress: Callable[[dict[str, Any]], None],
) -> dict[str, Any]:
    """Poll a version (an upload's or recheck's ``answer``) until its gate has spoken, calling
    ``progress`` with each new state; the last answer (still unfinished after ``timeout``)."""
    deadline = time.monotonic() + timeout
    seen = (answer["status"], answer.get("ahead"))
    progress(answer)
    while answer["status"] in UNFINISHED and time.monotonic() < deadline:
        time.sleep(min(POLL_S, max(0.0, deadline - time.monotonic())))
        answer = version(server, token, answer["version"])
        if (answer["status"], answer.get("ahead")) != seen:
            seen = (answer["status"], answer.get("ahead"))
            progress(answer)
    if answer["status"] not in UNFINISHED and "build_log" not in answer:
        answer = version(server, token, answer["version"])  # with its reports
    return answer


def mine(server: str, token: str) -> dict[str, Any]:
    """``server``'s ``GET /api/bots/mine`` for the author of ``token``: their versions and
    reports, their matches with their own seats' stderr and incidents, their ratings."""
    return _answer(server, "/api/bots/mine", token, "the request", READ_TIMEOUT_S)


def _answer(
    server: str, path: str, token: str, what: str, timeout: float, archive: bytes | None = None
) -> dict[str, Any]:
    """The server's JSON answer at ``path`` (a POST of ``archive`` when given, else a GET);
    a ClientError saying why there is none."""
    headers = {"Authorization": f"Bearer {token}"}
    if archive is not None:
        headers["Content-Type"] = "application/gzip"
    try:
        request = urllib.request.Request(server.rstrip("/") + path, archive, headers)
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read()).get("error", exc.reason)
        except ValueError:
            message = exc.reason
        if exc.code == 401:
            raise ClientError(f"{server}: the server refused your token ({message})") from None
        raise ClientError(f"{server} refused {what} ({exc.code}): {message}") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        raise ClientError(f"{server}: cannot be reached ({reason})") from None
    except ValueError as exc:  # a malformed address
        raise ClientError(f"{server}: not a server URL ({exc})") from None
    try:
        return json.loads(body)
    except ValueError:
        raise ClientError(f"{server}: the answer is not JSON (is it an arena server?)") from None
