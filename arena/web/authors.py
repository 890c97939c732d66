"""What the authors' API does behind its endpoints (``api.py``): an upload unpacked, checked and
stored as a ``queued`` version; one of an author's own versions found; a version queued for its
gate again; an author's own matches and ratings. Each refuses with a :class:`Refused`."""

from __future__ import annotations

import functools
import json
from typing import Any

from arena.ladder.ratings import HistoryRow
from arena.names import clash, clash_message
from arena.registry.content import ContentError
from arena.registry.gate import store
from arena.registry.manifest import ManifestError, pick
from arena.registry.store import RECHECKABLE, Registry, RegistryError, Version, parse_ref
from arena.web.accounts import AccountError, Accounts
from arena.web.archive import ArchiveError, unpack
from arena.web.competition import Competition
from arena.web.gates import Busy, GateQueue, remove, upload_folder
from arena.web.history import History
from arena.web.pages import versions_of
from arena.web.state import Refused, reading


def submit(
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


def own(competition: Competition, accounts: Accounts, author: str, ref: str) -> Version:
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


def requeue(competition: Competition, gates: GateQueue, author: str, v: Version) -> Version:
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


def version_json(v: Version) -> dict[str, Any]:
    return {
        "version": v.ref,
        "status": v.status,
        "reason": v.reason,
        "hash": v.hash,
        "files": v.files,
        "bytes": v.bytes,
        "submitted_at": v.submitted_at,
    }


def mine(
    competition: Competition, accounts: Accounts, author: str, history: History
) -> dict[str, Any]:
    """The author's versions, their published matches with their own seats' stderr tails and
    incidents, and their versions' ratings after each match (over time): reads of the
    author's own matches only."""
    bots = accounts.bots_of(author)
    versions = [v for b in bots for v in versions_of(competition, b)]
    own_refs = {v.ref for v in versions}
    matches: list[dict[str, Any]] = []
    history_rows: list[HistoryRow] = []
    with reading(competition) as ladder:
        if ladder is not None and own_refs:
            rows = sorted(ladder.published_matches(None, 0, sorted(own_refs)),
                          key=lambda r: r["id"])  # fmt: skip
            seats = ladder.seats_of([r["id"] for r in rows])
            matches = [
                {
                    "match": r["id"],
                    "finished_at": r["finished_at"],
                    "seats": [_seat_json(s, s["bot"] in own_refs) for s in seats[r["id"]]],
                }
                for r in rows
            ]
            history_rows = history.rows_of(ladder, sorted(own_refs))
    ratings = [
        {"version": h.bot, "match": h.match_id, "mu": h.mu, "sigma": h.sigma} for h in history_rows
    ]
    return {
        "author": author,
        "bots": bots,
        "versions": [version_json(v) for v in versions],
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
