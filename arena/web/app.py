"""The competition server's HTTP side: the authors' API and the public pages.

Authors (``Authorization: Bearer TOKEN``):

* ``POST /api/bots``: the body is a bot archive (tar.gz or zip, with ``arena-bot.toml``); it is
  unpacked safely (``archive.py``) into a temporary folder and submitted to the registry, so the
  build and the validation gate run; the answer is the version, its status and its reports.
  Refused before anything is stored: a bad token (401), more than ``uploads_per_hour`` attempts
  in the last hour (429, ``Retry-After``), a body over ``upload_mb`` (413), an unsafe archive
  (400), a bot name of another author or of a house bot (403).
* ``GET /api/bots/mine``: the author's versions with their build and validation reports,
  their matches with their own seats' stderr tails and incidents (never another seat's), and
  their ratings after each match.

Everyone: ``/`` the standings (computed once per change of the ladder's bots or its stored
matches, see ``StandingsCache``), ``/bots/NAME`` a bot's page, ``/queue`` (waiting, running,
done today), ``/matches/ID`` the replay viewer and
``/matches/ID/replay.json`` the replay, ``/api/changes`` a version of what the standings, bot
and queue pages show, which those pages poll to refresh themselves while open. Only stored
matches, so finished ones, are shown; their viewer shows every seat's cards (the game is over),
and strips what only a bot's author may read: stderr tails, incidents and warnings. Every page
is Jinja2 with autoescaping on.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from arena.ladder.config import LadderConfig, LadderConfigError
from arena.ladder.run import schedule_for
from arena.ladder.standings import standings
from arena.ladder.store import NoDatabase, Store
from arena.match.replay import ReplayError, read
from arena.registry.content import ContentError
from arena.registry.gate import GateHostError, submit
from arena.registry.manifest import ManifestError, pick
from arena.registry.store import Registry, RegistryError, Version
from arena.report import plots
from arena.report.tables import place_labels
from arena.report.viewer import page as viewer_page
from arena.web.accounts import AccountError, Accounts
from arena.web.archive import ArchiveError, unpack
from arena.web.competition import Competition
from arena.web.runner import Runner

PRIVATE_SEAT_FIELDS = ("log_tail", "incidents", "warnings")

_env = Environment(
    loader=PackageLoader("arena.web", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)


class Refused(Exception):
    """An API request refused: its HTTP status and one clear sentence."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def create_app(competition: Competition, run_ladder: bool = True) -> Starlette:
    """The server of ``competition``; ``run_ladder`` also starts its background ladder."""
    accounts = Accounts(competition.server.accounts)
    runner = Runner(competition)
    server = competition.server
    cache = StandingsCache(competition)

    def author_of(request: Request) -> str:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        author = accounts.author(token.strip()) if scheme.lower() == "bearer" else None
        if author is None:
            raise Refused(401, "a valid author token is needed (Authorization: Bearer TOKEN)")
        return author

    async def post_bot(request: Request) -> Response:
        author = author_of(request)
        wait = accounts.record_upload(author, server.uploads_per_hour)
        if wait:
            message = (
                f"{author}: at most {server.uploads_per_hour} uploads an hour; "
                f"try again in {wait:.0f} s"
            )
            raise Refused(429, message, {"Retry-After": str(int(wait) + 1)})
        limit = server.upload_mb << 20
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise Refused(413, f"the archive is over the {server.upload_mb} MiB upload limit")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise Refused(413, f"the archive is over the {server.upload_mb} MiB upload limit")
        name = request.query_params.get("name") or None
        version, new = await run_in_threadpool(
            _submit, competition, accounts, author, bytes(body), name
        )
        return JSONResponse({"new": new, **_version_json(version)}, status_code=201 if new else 200)

    async def mine(request: Request) -> Response:
        author = author_of(request)
        return JSONResponse(await run_in_threadpool(_mine, competition, accounts, author, cache))

    # Every page that reads the database or a replay is a plain function: Starlette runs it in
    # its thread pool, so a slow read or a computation of the standings never holds up the
    # event loop.
    # A page's version is read before its content, so a change made meanwhile is never lost:
    # the page's next poll sees a newer version and fetches the page again.
    def standings(request: Request) -> Response:
        live = _live(competition, runner)
        return _html("index.html", competition=competition, live=live, **cache.get())

    def changes(request: Request) -> Response:
        return JSONResponse({"version": _version(competition, runner)})

    def standings_json(request: Request) -> Response:
        found = cache.get()
        rows = [s.as_dict() | {"place": p} for p, s in zip(found["places"], found["stats"],
                                                             strict=True)]  # fmt: skip
        return JSONResponse({"stored": found["stored"], "bots": rows})

    def bot_page(request: Request) -> Response:
        name = request.path_params["name"]
        live = _live(competition, runner)
        found = cache.get()
        row = next((s for s in found["stats"] if s.bot == name), None)
        if row is None:
            return _html("missing.html", code=404, what=f"no bot {name} in the standings")
        mine = [m for m in found["matches"] if any(s["bot"] == name for s in m["seats"])]
        versions = _versions_of(competition, name.partition("@")[0])
        return _html("bot.html", competition=competition, row=row, matches=mine,
                     versions=versions, history_svg=found["history_svg_of"](name),
                     live=live)  # fmt: skip

    def queue(request: Request) -> Response:
        live = _live(competition, runner)
        return _html("queue.html", competition=competition, live=live,
                     **_queue(competition, runner))  # fmt: skip

    def queue_json(request: Request) -> Response:
        q = _queue(competition, runner)
        keys = ("running", "waiting", "done_today", "status", "problem")
        return JSONResponse({k: q[k] for k in keys})

    def match_page(request: Request) -> Response:
        data = _public_replay(competition, request.path_params["match_id"])
        if data is None:
            return _html("missing.html", code=404, what="no stored match with this id")
        seat = request.query_params.get("seat", "")
        chosen = int(seat) if seat.isdigit() and int(seat) < len(data["players"]) else None
        try:
            text = viewer_page(data, chosen)
        except (ReplayError, ValueError) as exc:
            return _html("missing.html", code=404, what=f"this replay cannot be shown: {exc}")
        return HTMLResponse(text)

    def replay_download(request: Request) -> Response:
        match_id = request.path_params["match_id"]
        data = _public_replay(competition, match_id)
        if data is None:
            return JSONResponse({"error": "no stored match with this id"}, status_code=404)
        disposition = f'attachment; filename="{_safe_id(match_id)}.json"'
        return JSONResponse(data, headers={"Content-Disposition": disposition})

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        if run_ladder:
            # The database made before the first request, so a page never reads a half-made
            # one; a second server of the same competition stops here (the store's lock).
            Store.create(competition.database, str(competition.data["game"])).close()
            runner.start()
        yield
        runner.stop()

    app = Starlette(
        routes=[
            Route("/", standings),
            Route("/api/standings", standings_json),
            Route("/api/bots", post_bot, methods=["POST"]),
            Route("/api/bots/mine", mine),
            Route("/api/queue", queue_json),
            Route("/api/changes", changes),
            Route("/bots/{name}", bot_page),
            Route("/queue", queue),
            Route("/matches/{match_id}", match_page),
            Route("/matches/{match_id}/replay.json", replay_download),
            Route("/favicon.ico", _no_icon),
        ],
        exception_handlers={Refused: _refused},  # type: ignore[dict-item]
        lifespan=lifespan,
    )
    app.state.runner = runner
    app.state.accounts = accounts
    app.state.standings = cache
    return app


async def _no_icon(_request: Request) -> Response:
    return Response(status_code=204)


async def _refused(_request: Request, exc: Refused) -> Response:
    return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=exc.headers)


def _html(template: str, code: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(_env.get_template(template).render(**context), status_code=code)


def _safe_id(match_id: str) -> str:
    return "".join(c for c in match_id if c.isalnum() or c in "-_")[:80] or "match"


# -- submitting ------------------------------------------------------------------------------


def _submit(
    competition: Competition, accounts: Accounts, author: str, blob: bytes, name: str | None
) -> tuple[Version, bool]:
    """Unpack, check the name is the author's, submit through the registry's gate."""
    server = competition.server
    with tempfile.TemporaryDirectory(prefix="arena-upload-") as tmp:
        try:
            folder = unpack(blob, Path(tmp), server.expanded_mb << 20, server.max_files)
            manifest = pick(folder, name)
        except (ArchiveError, ManifestError) as exc:
            raise Refused(400, _relative(str(exc), tmp)) from None
        name, game = manifest.name, str(competition.data["game"])
        if manifest.games and game not in manifest.games:
            plays = ", ".join(manifest.games)
            raise Refused(400, f"{name} plays {plays}, not {game} (its manifest's games)")
        if name in competition.house:
            raise Refused(403, f"the bot name {name!r} is a house bot of this competition")
        try:
            accounts.claim(name, author)
        except AccountError as exc:
            raise Refused(403, str(exc)) from None
        try:
            with Registry(competition.registry) as registry:
                done = submit(registry, folder, name, server.check_games,
                              server.expanded_mb << 20, server.max_files)  # fmt: skip
        except (ManifestError, ContentError, RegistryError) as exc:
            raise Refused(400, _relative(str(exc), tmp)) from None
        except GateHostError as exc:
            raise Refused(503, f"this server could not build or check bots now: {exc}") from None
    return done.version, done.new


def _relative(message: str, tmp: str) -> str:
    """A message without the server's temporary folder in it."""
    return message.replace(f"{tmp}/", "").replace(tmp, "the archive")


def _version_json(v: Version, reports: bool = True) -> dict[str, Any]:
    out = {
        "version": v.ref,
        "status": v.status,
        "reason": v.reason,
        "hash": v.hash,
        "files": v.files,
        "bytes": v.bytes,
        "submitted_at": v.submitted_at,
    }
    if reports:
        out |= {"build_log": v.build_log, "validation": v.validation}
    return out


def _mine(
    competition: Competition, accounts: Accounts, author: str, cache: StandingsCache
) -> dict[str, Any]:
    """The author's versions with their reports, their matches with their own seats' stderr
    tails and incidents, and their versions' ratings after each match (over time)."""
    bots = accounts.bots_of(author)
    versions = [v for b in bots for v in _versions_of(competition, b)]
    own = {v.ref for v in versions}
    matches = []
    with _reading(competition) as store:
        if store is not None:
            rows = store.match_rows()
            ids = sorted({m for ref in sorted(own) for m in store.matches_of(ref)})
            for match_id in ids:
                seats = rows[match_id]["results"]
                matches.append(
                    {
                        "match": match_id,
                        "finished_at": rows[match_id]["finished_at"],
                        "seats": [_seat_json(s, s["bot"] in own) for s in seats],
                    }
                )
    ratings = [
        {"version": h.bot, "match": h.match_id, "mu": h.mu, "sigma": h.sigma}
        for h in cache.get()["history"]
        if h.bot in own
    ]
    return {
        "author": author,
        "bots": bots,
        "versions": [_version_json(v) for v in versions],
        "matches": matches,
        "ratings": ratings,
    }


def _seat_json(seat: dict[str, Any], own: bool) -> dict[str, Any]:
    out = {k: seat[k] for k in ("seat", "bot", "score", "status", "detail")}
    out["rank"] = seat["rank"] + 1
    if own:
        out["log_tail"] = seat["log_tail"]
        out["incidents"] = json.loads(seat["incidents"])
    return out


def _versions_of(competition: Competition, name: str) -> list[Version]:
    if not (competition.registry / "registry.db").is_file():
        return []
    with Registry(competition.registry) as registry:
        return registry.versions(name)


# -- reading the ladder ------------------------------------------------------------------------


@contextlib.contextmanager
def _reading(competition: Competition) -> Iterator[Store | None]:
    """The ladder database opened for reading, or None before its first match."""
    try:
        store = Store.read(competition.database, str(competition.data["game"]))
    except NoDatabase:
        yield None
        return
    try:
        yield store
    finally:
        store.close()


def _ladder(competition: Competition) -> LadderConfig | None:
    try:
        return competition.ladder(check_bots=False)
    except LadderConfigError:
        return None


class StandingsCache:
    """The standings, computed once per change of what they depend on (the ladder's bots and
    the stored matches) and shared by every request until the next change: rating every stored
    match takes seconds once there are thousands, and anyone may ask for the page at will.

    One entry, the latest. One computation at a time: requests that come meanwhile wait for it
    and share it. The mark of the stored matches is read before them, so an entry is never
    older than its mark and a match stored since is seen by the next request.
    """

    def __init__(self, competition: Competition) -> None:
        self.competition = competition
        self.lock = threading.Lock()
        self.key: tuple[Any, ...] | None = None
        self.found: dict[str, Any] = {}

    def get(self) -> dict[str, Any]:
        """The standings as the database holds them now."""
        cfg = _ladder(self.competition)
        with self.lock, _reading(self.competition) as store:
            key = (cfg.bot_names if cfg is not None else None, _stored_mark(store))
            if key != self.key:
                self.found = _standings(cfg, store)
                self.key = key
            return self.found


def _stored_mark(store: Store | None) -> tuple[Any, ...]:
    """What changes when a match is stored or forgotten (``Store.stored_mark``)."""
    return store.stored_mark() if store is not None else ()


def _standings(cfg: LadderConfig | None, store: Store | None) -> dict[str, Any]:
    """The table, its places, the matches newest first and the rating history, with its plots."""
    empty = {"stats": [], "places": [], "stored": 0, "matches": [], "history": [],
             "history_svg": ""}  # fmt: skip
    if cfg is None or store is None:
        return empty | {"history_svg_of": lambda _name: ""}
    table = standings(cfg, store)
    stored, stats, history, order = table.stored, table.stats, table.history, table.order
    rows = store.match_rows()
    bots = list(cfg.bot_names)
    matches = [
        {
            "id": r.match_id,
            "finished_at": _when(rows[r.match_id]["finished_at"]),
            "seats": [
                {"bot": s["bot"], "rank": s["rank"] + 1, "score": s["score"], "status": s["status"]}
                for s in rows[r.match_id]["results"]
            ],
        }
        for r in reversed(stored)
    ]
    return {
        "stats": stats,
        "places": place_labels(stats),
        "stored": len(stored),
        "matches": matches,
        "history": history,
        "history_svg": plots.rating_history(history, order) if stored else "",
        # drawn on a bot page's first visit, kept for the next ones (the table's bots only)
        "history_svg_of": functools.lru_cache(maxsize=max(1, len(bots)))(
            lambda name: plots.rating_history(history, [name]) if stored else ""
        ),
    }


def _queue(competition: Competition, runner: Runner) -> dict[str, Any]:
    cfg = _ladder(competition)
    midnight = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
    with _reading(competition) as store:
        done_today = store.matches_since(midnight) if store is not None else []
        upcoming = schedule_for(cfg).upcoming(store) if cfg is not None else []
    held = runner.running()
    running = [{"id": s.match_id, "bots": list(s.bots)} for s in upcoming if s.match_id in held]
    waiting = [{"id": s.match_id, "bots": list(s.bots)} for s in upcoming if s.match_id not in held]
    state = runner.state
    return {
        "running": running,
        "waiting": waiting,
        "done_today": done_today,
        "status": state.status,
        "problem": state.problem,
        "progress": f"{state.done} of {state.scheduled}" if state.scheduled else "",
    }


def _version(competition: Competition, runner: Runner) -> str:
    """A short string that changes whenever the standings, a bot page or the queue page would:
    the standings' key (the ladder's bots, the stored matches' mark) and the runner's state.
    Cheap (one COUNT/MAX query), as every open page asks for it every few seconds."""
    cfg = _ladder(competition)
    with _reading(competition) as store:
        mark = _stored_mark(store)
    state = runner.state
    seen = (cfg.bot_names if cfg is not None else None, mark, sorted(runner.running()),
            state.status, state.problem, state.done, state.scheduled)  # fmt: skip
    return hashlib.sha256(repr(seen).encode()).hexdigest()[:16]


def _live(competition: Competition, runner: Runner) -> dict[str, str]:
    """What a live page carries: its version, and when it was made (UTC) for its visitor."""
    made = time.strftime("%H:%M:%S", time.gmtime())
    return {"version": _version(competition, runner), "updated": made}


def _public_replay(competition: Competition, match_id: str) -> dict[str, Any] | None:
    """A stored match's replay with what only its bots' authors may read removed."""
    with _reading(competition) as store:
        path = store.replay_path(match_id) if store is not None else None
    if path is None or not path.is_file():
        return None
    try:
        data = read(path)
    except (ReplayError, OSError):
        return None
    data["result"] = [
        {k: v for k, v in r.items() if k not in PRIVATE_SEAT_FIELDS} for r in data["result"]
    ]
    return data


def _when(t: float | None) -> str:
    return "" if t is None else time.strftime("%Y-%m-%d %H:%M", time.gmtime(t))
