"""The command-line client of a competition server: pack a bot folder, upload it, read the answer.

The archive is a tar.gz of the folder as it is (the server keeps only what the manifest's
``files`` name, as a local submission does); version-control folders and Python caches are left
out, and symlinks stay symlinks (the server refuses one leading out of the bot).
"""

from __future__ import annotations

import io
import json
import tarfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from arena.registry.content import SKIPPED_DIRS, SKIPPED_SUFFIXES

TIMEOUT_S = 900.0  # the server answers after the build and the validation gate


class ClientError(RuntimeError):
    """The server refused the upload or could not be reached; the message says which and why."""


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
    request = urllib.request.Request(
        server.rstrip("/") + "/api/bots" + query,
        data=pack(folder),
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/gzip"},
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read()).get("error", exc.reason)
        except ValueError:
            message = exc.reason
        raise ClientError(f"{server} refused the upload ({exc.code}): {message}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ClientError(f"{server}: cannot be reached ({reason})") from None
