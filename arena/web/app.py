"""The competition server's HTTP side: the authors' API and the public pages.

Authors (``Authorization: Bearer TOKEN``):

* ``POST /api/bots``: the body is a bot archive (tar.gz or zip, with ``arena-bot.toml``); it is
  unpacked safely (``archive.py``) into a folder of the registry's and stored as a ``queued``
  version, and the answer comes at once: the version, its status and how many gate steps are
  ahead of it. Its build and validation run later, in the gate queue (``gates.py``), never in
  the threads that serve pages. Refused before anything is stored: a bad token (401), more
  than ``uploads_per_hour`` attempts in the last hour (429, ``Retry-After``), as many versions
  in the gate queue as ``gates_per_author`` (429), a body over ``upload_mb`` (413) or slower
  than ``upload_timeout_s`` (408), an unsafe archive (400), a bot name of another author or of
  a house bot, or too close to one (403). The name becomes the author's when a version of it
  is stored, not before. The same content as a ``waiting`` version queues that version again.
* ``GET /api/bots/NAME@N``: one of the author's versions with its build log and validation
  report (capped), polled by ``arena bot submit --server`` until the gate has spoken.
* ``POST /api/bots/NAME@N/recheck``: run the gate of one of the author's ``waiting`` or
  ``rejected`` versions again (counted as an upload).
* ``GET /api/bots/mine``: the author's versions (without their reports), their matches with
  their own seats' stderr tails and incidents (never another seat's), and their ratings after
  each match.

Everyone: ``/`` the standings (computed once per change of the ladder's bots or its stored matches,
see ``StandingsCache``), ``/bots/NAME`` a bot's page, ``/queue`` (waiting, running, done today),
``/matches/ID`` the replay viewer and ``/matches/ID/replay.json`` the replay (``ID`` may be the
start of a published match's id as pages show it, 6 characters at least: redirected to the match
when one and only one matches), ``/api/changes`` a version of what the standings, bot and queue
pages show, which those pages poll to refresh themselves while open. Only matches whose whole
duplicate set is stored are shown, anywhere (``arena/ladder/published.py``): the rotations of a set
share its deal, so one shown while another is still to be played would deal its cards to the bots
about to play it. Their viewer shows every seat's cards (the game is over), and strips what only a
bot's author may read: stderr tails, incidents and warnings, and every bot's command (only its name
is public). Every page is Jinja2 with autoescaping on, and every answer carries the security
headers of ``http.py``. Every path and query parameter is checked before it is used (a bot name or
``NAME@N``, a match id, a seat number): a bad one is a 400 or 404 with one sentence, never an error
of the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import re
import threading
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.games import load_game
from arena.ladder.config import LadderConfig, LadderConfigError
from arena.ladder.published import is_published, published_ids
from arena.ladder.run import schedule_for
from arena.ladder.standings import standings
from arena.ladder.store import NoDatabase, Store
from arena.match.replay import ReplayError, read
from arena.names import RULE, clash, clash_message, is_name, is_ref, shown
from arena.paths import is_inside
from arena.registry.content import ContentError
from arena.registry.gate import store
from arena.registry.manifest import ManifestError, pick
from arena.registry.store import RECHECKABLE, Registry, RegistryError, Version, parse_ref
from arena.report import plots
from arena.report.tables import place_labels
from arena.report.viewer import inline_parts
from arena.report.viewer import page as viewer_page
from arena.web.accounts import AccountError, Accounts
from arena.web.archive import ArchiveError, unpack
from arena.web.competition import Competition
from arena.web.events import note
from arena.web.gates import Busy, GateQueue, remove, upload_folder
from arena.web.http import Site, csp, security_headers
from arena.web.runner import Runner

PRIVATE_SEAT_FIELDS = ("log_tail", "incidents", "warnings")
PUBLIC_PLAYER_FIELDS = ("seat", "name")  # a bot's command (arguments, paths) is not public
MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,80}")
SEAT = re.compile(r"[0-9]{1,3}")  # ASCII digits only: ``²`` is a digit to str.isdigit()
SHORT_ID = 6  # the fewest characters of a match id that ``/matches/SHORT`` resolves (pages show 12)

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
    gates = GateQueue(competition.registry, server.check_games, server.builders,
                      server.gates_per_author, accounts.owner,
                      competition.runtime_paths)  # fmt: skip

    def author_of(request: Request) -> str:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        author = accounts.author(token.strip()) if scheme.lower() == "bearer" else None
        if author is None:
            raise Refused(401, "a valid author token is needed (Authorization: Bearer TOKEN)")
        return author

    def count_upload(author: str) -> None:
        wait = accounts.record_upload(author, server.uploads_per_hour)
        if wait:
            message = (
                f"{author}: at most {server.uploads_per_hour} uploads an hour; "
                f"try again in {wait:.0f} s"
            )
            raise Refused(429, message, {"Retry-After": str(int(wait) + 1)})

    async def post_bot(request: Request) -> Response:
        author = author_of(request)
        try:
            gates.check(author)  # refused before anything is read or counted
        except Busy as exc:
            raise Refused(429, str(exc), {"Retry-After": "60"}) from None
        count_upload(author)
        limit = server.upload_mb << 20
        declared = request.headers.get("content-length", "")
        if re.fullmatch(r"[0-9]{1,18}", declared) and int(declared) > limit:
            raise Refused(413, f"the archive is over the {server.upload_mb} MiB upload limit")
        body = bytearray()
        try:
            async with asyncio.timeout(server.upload_timeout_s):
                async for chunk in request.stream():
                    body += chunk
                    if len(body) > limit:
                        message = f"the archive is over the {server.upload_mb} MiB upload limit"
                        raise Refused(413, message)
        except TimeoutError:
            message = f"the archive did not arrive whole in {server.upload_timeout_s} s"
            raise Refused(408, message) from None
        name = request.query_params.get("name") or None
        if name is not None and not is_name(name):
            raise Refused(400, f"name {shown(name)}: expected {RULE}")
        version, new = await run_in_threadpool(
            _submit, competition, accounts, gates, author, bytes(body), name
        )
        answer = {"new": new, **_version_json(version), "ahead": gates.ahead(version.ref)}
        same = "" if new else ", the same content as before"
        note(f"upload by {author}: {version.ref} {version.status}{same}")
        return JSONResponse(answer, status_code=201 if new else 200)

    def own_version(request: Request) -> Response:
        version = _own(competition, accounts, author_of(request), request.path_params["ref"])
        with Registry(competition.registry) as registry:
            reports = registry.reports(version.ref)
        out = _version_json(version) | {"ahead": gates.ahead(version.ref)}
        out |= {"build_log": reports.build_log, "validation": reports.validation}
        return JSONResponse(out)

    def recheck(request: Request) -> Response:
        author = author_of(request)
        version = _own(competition, accounts, author, request.path_params["ref"])
        if version.status not in RECHECKABLE:
            raise Refused(409, f"{version.ref} is {version.status}: only a waiting or rejected "
                          "version's gate can run again")  # fmt: skip
        count_upload(author)
        version = _requeue(competition, gates, author, version)
        note(f"recheck by {author}: {version.ref} {version.status}")
        return JSONResponse(_version_json(version) | {"ahead": gates.ahead(version.ref)},
                            status_code=202)  # fmt: skip

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
        if not is_ref(name):
            return _html("missing.html", code=404, what="no such bot (not a bot name)")
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
                     **_queue(competition, runner, gates))  # fmt: skip

    def queue_json(request: Request) -> Response:
        q = _queue(competition, runner, gates)
        keys = ("running", "waiting", "done_today", "unpublished", "gates", "status", "problem")
        return JSONResponse({k: q[k] for k in keys})

    def match_page(request: Request) -> Response:
        seat = request.query_params.get("seat", "")
        if seat and not SEAT.fullmatch(seat):
            return _html("missing.html", code=400, what="seat: expected a seat number (0, 1, ...)")
        data = _public_replay(competition, request.path_params["match_id"])
        if data is None:
            return _to_full_id(competition, request, "") or _html(
                "missing.html", code=404, what="no stored match with this id"
            )
        chosen = int(seat) if seat else None
        if chosen is not None and chosen >= len(data["players"]):
            last = len(data["players"]) - 1
            return _html("missing.html", code=400, what=f"seat: this match has seats 0 to {last}")
        try:
            text = viewer_page(data, chosen)
        except (ReplayError, ValueError) as exc:
            return _html("missing.html", code=404, what=f"this replay cannot be shown: {exc}")
        return HTMLResponse(text)

    def replay_download(request: Request) -> Response:
        match_id = request.path_params["match_id"]
        data = _public_replay(competition, match_id)
        if data is None:
            return _to_full_id(competition, request, "/replay.json") or JSONResponse(
                {"error": "no stored match with this id"}, status_code=404
            )
        disposition = f'attachment; filename="{_safe_id(match_id)}.json"'
        return JSONResponse(data, headers={"Content-Disposition": disposition})

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        if run_ladder:
            # The database made before the first request, so a page never reads a half-made
            # one; a second server of the same competition stops here (the store's lock).
            Store.create(competition.database, str(competition.data["game"])).close()
            runner.start()
        gates.start()  # after the store's lock: a second server never touches the registry
        yield
        gates.stop()
        runner.stop()

    scripts, styles = inline_parts(load_game(str(competition.data["game"])))
    app = Site(
        security_headers(csp(scripts, styles)),
        routes=[
            Route("/", standings),
            Route("/api/standings", standings_json),
            Route("/api/bots", post_bot, methods=["POST"]),
            Route("/api/bots/mine", mine),
            Route("/api/bots/{ref}", own_version),
            Route("/api/bots/{ref}/recheck", recheck, methods=["POST"]),
            Route("/api/queue", queue_json),
            Route("/api/changes", changes),
            Route("/bots/{name}", bot_page),
            Route("/queue", queue),
            Route("/matches/{match_id}", match_page),
            Route("/matches/{match_id}/replay.json", replay_download),
            Route("/favicon.ico", _no_icon),
            Mount("/static", StaticFiles(packages=[("arena.web", "static")])),
        ],
        exception_handlers={Refused: _refused},
        lifespan=lifespan,
    )
    app.state.runner = runner
    app.state.accounts = accounts
    app.state.standings = cache
    app.state.gates = gates
    return app


async def _no_icon(_request: Request) -> Response:
    return Response(status_code=204)


async def _refused(request: Request, exc: Refused) -> Response:
    note(f"refused {request.method} {request.url.path[:100]}: {exc.status} {exc}")
    return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=exc.headers)


def _html(template: str, code: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(_env.get_template(template).render(**context), status_code=code)


def _to_full_id(competition: Competition, request: Request, rest: str) -> Response | None:
    """A redirect from ``/matches/SHORT`` (the start of a match id, as pages show it) to the
    match's own address; None when no published match, or more than one, has an id that
    starts so (an unpublished match is never counted: a 404 tells nothing of it)."""
    short = request.path_params["match_id"]
    if not (MATCH_ID.fullmatch(short) and len(short) >= SHORT_ID):
        return None
    with _reading(competition) as store:
        if store is None:
            return None
        like = re.sub(r"([!%_])", r"!\1", short) + "%"
        query = "SELECT id FROM matches WHERE id LIKE ? ESCAPE '!'"
        ids = [r[0] for r in store.conn.execute(query, (like,)).fetchall()]
        found = [i for i in ids if i.startswith(short) and is_published(store, i)]
    if len(found) != 1 or found[0] == short:
        return None
    query = f"?{request.url.query}" if request.url.query else ""
    return RedirectResponse(f"/matches/{found[0]}{rest}{query}", status_code=307)


def _safe_id(match_id: str) -> str:
    return "".join(c for c in match_id if c.isalnum() or c in "-_")[:80] or "match"


# -- submitting ------------------------------------------------------------------------------


def _submit(
    competition: Competition,
    accounts: Accounts,
    gates: GateQueue,
    author: str,
    blob: bytes,
    name: str | None,
) -> tuple[Version, bool]:
    """Unpack, check the name is the author's, store the version and queue its gate; (the
    version, whether it is new). The same content as a ``waiting`` version queues it again."""
    server = competition.server
    tmp = upload_folder(competition.registry)
    try:
        try:
            folder = unpack(blob, tmp, server.expanded_mb << 20, server.max_files)
            manifest = pick(folder, name)
        except (ArchiveError, ManifestError) as exc:
            raise Refused(400, _relative(str(exc), str(tmp))) from None
        except OSError as exc:  # every name was checked: this machine's failure (a full disk)
            message = f"this server could not unpack the archive now ({exc.strerror})"
            raise Refused(503, message) from None
        name, game = manifest.name, str(competition.data["game"])
        if manifest.games and game not in manifest.games:
            plays = ", ".join(manifest.games)
            raise Refused(400, f"{name} plays {plays}, not {game} (its manifest's games)")
        if name in competition.house:
            raise Refused(403, f"the bot name {name!r} is a house bot of this competition")
        house = clash(name, competition.house)
        if house is not None:
            raise Refused(403, f"{clash_message(name, house)} (a house bot of this competition)")
        try:
            accounts.check_claim(name, author)  # claimed only once a version is stored
            with gates.admission(author) as admit, Registry(competition.registry) as registry:
                done = store(registry, folder, name, server.expanded_mb << 20,
                             server.max_files, status="queued",
                             claim=functools.partial(accounts.claim, author=author))  # fmt: skip
                version = done.version
                if done.new:
                    admit(version.ref)
                elif version.status == "waiting" and registry.move(
                    version.ref, ("waiting",), "queued"
                ):
                    admit(version.ref)
                    version = registry.get(version.ref)
        except AccountError as exc:
            raise Refused(403, str(exc)) from None
        except Busy as exc:
            raise Refused(429, str(exc), {"Retry-After": "60"}) from None
        except (ManifestError, ContentError, RegistryError) as exc:
            raise Refused(400, _relative(str(exc), str(tmp))) from None
    finally:
        remove(tmp)
    return version, done.new


def _own(competition: Competition, accounts: Accounts, author: str, ref: str) -> Version:
    """``ref`` (``NAME@N``) when it is one of ``author``'s versions; 404 otherwise (whether
    another author's exists is not said)."""
    missing = Refused(404, f"{ref!r}: not one of your versions (NAME@N)")
    try:
        name, number = parse_ref(ref)
    except RegistryError:
        raise missing from None
    if number is None or accounts.owner(name) != author:
        raise missing
    try:
        with Registry(competition.registry) as registry:
            return registry.get(ref)
    except RegistryError:
        raise missing from None


def _requeue(competition: Competition, gates: GateQueue, author: str, v: Version) -> Version:
    """``v`` queued for its gate again (from ``waiting`` or ``rejected``)."""
    try:
        with gates.admission(author) as admit, Registry(competition.registry) as registry:
            if not registry.move(v.ref, RECHECKABLE, "queued"):
                raise Refused(409, f"{v.ref} changed meanwhile: it is {registry.get(v.ref).status}")
            admit(v.ref)
            return registry.get(v.ref)
    except Busy as exc:
        raise Refused(429, str(exc), {"Retry-After": "60"}) from None


def _relative(message: str, tmp: str) -> str:
    """A message without the server's temporary folder in it."""
    return message.replace(f"{tmp}/", "").replace(tmp, "the archive")


def _version_json(v: Version) -> dict[str, Any]:
    return {
        "version": v.ref,
        "status": v.status,
        "reason": v.reason,
        "hash": v.hash,
        "files": v.files,
        "bytes": v.bytes,
        "submitted_at": v.submitted_at,
    }


def _mine(
    competition: Competition, accounts: Accounts, author: str, cache: StandingsCache
) -> dict[str, Any]:
    """The author's versions, their published matches with their own seats' stderr tails and
    incidents, and their versions' ratings after each match (over time)."""
    bots = accounts.bots_of(author)
    versions = [v for b in bots for v in _versions_of(competition, b)]
    own = {v.ref for v in versions}
    matches = []
    with _reading(competition) as store:
        if store is not None:
            rows = store.match_rows()
            public = published_ids(store)
            ids = sorted({m for ref in sorted(own) for m in store.matches_of(ref)})
            for match_id in (i for i in ids if i in public):
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
    empty = {"stats": [], "places": [], "stored": 0, "unpublished": 0, "matches": [],
             "history": [], "history_svg": ""}  # fmt: skip
    if cfg is None or store is None:
        return empty | {"history_svg_of": lambda _name: ""}
    table = standings(cfg, store, public=True)
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
        "unpublished": table.hidden,
        "matches": matches,
        "history": history,
        "history_svg": _plot(history, order) if stored else "",
        # drawn on a bot page's first visit, kept for the next ones (the table's bots only)
        "history_svg_of": functools.lru_cache(maxsize=max(1, len(bots)))(
            lambda name: _plot(history, [name]) if stored else ""
        ),
    }


def _plot(history: list[Any], bots: list[str]) -> str:
    """The rating plot for a page: matplotlib's one ``<style>`` element left out (the site's
    stylesheet has its rule), as the pages' policy allows no inline style element."""
    return _SVG_STYLE.sub("", plots.rating_history(history, bots))


_SVG_STYLE = re.compile(r"<style[^>]*>.*?</style>", re.DOTALL)


def _queue(competition: Competition, runner: Runner, gates: GateQueue) -> dict[str, Any]:
    """The ladder's state, its matches running and waiting, those done today (published ones
    only, with a count of the rest), and the gate queue's counts."""
    cfg = _ladder(competition)
    midnight = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
    with _reading(competition) as store:
        today = store.matches_since(midnight) if store is not None else []
        public = published_ids(store) if store is not None else set()
        done_today = [m for m in today if m in public]
        upcoming = schedule_for(cfg).upcoming(store) if cfg is not None else []
    held = runner.running()
    running = [{"id": s.match_id, "bots": list(s.bots)} for s in upcoming if s.match_id in held]
    waiting = [{"id": s.match_id, "bots": list(s.bots)} for s in upcoming if s.match_id not in held]
    state = runner.state
    return {
        "running": running,
        "waiting": waiting,
        "done_today": done_today,
        "unpublished": len(today) - len(done_today),
        "gates": gates.counts(),
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
    """A published match's replay (its whole set stored) with what only its bots' authors
    may read removed, and each bot's command; None for any other id, or a replay not in the
    competition's replay folder."""
    replays = competition.replays
    if not MATCH_ID.fullmatch(match_id) or replays is None:
        return None
    with _reading(competition) as store:
        if store is None or not is_published(store, match_id):
            return None
        path = store.replay_path(match_id)
    if path is None or not is_inside(replays, path) or not path.is_file():
        return None
    try:
        data = read(path)
    except (ReplayError, OSError):
        return None
    data["result"] = [
        {k: v for k, v in r.items() if k not in PRIVATE_SEAT_FIELDS} for r in data["result"]
    ]
    data["players"] = [{k: p[k] for k in PUBLIC_PLAYER_FIELDS} for p in data["players"]]
    return data


def _when(t: float | None) -> str:
    return "" if t is None else time.strftime("%Y-%m-%d %H:%M", time.gmtime(t))
