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

Everyone: ``/`` the standings (computed once per change of the ladder's bots or its stored
matches, see ``reads.Shared``), ``/bots/NAME`` a bot's page, ``/queue`` (waiting, running,
done today), ``/matches/ID`` the replay viewer and ``/matches/ID/replay.json`` the replay
(``ID`` may be the start of a published match's id as pages show it, 6 characters at least:
redirected to the match when one and only one matches), ``/api/changes`` a version of what
the standings, bot and queue pages show, which those pages poll to refresh themselves while
open. Only matches
whose whole duplicate set is stored are shown, anywhere (``arena/ladder/published.py``): the
rotations of a set share its deal, so one shown while another is still to be played would deal
its cards to the bots about to play it. Their viewer shows every seat's cards (the game is
over), and strips what only a bot's author may read: stderr tails, incidents and warnings, and
every bot's command (only its name is public). Every page is Jinja2 with autoescaping on, and
every answer carries the security headers of ``http.py``. Every path and query parameter is
checked before it is used (a bot name or ``NAME@N``, a match id, a seat number, a page
number): a bad one is a 400 or 404 with one sentence, never an error of the server.

Listings of matches come a page at a time (``?page=N``); the pages and the standings' and
queue's JSON carry an ETag (the version of what they show) and are answered 304 to a visitor
that has it; answers are gzip-compressed for clients that accept it. The ladder runs in a
process of its own (``ladder.py``), started and stopped with the server, started again if it
dies. The endpoints are module-level functions over ``app.state.held`` (``state.py``): the
pages in ``pages.py``, the API in ``api.py``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.games import load_game
from arena.ladder.store import Store
from arena.report.viewer import inline_parts
from arena.web import api, pages
from arena.web.accounts import Accounts
from arena.web.competition import Competition
from arena.web.gates import GateQueue
from arena.web.history import History, Plots
from arena.web.http import Site, csp, security_headers
from arena.web.ladder import LadderProcess
from arena.web.reads import queue_cache, standings_cache
from arena.web.state import Held, Refused

GZIP_MIN_BYTES = 1000  # smaller answers go as they are
GZIP_LEVEL = 6  # zlib's default: a page in half the time of level 9 for a few % more bytes
ROUTES = [
    Route("/", pages.standings),
    Route("/bots/{name}", pages.bot),
    Route("/queue", pages.queue),
    Route("/matches/{match_id}", pages.match),
    Route("/favicon.ico", pages.no_icon),
    Route("/api/standings", api.standings),
    Route("/api/bots", api.post_bot, methods=["POST"]),
    Route("/api/bots/mine", api.mine),
    Route("/api/bots/{ref}", api.own_version),
    Route("/api/bots/{ref}/recheck", api.recheck, methods=["POST"]),
    Route("/api/queue", api.queue),
    Route("/api/changes", api.changes),
    Route("/matches/{match_id}/replay.json", api.replay),
    Mount("/static", StaticFiles(packages=[("arena.web", "static")])),
]


def create_app(competition: Competition, run_ladder: bool = True) -> Starlette:
    """The server of ``competition``; ``run_ladder`` also starts its ladder's process."""
    server = competition.server
    accounts = Accounts(server.accounts)
    gates = GateQueue(competition.registry, server.check_games, server.builders,
                      server.gates_per_author, accounts.owner,
                      competition.runtime_paths)  # fmt: skip
    history = History()
    held = Held(
        competition=competition,
        accounts=accounts,
        runner=LadderProcess(competition.path.resolve()),
        standings=standings_cache(competition, history),
        queue=queue_cache(competition),
        gates=gates,
        history=history,
        plots=Plots(history),
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        if run_ladder:
            # The database made before the first request, so a page never reads a half-made
            # one; a second server of the same competition stops here (the store's lock).
            Store.create(competition.database, str(competition.data["game"])).close()
            held.runner.start()
            # The standings and the queue computed once before anyone asks: a long history
            # takes a while, and requests meanwhile wait for this one computation.
            for shared in (held.standings, held.queue):
                threading.Thread(target=shared.get, name="arena-warm-up", daemon=True).start()
        held.gates.start()  # after the store's lock: a second server never touches the registry
        yield
        held.gates.stop()
        held.runner.stop()

    scripts, styles = inline_parts(load_game(str(competition.data["game"])))
    gzip = Middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES, compresslevel=GZIP_LEVEL)
    app = Site(
        security_headers(csp(scripts, styles)),
        routes=ROUTES,
        middleware=[gzip],
        exception_handlers={Refused: api.refused},
        lifespan=lifespan,
    )
    app.state.held = held
    app.state.standings = held.standings  # the shared standings, as tests and benches reach them
    return app
