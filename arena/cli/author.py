"""``arena bot status --server URL``: an author's bots as a competition server sees them.

What authors ask a platform first: did my last upload get in, does it crash, and why. For each
bot this prints its latest version's status (with the build or validation report that rejected
it), the current rating, and every faulted seat since that upload with the referee's words,
the incidents and the stderr tail, newest first, and where to watch the match. When the latest
upload did not get in (rejected, waiting, in its gate), the matches are those of the version
that plays on, and the status says so.

Everything the server sends came from bots (names, logs): it is printed as plain text, control
characters removed, so a bot's stderr cannot move the cursor, clear or retitle the terminal.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from typing import Any, NoReturn

import typer

from arena.ladder.ratings import Rating
from arena.match.replay import log_lines
from arena.registry.store import parse_ref
from arena.sandbox import clean_output
from arena.web.client import ClientError, mine, version

FORMATS = ("text", "json")
LISTED = 10  # faulted seats listed in full, newest first
LOG_HEAD, LOG_TAIL = 5, 15  # stderr lines shown: a crash's first words and its last
REPORT_LINES = 20  # of a rejected version's build log or validation report


def _fail(message: str) -> NoReturn:
    typer.echo(f"arena: error: {clean_output(message)}", err=True)
    raise typer.Exit(2)


def print_status(server: str, token: str, name: str | None, fmt: str, log: bool = False) -> None:
    """Fetch ``GET /api/bots/mine`` and print it as ``fmt``; exit 2 when it cannot be had.
    Each latest version's reports are fetched too when it was not accepted, or with ``log``
    (then printed whole)."""
    if fmt not in FORMATS:
        _fail(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if not token:
        _fail("--server needs your author token (--token, or $ARENA_AUTHOR_TOKEN)")
    try:
        found = mine(server, token)
    except ClientError as exc:
        _fail(str(exc))
    if fmt == "json":  # re-encoded with \\u escapes: safe on a terminal, the same document
        typer.echo(json.dumps(found, indent=2))
        return
    bots = found["bots"]
    if name is not None:
        if name not in bots:
            _fail(f"{name}: not one of your bots on {server} (yours: {', '.join(bots) or 'none'})")
        bots = [name]
    url = server.rstrip("/")
    try:
        reports = {
            ref: version(server, token, ref)
            for ref, status in _latest(found, bots).items()
            if log or status in ("rejected", "waiting")
        }
    except ClientError as exc:
        _fail(str(exc))
    blocks = [f"{found['author']}'s bots on {url}"]
    blocks += ["\n".join(bot_status(found, bot, url, reports, log)) for bot in bots]
    if not bots:
        blocks.append(f"none yet: `arena bot submit PATH --server {url}` sends one")
    typer.echo(clean_output("\n\n".join(blocks)))


def _versions(found: dict[str, Any], bot: str) -> list[dict[str, Any]]:
    """``bot``'s versions in a ``/api/bots/mine`` answer, oldest first."""
    return sorted(
        (v for v in found["versions"] if parse_ref(v["version"])[0] == bot),
        key=lambda v: parse_ref(v["version"])[1] or 0,  # a listed version always has its @N
    )


def _latest(found: dict[str, Any], bots: list[str]) -> dict[str, str]:
    """Each bot's latest version and its status."""
    latest = [versions[-1] for bot in bots if (versions := _versions(found, bot))]
    return {v["version"]: v["status"] for v in latest}


def bot_status(
    found: dict[str, Any],
    bot: str,
    url: str,
    reports: dict[str, dict[str, Any]] | None = None,
    log: bool = False,
) -> list[str]:
    """The lines for one bot of a ``/api/bots/mine`` answer (``reports``: versions with their
    build logs and validation reports, by name; ``log``: print them whole)."""
    versions = _versions(found, bot)
    if not versions:
        return [f"{bot}: no version stored"]
    latest = versions[-1]
    reason = latest["reason"].splitlines()[0] if latest["reason"] else ""
    lines = [
        f"{bot}: {latest['version']} {latest['status']}" + (f" ({reason})" if reason else ""),
        f"  uploaded   {_when(latest['submitted_at'])}",
    ]
    full = (reports or {}).get(latest["version"])
    if full is not None and log:
        for title in ("build_log", "validation"):
            if full[title]:
                lines.append(f"  {title.replace('_', ' ')}")
                lines += [f"  | {line}" for line in full[title].splitlines()]
    elif full is not None:
        report = full["validation"] or full["build_log"]
        lines += [f"  | {line}" for line in report.splitlines()[-REPORT_LINES:]]
    lines.append(_rating(found, versions))
    current = _playing(versions)
    if current is None:
        return [*lines, f"  no match: no version of {bot} was accepted yet"]
    label = "since the upload"
    if current is not latest:  # the latest never got in: the matches are an earlier version's
        label = (
            f"since {current['version']}'s upload ({current['version']} plays on: "
            f"{latest['version']} is {latest['status']})"
        )
    since = [
        (match, seat)
        for match in found["matches"]
        if match["finished_at"] >= current["submitted_at"]
        for seat in match["seats"]
        if seat["bot"] == current["version"]
    ]
    return lines + _since_upload(since, url, label)


PLAYED = ("active", "suspended", "retired")  # a version that got through its gate


def _playing(versions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The version whose matches the status describes: the latest if it got through its gate,
    else the newest active one before it (which plays on), else None."""
    if versions[-1]["status"] in PLAYED:
        return versions[-1]
    return next((v for v in reversed(versions) if v["status"] == "active"), None)


def _rating(found: dict[str, Any], versions: list[dict[str, Any]]) -> str:
    """The rating of the newest active version (else of the newest rated one) after its last
    match, and how many matches it played."""
    rated = {r["version"] for r in found["ratings"]}
    active = [v for v in versions if v["status"] == "active"]
    chosen = (active or [v for v in versions if v["version"] in rated] or versions)[-1]["version"]
    history = [r for r in found["ratings"] if r["version"] == chosen]
    played = sum(any(s["bot"] == chosen for s in m["seats"]) for m in found["matches"])
    if not history:
        return f"  rating     {chosen}: not rated yet ({played} matches)"
    now = Rating(history[-1]["mu"], history[-1]["sigma"])
    return (
        f"  rating     {chosen}: mu {now.mu:.1f}, sigma {now.sigma:.1f} "
        f"(conservative {now.conservative:.1f}) after {played} matches"
    )


def _since_upload(
    seats: list[tuple[dict[str, Any], dict[str, Any]]], url: str, label: str
) -> list[str]:
    """Counts of a version's seats since its upload (``label`` says which) by status, then each
    faulted seat, newest first: match, referee's words, incidents, stderr tail, where to watch."""
    if not seats:
        return [f"  {label}: no match played yet"]
    counts = Counter(seat["status"] for _, seat in seats)
    ordered = sorted(counts.items(), key=lambda item: (item[0] != "ok", -item[1], item[0]))
    matches = len({match["match"] for match, _ in seats})
    lines = [
        f"  {label}: {len(seats)} seats in {matches} matches: "
        + ", ".join(f"{count} {status}" for status, count in ordered)
    ]
    faulted = sorted(
        ((m, s) for m, s in seats if s["status"] != "ok"),
        key=lambda ms: (-ms[0]["finished_at"], ms[0]["match"], ms[1]["seat"]),
    )
    for match, seat in faulted[:LISTED]:
        lines.append(
            f"  - {seat['status']} in match {match['match']} (seat {seat['seat']}, "
            f"{_when(match['finished_at'])}): {seat['detail']}"
        )
        lines.append(f"    watch     {url}/matches/{match['match']}")
        for incident in seat.get("incidents", []):
            lines.append(f"    incident  {_incident(incident)}")
        lines += [
            f"    | {line}" for line in log_lines(seat.get("log_tail", ""), LOG_HEAD, LOG_TAIL)
        ]
    if len(faulted) > LISTED:
        lines.append(
            f"  ... and {len(faulted) - LISTED} more faulted seats (--format json has them)"
        )
    return lines


def _incident(incident: dict[str, Any]) -> str:
    """One incident: its code, whether it forfeited the seat, the request it came at, the
    referee's words and an excerpt of what the bot sent."""
    text: str = incident["code"] + (" (fatal)" if incident.get("fatal") else "")
    if incident.get("seq") is not None:
        text += f", seq {incident['seq']} {incident.get('kind') or ''}".rstrip()
    text += f": {incident['detail']}"
    return text + (f" (it sent {incident['message']})" if incident.get("message") else "")


def _when(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
