"""Ladder reports as text: a terminal table, Markdown, CSV or JSON.

Tables show ranks from 1 (best), as ``arena play`` does; JSON and CSV keep the database's
ranks counted from 0 and full-precision numbers, for scripts.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

from tabulate import tabulate

from arena.ladder.ratings import BotStats, Comparison, SeatEffect

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


def _faults(faults: Mapping[str, int]) -> str:
    return " ".join(f"{code}:{n}" for code, n in faults.items()) or "-"


def ladder_table(stats: Sequence[BotStats], fmt: str, header: Mapping[str, Any]) -> str:
    """The ladder: rating order, rating, results and the relative-score interval."""
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
        "rel. score [95% CI]",
        "faults",
    ]
    rows = []
    for place, s in enumerate(stats, 1):
        ci = f" [{_num(s.relative_ci[0])}, {_num(s.relative_ci[1])}]" if s.relative_ci else ""
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
                _num(s.relative) + ci,
                _faults(s.faults),
            ]
        )
    return render(headers, rows, fmt, {**header, "bots": [s.as_dict() for s in stats]})


def _csv(value: Any) -> Any:
    if isinstance(value, dict | list):
        return json.dumps(value)
    return "" if value is None else value


def matches_table(rows: Sequence[Mapping[str, Any]], fmt: str) -> str:
    """Stored matches in schedule order: seats in order, scores, ranks and faults."""
    if fmt == "json":
        return render([], [], fmt, list(rows))
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


def compare_table(c: Comparison, fmt: str) -> str:
    """A against B: paired relative-score difference with its interval, and who was ahead."""
    d = c.as_dict()
    ci = f"[{_num(c.ci[0])}, {_num(c.ci[1])}]" if c.ci else "-"
    share = d["a_ahead_share"]
    rows = [
        ["duplicate sets both played", c.sets],
        [f"mean relative score, {c.a} minus {c.b}", _num(c.mean_difference)],
        ["95% CI (bootstrap over sets)", ci],
        ["matches both played", c.matches],
        [
            f"{c.a} ahead of {c.b}",
            f"{c.a_ahead} ({_num(None if share is None else 100 * share, 1)}%)",
        ],
        [f"{c.b} ahead of {c.a}", c.b_ahead],
        ["ties", d["ties"]],
    ]
    if fmt == "csv":
        return render(list(d), [[_csv(v) for v in d.values()]], fmt, None)
    return render(["", ""], rows, fmt, d)


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
            e.sets,
            _num(e.relative),
            f"[{_num(e.relative_ci[0])}, {_num(e.relative_ci[1])}]" if e.relative_ci else "-",
        ]
        for e in effects
    ]
    headers = ["seat", "matches", "wins", "mean rank", "mean score", "sets", "rel. score", "95% CI"]
    return render(headers, rows, fmt, data)
