"""The HTML ladder report: a folder with ``index.html``, a page per bot and the replay viewers.

It opens offline from the file system: no CDN, no network, no JavaScript library; plots are
inline SVG (:mod:`arena.report.plots`), the stylesheet is inlined, and everything a bot or an author
can write (names, statuses, details, stderr) is escaped by Jinja2's autoescaping.

The report of a following ladder, which is played while its report is read, shows whole
duplicate sets only (``arena/ladder/published.py``): a rotation's replay deals the cards of
the rotations still to play.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from arena.ladder import database
from arena.ladder.config import LadderConfig
from arena.ladder.rated import history_of
from arena.ladder.standings import standings
from arena.ladder.store import Store
from arena.match.replay import ReplayError
from arena.registry.store import Registry, RegistryError, Version, parse_ref
from arena.report import plots
from arena.report.viewer import write_viewer

WORST_LOSSES = 5

_env = Environment(
    loader=PackageLoader("arena.report", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
_env.filters["slug"] = plots.slug
_env.filters["utc"] = lambda t: time.strftime("%Y-%m-%d %H:%M", time.gmtime(t))


@dataclass(frozen=True)
class MatchRow:
    """One stored match as listed in the report."""

    id: str
    number: int  # its place in the schedule, from 1
    set_id: str
    seats: list[dict[str, Any]]  # bot, score, rank (from 1), status, detail, relative
    decisions: int
    duration_ms: float
    replay: str | None  # the viewer page, relative to the report's root

    def seat_of(self, bot: str) -> dict[str, Any] | None:
        return next((s for s in self.seats if s["bot"] == bot), None)


VIEWERS = 200  # replay viewers written: the last matches (each is a page of its own)


def write_report(cfg: LadderConfig, out: Path, viewers: Mapping[str, str] | None = None) -> Path:
    """Write the report of ``cfg``'s stored results into ``out``; the path of its index page.

    ``viewers`` maps match ids to their replay viewer pages (paths relative to ``out``); by
    default a viewer is written for each of the last ``VIEWERS`` stored matches whose replay
    file exists (``arena replay view`` renders any other).
    """
    store = Store.read(cfg.database, cfg.game.id)
    try:
        table = standings(cfg, store, public=cfg.follow is not None)
        rows = store.match_rows()
        # the kept history is over every stored match: used when all are shown
        history = history_of(cfg, store, table.stored) if not table.hidden else table.history
        schedule, stored, stats, order = table.schedule, table.stored, table.stats, table.order
    finally:
        store.close()
    if viewers is None:
        viewers = write_viewers([r.match_id for r in stored[-VIEWERS:]], rows, out)
    matches = _match_rows(stored, rows, viewers)
    effects = [e for e in table.seat_effects() if e.relative.ci is not None]
    pairs = table.head_to_head()
    versions = _versions(cfg, order)
    page = {
        "cfg": cfg,
        "source": database.label(cfg.database),
        "scheduled": len(schedule),
        "stored": len(stored),
        "stats": stats,
        "matches": matches,
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "bots").mkdir(exist_ok=True)
    index = out / "index.html"
    index.write_text(
        _env.get_template("index.html").render(
            **page,
            root="",
            effects=effects,
            history_points=plots.HISTORY_POINTS,
            h2h_bots=plots.H2H_BOTS,
            faults=_faults(matches),
            history_svg=plots.rating_history(history, order),
            h2h_svg=plots.head_to_head(order, pairs) if len(order) > 1 else "",
            seats_svg=plots.seat_effects(
                [e.seat for e in effects],
                [e.relative.mean for e in effects if e.relative.mean is not None],
                [e.relative.ci for e in effects if e.relative.ci is not None],
            )
            if effects
            else "",
        )
    )
    for row in stats:
        mine = [m for m in matches if m.seat_of(row.bot) is not None]
        (out / "bots" / f"{plots.slug(row.bot)}.html").write_text(
            _env.get_template("bot.html").render(
                **page,
                root="../",
                row=row,
                mine=mine,
                opponents=_opponents(row.bot, order, pairs),
                worst=_worst_losses(row.bot, mine),
                versions=versions.get(row.bot, []),
            )
        )
    return index


def _versions(cfg: LadderConfig, bots: Sequence[str]) -> dict[str, list[Version]]:
    """Every registry version of each registry bot in the table (newest first), by table name."""
    if not cfg.refs or cfg.registry is None or not (cfg.registry / "registry.db").is_file():
        return {}
    found: dict[str, list[Version]] = {}
    with Registry(cfg.registry) as registry:
        for bot in bots:
            try:
                name, _ = parse_ref(bot)
            except RegistryError:
                continue  # a bot given by command
            found[bot] = registry.versions(name)[::-1]
    return found


def write_viewers(
    ids: Sequence[str], rows: Mapping[str, Mapping[str, Any]], out: Path
) -> dict[str, str]:
    """Write ``replays/<match id>.html`` for each match whose replay file is still there; the
    pages by match id, relative to ``out``. A replay that no longer re-simulates (the game's
    engine changed version since) gets no page, and its match no link."""
    pages = {}
    for match_id in ids:
        source = rows[match_id].get("replay_path")
        if not source or not Path(source).is_file():
            continue
        page = f"replays/{match_id}.html"
        try:
            write_viewer(Path(source), out / page)
        except ReplayError:
            continue
        pages[match_id] = page
    return pages


def _match_rows(
    stored: Sequence[Any], rows: Mapping[str, Mapping[str, Any]], viewers: Mapping[str, str]
) -> list[MatchRow]:
    out = []
    for record in stored:
        row = rows[record.match_id]
        results = row["results"]
        mean = fmean(r["score"] for r in results)
        seats = [
            {
                "bot": r["bot"],
                "score": r["score"],
                "rank": r["rank"] + 1,
                "status": r["status"],
                "detail": r["detail"],
                "relative": r["score"] - mean,
            }
            for r in results
        ]
        out.append(
            MatchRow(
                id=record.match_id,
                number=record.position + 1,
                set_id=row["set_id"],
                seats=seats,
                decisions=row["decisions"],
                duration_ms=row["duration_ms"],
                replay=viewers.get(record.match_id),
            )
        )
    return out


def _faults(matches: Sequence[MatchRow]) -> list[dict[str, Any]]:
    """Every faulted seat, grouped by bot and code (most frequent first), with its matches."""
    found: dict[tuple[str, str], list[tuple[MatchRow, str]]] = {}
    for match in matches:
        for seat in match.seats:
            if seat["status"] != "ok":
                found.setdefault((seat["bot"], seat["status"]), []).append((match, seat["detail"]))
    counts = Counter({key: len(v) for key, v in found.items()})
    return [
        {"bot": bot, "code": code, "count": n, "cases": found[bot, code]}
        for (bot, code), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]


def _opponents(
    bot: str, order: Sequence[str], pairs: Mapping[tuple[str, str], tuple[int, int]]
) -> list[dict[str, Any]]:
    out = []
    for other in order:
        ahead, met = pairs.get((bot, other), (0, 0))
        if met:
            behind = pairs[other, bot][0]
            out.append({"bot": other, "met": met, "ahead": ahead, "behind": behind})
    return out


def _worst_losses(bot: str, mine: Sequence[MatchRow]) -> list[MatchRow]:
    """The matches where the bot lost and finished furthest below its table's mean score."""
    lost = [m for m in mine if (seat := m.seat_of(bot)) is not None and seat["rank"] > 1]
    lost.sort(key=lambda m: (m.seat_of(bot) or {})["relative"])
    return lost[:WORST_LOSSES]
