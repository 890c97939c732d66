"""The JSON API: the authors' (``Authorization: Bearer TOKEN``: uploads, their versions, their
rechecks, their own matches) and the public one (standings, queue, the version of what the
pages show, a replay's download). Module-level endpoints over ``app.state.held``; the work
behind the authors' endpoints is in ``authors.py``, what they read in ``reads.py``."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.names import RULE, is_name, shown
from arena.registry.store import RECHECKABLE, Registry
from arena.web import authors, pages, reads
from arena.web.events import note
from arena.web.gates import Busy
from arena.web.pages import etag, unchanged, validated
from arena.web.state import Held, Refused, held


def author_of(h: Held, request: Request) -> str:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    author = h.accounts.author(token.strip()) if scheme.lower() == "bearer" else None
    if author is None:
        raise Refused(401, "a valid author token is needed (Authorization: Bearer TOKEN)")
    return author


def count_upload(h: Held, author: str) -> None:
    per_hour = h.competition.server.uploads_per_hour
    wait = h.accounts.record_upload(author, per_hour)
    if wait:
        message = f"{author}: at most {per_hour} uploads an hour; try again in {wait:.0f} s"
        raise Refused(429, message, {"Retry-After": str(int(wait) + 1)})


async def post_bot(request: Request) -> Response:
    h = held(request)
    server = h.competition.server
    author = author_of(h, request)
    try:
        h.gates.check(author)  # refused before anything is read or counted
    except Busy as exc:
        raise Refused(429, str(exc), {"Retry-After": "60"}) from None
    count_upload(h, author)
    limit = server.upload_mb << 20
    too_big = f"the archive is over the {server.upload_mb} MiB upload limit"
    declared = request.headers.get("content-length", "")
    if re.fullmatch(r"[0-9]{1,18}", declared) and int(declared) > limit:
        raise Refused(413, too_big)
    body = bytearray()
    try:
        async with asyncio.timeout(server.upload_timeout_s):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise Refused(413, too_big)
    except TimeoutError:
        message = f"the archive did not arrive whole in {server.upload_timeout_s} s"
        raise Refused(408, message) from None
    name = request.query_params.get("name") or None
    if name is not None and not is_name(name):
        raise Refused(400, f"name {shown(name)}: expected {RULE}")
    version, new = await run_in_threadpool(
        authors.submit, h.competition, h.accounts, h.gates, author, bytes(body), name
    )
    answer = {"new": new, **authors.version_json(version), "ahead": h.gates.ahead(version.ref)}
    same = "" if new else ", the same content as before"
    note(f"upload by {author}: {version.ref} {version.status}{same}")
    return JSONResponse(answer, status_code=201 if new else 200)


def own_version(request: Request) -> Response:
    h = held(request)
    version = authors.own(h.competition, h.accounts, author_of(h, request),
                          request.path_params["ref"])  # fmt: skip
    with Registry(h.competition.registry) as registry:
        reports = registry.reports(version.ref)
    out = authors.version_json(version) | {"ahead": h.gates.ahead(version.ref)}
    out |= {"build_log": reports.build_log, "validation": reports.validation}
    return JSONResponse(out)


def recheck(request: Request) -> Response:
    h = held(request)
    author = author_of(h, request)
    version = authors.own(h.competition, h.accounts, author, request.path_params["ref"])
    if version.status not in RECHECKABLE:
        raise Refused(409, f"{version.ref} is {version.status}: only a waiting or rejected "
                      "version's gate can run again")  # fmt: skip
    count_upload(h, author)
    version = authors.requeue(h.competition, h.gates, author, version)
    note(f"recheck by {author}: {version.ref} {version.status}")
    return JSONResponse(authors.version_json(version) | {"ahead": h.gates.ahead(version.ref)},
                        status_code=202)  # fmt: skip


async def mine(request: Request) -> Response:
    h = held(request)
    author = author_of(h, request)

    def read() -> dict[str, Any]:
        h.standings.get()  # the ratings over time brought up to date with the stored matches
        return authors.mine(h.competition, h.accounts, author, h.history)

    return JSONResponse(await run_in_threadpool(read))


def changes(request: Request) -> Response:
    h = held(request)
    return JSONResponse({"version": reads.version(h.competition, h.runner)})


def standings(request: Request) -> Response:
    h = held(request)
    tag = etag(reads.version(h.competition, h.runner))
    if (same := unchanged(request, tag)) is not None:
        return same
    found = h.standings.get()  # what programs read is as the database holds it now
    rows = [s.as_dict() | {"place": p} for p, s in zip(found["places"], found["stats"],
                                                         strict=True)]  # fmt: skip
    return JSONResponse({"stored": found["stored"], "bots": rows}, headers=validated(tag))


def queue(request: Request) -> Response:
    h = held(request)
    q = reads.queue(h.queue.get(), h.runner, h.gates.counts())
    keys = ("running", "waiting", "done_today", "done", "unpublished", "gates", "status",
            "problem")  # fmt: skip
    return JSONResponse({k: q[k] for k in keys} | {"restarts": h.runner.restarts})


def replay(request: Request) -> Response:
    match_id = request.path_params["match_id"]
    data = reads.public_replay(held(request).competition, match_id)
    if data is None:
        return pages.to_full_id(request, "/replay.json") or JSONResponse(
            {"error": "no stored match with this id"}, status_code=404
        )
    disposition = f'attachment; filename="{_safe_id(match_id)}.json"'
    return JSONResponse(data, headers={"Content-Disposition": disposition})


async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    note(f"refused {request.method} {request.url.path[:100]}: {exc.status} {exc}")
    return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=exc.headers)


def _safe_id(match_id: str) -> str:
    return "".join(c for c in match_id if c.isalnum() or c in "-_")[:80] or "match"
