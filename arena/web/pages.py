"""The public pages: the standings, a bot's page, the queue and a match's replay viewer.

Every page that reads the database or a replay is a plain function: Starlette runs it in its
thread pool, so a slow read never holds up the event loop. Each is Jinja2 with autoescaping on.
A page's version (``reads.version``) is read before its content, so a change made meanwhile is
never lost: the page's next poll sees a newer version and fetches the page again. The version
is also the page's ETag: a visitor that has it is answered 304 before anything is rendered.
Listings of matches come a page at a time (``?page=N``, newest first).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Generic, TypeVar

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from arena.match.replay import ReplayError
from arena.names import is_ref
from arena.registry.store import Registry, Version
from arena.report.viewer import page as viewer_page
from arena.web import reads
from arena.web.competition import Competition
from arena.web.state import held

SEAT = re.compile(r"[0-9]{1,3}")  # ASCII digits only: ``²`` is a digit to str.isdigit()
PAGE = re.compile(r"[1-9][0-9]{0,5}")

_env = Environment(
    loader=PackageLoader("arena.web", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)


def html(
    template: str, code: int = 200, headers: dict[str, str] | None = None, **context: Any
) -> HTMLResponse:
    text = _env.get_template(template).render(**context)
    return HTMLResponse(text, status_code=code, headers=headers)


def etag(*parts: str) -> str:
    """A weak validator of what a page shows (weak: the same page compressed or not)."""
    return 'W/"' + hashlib.sha256(repr(parts).encode()).hexdigest()[:20] + '"'


def unchanged(request: Request, tag: str) -> Response | None:
    """A 304 when the visitor already has the page whose validator is ``tag``."""
    asked = request.headers.get("if-none-match", "")
    if tag in (t.strip() for t in asked.split(",")):
        return Response(status_code=304, headers=validated(tag))
    return None


def validated(tag: str) -> dict[str, str]:
    """The headers of an answer that may be kept and checked again with its ETag."""
    return {"ETag": tag, "Cache-Control": "no-cache"}


def page_number(request: Request) -> int | None:
    """``?page=N`` (1 when absent); None when it is not a page number."""
    given = request.query_params.get("page", "1")
    return int(given) if PAGE.fullmatch(given) else None


def standings(request: Request) -> Response:
    h = held(request)
    number = page_number(request)
    if number is None:
        return html("missing.html", code=400, what="page: expected a page number (1, 2, ...)")
    made_from = reads.version(h.competition, h.runner)
    tag = etag(made_from, str(number))
    if (same := unchanged(request, tag)) is not None:
        return same
    found, fresh = h.standings.latest()
    if (made := _made(request, tag, fresh)) is not None:
        return made
    listing = _listing(h.competition, number, found["stored"], ())
    if listing is None:
        return html("missing.html", code=404, what=f"no page {number} of matches")
    plot = h.plots.svg(found["order"]) if found["stored"] else ""
    return _keep(request, tag, fresh, html(
        "index.html", competition=h.competition, **_live(made_from, tag, fresh),
        history_svg=plot, **listing, **found))  # fmt: skip


def bot(request: Request) -> Response:
    h = held(request)
    name = request.path_params["name"]
    if not is_ref(name):
        return html("missing.html", code=404, what="no such bot (not a bot name)")
    number = page_number(request)
    if number is None:
        return html("missing.html", code=400, what="page: expected a page number (1, 2, ...)")
    made_from = reads.version(h.competition, h.runner)
    versions = versions_of(h.competition, name.partition("@")[0])
    tag = etag(made_from, str(number), repr([(v.ref, v.status) for v in versions]))
    if (same := unchanged(request, tag)) is not None:
        return same
    found, fresh = h.standings.latest()
    if (made := _made(request, tag, fresh)) is not None:
        return made
    row = next((s for s in found["stats"] if s.bot == name), None)
    if row is None:
        return html("missing.html", code=404, what=f"no bot {name} in the standings")
    listing = _listing(h.competition, number, row.games, (name,))
    if listing is None:
        return html("missing.html", code=404, what=f"no page {number} of {name}'s matches")
    return _keep(request, tag, fresh, html(
        "bot.html", competition=h.competition, row=row, versions=versions,
        history_svg=h.plots.svg([name]), **_live(made_from, tag, fresh), **listing))  # fmt: skip


def _made(request: Request, tag: str, fresh: bool) -> Response | None:
    """The page at this address as made last for the version ``tag`` (from standings as the
    database holds them, or ``fresh`` not: a page answered while they are computed again),
    if it is kept."""
    body = _pages.get((held(request).competition.path, _address(request), tag, fresh))
    if body is None:
        return None
    return HTMLResponse(body, headers=validated(tag) if fresh else None)


def _address(request: Request) -> str:
    return f"{request.url.path}?{request.url.query}"


def _keep(request: Request, tag: str, fresh: bool, page: Response) -> Response:
    """Keep ``page`` for the next visitors of its address and version: a page costs its
    rendering once per change of the ladder, however many visitors ask for it meanwhile
    (while the standings are computed again too: made from the ones before, not fresh)."""
    if page.status_code == 200:
        key = (held(request).competition.path, _address(request), tag, fresh)
        _pages.put(key, bytes(page.body))
    return page


def _live(made_from: str, tag: str, fresh: bool) -> dict[str, Any]:
    """A live page's version and headers: a page made from an entry older than the database
    (answered while the next one is computed) carries neither version nor ETag, so its next
    poll fetches it again."""
    if not fresh:
        return {"live": reads.live(""), "headers": None}
    return {"live": reads.live(made_from), "headers": validated(tag)}


def _listing(
    competition: Competition, number: int, count: int, bots: tuple[str, ...]
) -> dict[str, Any] | None:
    """Page ``number`` of ``count`` published matches (of ``bots``); None past the last."""
    last = reads.pages(count)
    if number > last:
        return None
    return {"matches": reads.matches_page(competition, number, bots), "page": number,
            "pages": last}  # fmt: skip


def queue(request: Request) -> Response:
    h = held(request)
    made_from = reads.version(h.competition, h.runner)
    counts = h.gates.counts()
    tag = etag(made_from, repr(sorted(counts.items())))
    if (same := unchanged(request, tag)) is not None:
        return same
    found, fresh = h.queue.latest()
    return html("queue.html", competition=h.competition, **_live(made_from, tag, fresh),
                restarts=h.runner.restarts, ended=h.runner.ended,
                **reads.queue(found, h.runner, counts))  # fmt: skip


def match(request: Request) -> Response:
    seat = request.query_params.get("seat", "")
    if seat and not SEAT.fullmatch(seat):
        return html("missing.html", code=400, what="seat: expected a seat number (0, 1, ...)")
    competition, match_id = held(request).competition, request.path_params["match_id"]
    tag = etag("match", match_id, seat)  # a published match never changes
    if (same := unchanged(request, tag)) is not None and reads.published(competition, match_id):
        return same
    chosen = int(seat) if seat else None
    key = (competition.path, match_id, chosen)
    text = _viewers.get(key)
    if text is not None and reads.published(competition, match_id):  # not forgotten since
        return HTMLResponse(text, headers=validated(tag))
    data = reads.public_replay(competition, match_id)
    if data is None:
        return to_full_id(request, "") or html(
            "missing.html", code=404, what="no stored match with this id"
        )
    if chosen is not None and chosen >= len(data["players"]):
        last = len(data["players"]) - 1
        return html("missing.html", code=400, what=f"seat: this match has seats 0 to {last}")
    try:
        text = viewer_page(data, chosen)
    except (ReplayError, ValueError) as exc:
        return html("missing.html", code=404, what=f"this replay cannot be shown: {exc}")
    _viewers.put(key, text)
    return HTMLResponse(text, headers=validated(tag))


K = TypeVar("K")
V = TypeVar("V")


class Kept(Generic[K, V]):
    """The ``most`` values put last, by key, for any thread."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.lock = threading.Lock()
        self.values: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        with self.lock:
            return self.values.get(key)

    def put(self, key: K, value: V) -> None:
        with self.lock:
            self.values[key] = value
            self.values.move_to_end(key)
            while len(self.values) > self.most:
                self.values.popitem(last=False)


# The viewer pages last made: a published match's viewer never changes, and making one reads
# its replay and lays out every step (tens of milliseconds); a newly linked match is often
# opened by many visitors at once. And the standings and bot pages last made, by address and
# version.
_viewers: Kept[tuple[Path, str, int | None], str] = Kept(64)
_pages: Kept[tuple[Path, str, str, bool], bytes] = Kept(64)


def to_full_id(request: Request, rest: str) -> Response | None:
    """A redirect from ``/matches/SHORT`` (the start of a published match's id) to the match's
    own address, ``rest`` and the query kept; None when no one match is found."""
    found = reads.full_id(held(request).competition, request.path_params["match_id"])
    if found is None:
        return None
    query = f"?{request.url.query}" if request.url.query else ""
    return RedirectResponse(f"/matches/{found}{rest}{query}", status_code=307)


async def no_icon(_request: Request) -> Response:
    return Response(status_code=204)


def versions_of(competition: Competition, name: str) -> list[Version]:
    if not (competition.registry / "registry.db").is_file():
        return []
    with Registry(competition.registry) as registry:
        return registry.versions(name)
