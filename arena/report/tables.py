"""Ladder reports as text: a terminal table, Markdown, CSV or JSON.

Tables show ranks from 1 (best), as ``arena play`` does; JSON and CSV keep the database's
ranks counted from 0 and full-precision numbers, for scripts. A terminal table is cut to the
terminal's width by leaving out its least useful columns (``width=None`` keeps them all).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

from tabulate import tabulate

from arena.ladder.ratings import BotStats
from arena.ladder.stats import Estimate, skew_warning
from arena.ladder.tally import Comparison, SeatEffect

FORMATS = ("table", "markdown", "csv", "json")
_TABLEFMT = {"table": "simple", "markdown": "github"}


def render(headers: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str, data: Any) -> str:
    """``rows`` under ``headers`` as a table, Markdown or CSV; ``data`` as JSON."""
    if fmt == "json":
        return json.dumps(data, indent=2)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(headers)
        writer.writerows(rows)
        return out.getvalue().rstrip("\n")
    return tabulate(rows, headers=list(headers), tablefmt=_TABLEFMT[fmt], disable_numparse=True)


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _interval(est: Estimate) -> str:
    """``[low, high]``, or ``-`` with no set."""
    if est.ci is None:
        return "-"
    return f"[{_num(est.ci[0])}, {_num(est.ci[1])}]"


def _with_interval(est: Estimate) -> str:
    """``mean [low, high]``, or ``-`` with no set."""
    if est.ci is None:
        return "-"
    return f"{_num(est.mean)} {_interval(est)}"


ANYTIME = "95% anytime"
"""How every interval is labelled: a 95 % confidence sequence, valid however often one looks."""


def fit(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], drop: Sequence[str], width: int | None
) -> tuple[list[str], list[list[Any]]]:
    """Leave out columns, in the order of ``drop``, until the terminal table fits ``width``."""
    keep = list(headers)
    for name in [None, *drop]:
        if name is not None:
            keep.remove(name)
        index = [headers.index(h) for h in keep]
        kept = [[row[i] for i in index] for row in rows]
        text = tabulate(kept, headers=keep, tablefmt=_TABLEFMT["table"], disable_numparse=True)
        if width is None or max(map(len, text.splitlines()), default=0) <= width:
            break
    return keep, kept


# Ladder table columns, the first to leave out first when the terminal is narrow.
_LADDER_DROP = ("mu", "sigma", "wins", "mean score", "mean rank", "win %", "games", "faults")


def _faults(faults: Mapping[str, int]) -> str:
    return " ".join(f"{code}:{n}" for code, n in faults.items()) or "-"


def place_labels(stats: Sequence[BotStats]) -> list[str]:
    """Places from 1; ``2=`` for every bot of a group whose order is not established (see
    :func:`arena.ladder.ratings.established_orders`: Holm over every ordered pair)."""
    labels = []
    for i, s in enumerate(stats):
        shared = s.tied or (i + 1 < len(stats) and stats[i + 1].tied)
        labels.append(f"{s.place}{'=' if shared else ''}")
    return labels


def ladder_table(
    stats: Sequence[BotStats], fmt: str, header: Mapping[str, Any], width: int | None = None
) -> str:
    """The ladder: rating order, rating, results and the relative-score interval; a terminal
    table is cut to ``width`` columns of text."""
    if fmt == "csv":
        headers = list(stats[0].as_dict()) if stats else ["bot"]
        rows = [[_csv(v) for v in s.as_dict().values()] for s in stats]
        return render(headers, rows, fmt, None)
    headers = [
        "#",
        "bot",
        "mu-3σ",
        "mu",
        "sigma",
        "games",
        "wins",
        "win %",
        "mean rank",
        "mean score",
        f"rel. score [{ANYTIME}]",
        "faults",
    ]
    rows = []
    for place, s in zip(place_labels(stats), stats, strict=True):
        rows.append(
            [
                place,
                s.bot,
                _num(s.rating.conservative),
                _num(s.rating.mu),
                _num(s.rating.sigma),
                s.games,
                s.wins,
                _num(100 * s.wins / s.games, 1) if s.games else "-",
                _num(None if s.mean_rank is None else s.mean_rank + 1),
                _num(s.mean_score),
                _with_interval(s.relative),
                _faults(s.faults),
            ]
        )
    if fmt == "table":
        headers, rows = fit(headers, rows, _LADDER_DROP, width)
    return render(headers, rows, fmt, {**header, "bots": [s.as_dict() for s in stats]})


def _csv(value: Any) -> Any:
    if isinstance(value, dict | list):
        return json.dumps(value)
    return "" if value is None else value


# Database columns that hold JSON text: decoded for ``-f json``, so nothing is encoded twice.
_JSON_COLUMNS = ("seats", "options", "outcome", "warnings", "incidents")


def _decoded(row: Mapping[str, Any]) -> dict[str, Any]:
    out = {
        k: json.loads(v) if k in _JSON_COLUMNS and isinstance(v, str) else v for k, v in row.items()
    }
    if "results" in out:
        out["results"] = [_decoded(seat) for seat in out["results"]]
    return out


def matches_table(rows: Sequence[Mapping[str, Any]], fmt: str) -> str:
    """Stored matches in schedule order: seats in order, scores, ranks and faults."""
    if fmt == "json":
        return render([], [], fmt, [_decoded(r) for r in rows])
    table = []
    for r in rows:
        seats = r["results"]
        faults = [f"{s['bot']}:{s['status']}" for s in seats if s["status"] != "ok"]
        ranks = [s["rank"] + (fmt != "csv") for s in seats]
        table.append(
            [
                r["position"],
                r["round"],
                r["set_id"],
                r["id"],
                " ".join(s["bot"] for s in seats),
                " ".join(f"{s['score']:g}" for s in seats),
                " ".join(str(x) for x in ranks),
                " ".join(faults) or "-",
                round(r["duration_ms"]),
            ]
        )
    headers = ["pos", "round", "set", "match", "seats", "scores", "ranks", "faults", "ms"]
    return render(headers, table, fmt, None)


def h2h_table(
    bots: Sequence[str], pairs: Mapping[tuple[str, str], tuple[int, int]], fmt: str
) -> str:
    """Share of meetings in which the row bot finished ahead of the column bot."""
    data = {
        a: {b: {"ahead": pairs[a, b][0], "met": pairs[a, b][1]} for b in bots if (a, b) in pairs}
        for a in bots
    }
    rows = []
    for a in bots:
        cells = []
        for b in bots:
            ahead, met = pairs.get((a, b), (0, 0))
            if fmt == "csv":
                cells.append(f"{ahead / met:.4f}" if met else "")
            else:
                cells.append(f"{100 * ahead / met:.0f}% ({met})" if met else "-")
        rows.append([a, *cells])
    return render(["ahead of →", *bots], rows, fmt, data)


def _share(count: int, share: float | None) -> str:
    return f"{count} ({_num(None if share is None else 100 * share, 1)}%)"


def compare_table(c: Comparison, fmt: str) -> str:
    """A against B: paired relative-score difference and sets won, each with its anytime
    interval, who finished ahead in matches, and the verdict at the end (with a note first
    when the per-set values are skewed)."""
    d = c.as_dict()
    difference, won = c.difference, c.sets_won
    rows = [
        ["duplicate sets both played", d["sets"]],
        [
            "a set's difference can range over",
            f"[{c.bounds.low:g}, {c.bounds.high:g}] (the game's score range)",
        ],
        [f"mean relative score, {c.a} minus {c.b}", _num(difference.mean)],
        [f"{ANYTIME} (valid at every look)", _interval(difference)],
        [f"sets {c.a} ahead / {c.b} ahead / level", " / ".join(map(str, c.set_counts))],
        [f"sets won, {c.a} minus {c.b}, per set", _with_interval(won)],
        ["matches both played", c.matches],
        [f"matches {c.a} ranked ahead", _share(c.a_ahead, d["a_ahead_share"])],
        [f"matches {c.b} ranked ahead", _share(c.b_ahead, d["b_ahead_share"])],
        ["matches level", d["ties"]],
    ]
    if fmt == "csv":
        return render(list(d), [[_csv(v) for v in d.values()]], fmt, None)
    if fmt == "json":
        return render([], [], fmt, d)
    notes = [n for n in (skew_warning(difference), c.verdict) if n]
    if fmt == "table":  # two columns of label and value need no header row
        return tabulate(rows, tablefmt="plain", disable_numparse=True) + "\n\n" + "\n".join(notes)
    return render(["", ""], rows, fmt, d) + "\n\n" + "\n".join(notes)


def seats_table(effects: Sequence[SeatEffect], fmt: str) -> str:
    """Per seat position: wins, mean rank and score, relative score with its interval."""
    data = [e.as_dict() for e in effects]
    if fmt == "csv":
        return render(
            list(data[0]) if data else [], [[_csv(v) for v in d.values()] for d in data], fmt, None
        )
    rows = [
        [
            e.seat,
            e.matches,
            f"{e.wins} ({_num(100 * e.wins / e.matches if e.matches else None, 1)}%)",
            _num(None if e.mean_rank is None else e.mean_rank + 1),
            _num(e.mean_score),
            e.relative.sets,
            _num(e.relative.mean),
            _interval(e.relative),
        ]
        for e in effects
    ]
    headers = ["seat", "matches", "wins", "mean rank", "mean score", "sets", "rel. score", ANYTIME]
    return render(headers, rows, fmt, data)
