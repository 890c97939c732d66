"""The short, hand-written form of a Motora position (README "Short positions").

Cards are named by id or name, tiles by id; what is not said takes a default: the tile layout and
deck orders shuffled from ``seed`` as at setup, six active members and the village tile's starting
stock per tribe, one idol on each unclaimed village spot. The position starts at the beginning of
the phase ``at`` of turn ``turn``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from ..base import PositionError
from ..rng import KeyedRandom, rng_state
from .board import BOARD
from .cards import CARDS, DECKS, deck_uids
from .flow import PHASE_STEPS
from .model import ACTIVE, PLACED, PRISONER, SHRINES

KEYS = (
    "form",
    "game",
    "version",
    "players",
    "options",
    "seed",
    "at",
    "turn",
    "first_player",
    "villages",
    "tiles",
    "tribes",
    "placed",
    "prisoners",
    "idols",
    "events",
    "discard",
    "destroyed",
    "restricted",
)
VILLAGES = ("r1c2", "r7c6", "r4c1", "r4c7", "r1c4", "r7c4")
TRIBE_KEYS = ("food", "water", "shelter", "members", "hand")


def expand(short: Mapping[str, Any]) -> dict[str, Any]:
    """A full position from the short form; refuses unknown keys, seats, positions and cards."""
    from . import GAME

    unknown = sorted(set(short) - set(KEYS))
    if unknown:
        raise PositionError(unknown[0], "is not a short Motora position field")
    players = short.get("players")
    if not isinstance(players, int) or isinstance(players, bool):
        raise PositionError("players", "must be an integer")
    seed = short.get("seed", 0)
    rng = KeyedRandom(seed)
    tiles = _layout(rng, short.get("tiles") or {})
    decks = {}
    for deck in DECKS:
        decks[deck] = deck_uids(deck)
        rng.shuffle(decks[deck])
    at = short.get("at", "start_of_turn")
    if at not in PHASE_STEPS:
        raise PositionError("at", f"must be one of {', '.join(PHASE_STEPS)}, got {at!r}")
    villages = list(short.get("villages") or VILLAGES[:players])
    if len(villages) != players:
        raise PositionError("villages", f"must name {players} village spots, one per seat")
    raw_tribes = short.get("tribes") or [{} for _ in range(players)]
    if not isinstance(raw_tribes, list) or len(raw_tribes) != players:
        raise PositionError("tribes", f"must list {players} tribes, one per seat")
    taken: set[int] = set()
    tribes, members = [], []
    for seat, (village, raw) in enumerate(zip(villages, raw_tribes, strict=True)):
        where = f"tribes[{seat}]"
        if village not in BOARD.village_spots:
            raise PositionError(f"villages[{seat}]", f"{village!r} is not a village spot")
        if not isinstance(raw, dict) or set(raw) - set(TRIBE_KEYS):
            raise PositionError(where, f"must be a map of {', '.join(TRIBE_KEYS)}")
        start = BOARD.tiles[tiles[village]].start or {}
        hand = [
            _card(name, f"{where}.hand[{k}]", taken) for k, name in enumerate(raw.get("hand", []))
        ]
        tribes.append(
            {
                "village": village,
                **{r: raw.get(r, start.get(r, 0)) for r in ("food", "water", "shelter")},
                "eliminated": False,
                "eliminated_turn": 0,
                "hand": hand,
                "placed_count": 0,
                "home_used": False,
                "recruited": False,
                "plenty": 0,
                "combat": 0,
                "need": {},
                "ward": False,
                "procession": 0,
                "hunts": [],
            }
        )
        counts = raw.get("members", int(BOARD.constants["starting_members"]))
        if isinstance(counts, int):
            counts = {ACTIVE: counts}
        if not isinstance(counts, dict):
            raise PositionError(f"{where}.members", "must be a count or {state: count}")
        for state, n in counts.items():
            for _ in range(n if isinstance(n, int) else 0):
                members.append(_member(seat, state))
    _place(short.get("placed") or [], members, tribes, taken)
    for k, raw in enumerate(short.get("prisoners") or []):
        member = _member(_get(raw, "seat", f"prisoners[{k}]"), PRISONER)
        member["captor"] = _get(raw, "captor", f"prisoners[{k}]")
        members.append(member)
    members.sort(key=lambda m: m["tribe"])  # ids grouped by tribe, as a game deals them
    event_top = [_card(n, f"events[{k}]", taken) for k, n in enumerate(short.get("events", []))]
    discard = [_card(n, f"discard[{k}]", taken) for k, n in enumerate(short.get("discard", []))]
    for deck in DECKS:
        rest = [uid for uid in decks[deck] if uid not in taken]
        decks[deck] = (event_top if deck == "event" else []) + rest
    return {
        **GAME.envelope(players, short.get("options") or {}),
        "turn": short.get("turn", 1),
        "first_player": short.get("first_player", 0),
        "phase": at,
        "tiles": tiles,
        "destroyed": list(short.get("destroyed", [])),
        "restricted": list(short.get("restricted", [])),
        "tribes": tribes,
        "members": members,
        "idols": _idols(short.get("idols"), villages, tiles),
        "decks": decks,
        "discard": discard,
        "event": None,
        "need_modifiers": {},
        "gathered": [],
        "fished": [],
        "result": None,
        "stack": [{"proc": "turn", "step": PHASE_STEPS[at]}],
        "pending": None,
        "rng": rng_state(rng),
    }


def _layout(rng: random.Random, wanted: Any) -> dict[str, str]:
    """The tiles shuffled as at setup, then each wanted tile swapped onto its position."""
    villages = [t.id for t in BOARD.village_tiles]
    others = [t.id for t in BOARD.other_tiles]
    rng.shuffle(villages)
    rng.shuffle(others)
    tiles = dict(zip(BOARD.village_spots + BOARD.tile_spots, villages + others, strict=True))
    if not isinstance(wanted, dict):
        raise PositionError("tiles", "must map positions to tile ids")
    for pos, tile in wanted.items():
        if pos not in tiles:
            raise PositionError(f"tiles.{pos}", "is not a land position")
        if tile not in BOARD.tiles:
            raise PositionError(f"tiles.{pos}", f"unknown tile {tile!r}")
        there = next(p for p, t in tiles.items() if t == tile)
        tiles[there], tiles[pos] = tiles[pos], tile
    return {p: tiles[p] for p in BOARD.positions}


def _member(seat: int, state: str) -> dict[str, Any]:
    return {
        "tribe": seat,
        "state": state,
        "position": None,
        "captor": None,
        "shrine": None,
        "shrine_of": None,
        "placed_index": 0,
        "stage": 0,
        "gear": None,
        "new_this_turn": False,
        "home_first": False,
        "captured_this_turn": False,
    }


def _place(
    placed: Any, members: list[dict[str, Any]], tribes: list[dict[str, Any]], taken: set[int]
) -> None:
    """Put active members on the board, in the order listed (their placement order)."""
    for k, raw in enumerate(placed):
        where = f"placed[{k}]"
        seat = _get(raw, "seat", where)
        if not isinstance(seat, int) or not 0 <= seat < len(tribes):
            raise PositionError(f"{where}.seat", f"no seat {seat!r}")
        pos = _get(raw, "position", where)
        if pos not in BOARD.order:
            raise PositionError(f"{where}.position", f"{pos!r} is not a land position")
        for _ in range(raw.get("count", 1)):
            member = next((m for m in members if m["tribe"] == seat and m["state"] == ACTIVE), None)
            if member is None:
                raise PositionError(where, f"tribe {seat} has no active member left to place")
            tribe = tribes[seat]
            tribe["placed_count"] += 1
            member.update(
                state=PLACED,
                position=pos,
                placed_index=tribe["placed_count"],
                stage=raw.get("stage", 2),
            )
            if pos == tribe["village"] and not tribe["home_used"]:
                tribe["home_used"] = member["home_first"] = True
            if raw.get("gear") is not None:
                member["gear"] = _card(raw["gear"], f"{where}.gear", taken)
                tribe["hand"].append(member["gear"])


def _idols(raw: Any, villages: list[str], tiles: dict[str, str]) -> list[dict[str, Any]]:
    """Idols as listed, or one on each unclaimed village spot (and the temple with 6 tribes)."""
    if raw is None:
        spots = [p for p in BOARD.village_spots if p not in villages]
        if len(villages) == 6:
            temple = BOARD.groups["temple"][1]
            spots.append(next(p for p, t in tiles.items() if t == temple))
        raw = [{"position": p} for p in spots]
    out = []
    for k, idol in enumerate(raw):
        if not isinstance(idol, dict):
            raise PositionError(f"idols[{k}]", "must be {position} or {owner, shrine}")
        shrine = idol.get("shrine")
        if shrine is not None and shrine not in SHRINES:
            raise PositionError(f"idols[{k}].shrine", "must be 'life' or 'death'")
        out.append(
            {
                "position": idol.get("position"),
                "owner": idol.get("owner"),
                "shrine": shrine,
                "moved": False,
            }
        )
    return out


def _get(raw: Any, key: str, where: str) -> Any:
    if not isinstance(raw, dict) or key not in raw:
        raise PositionError(f"{where}.{key}", "is missing")
    return raw[key]


def _card(name: Any, where: str, taken: set[int]) -> int:
    """The first copy not yet used of the card with this id or name."""
    for uid, card in enumerate(CARDS):
        if name in (card.id, card.name) and uid not in taken:
            taken.add(uid)
            return uid
    if any(name in (c.id, c.name) for c in CARDS):
        raise PositionError(where, f"every copy of {name!r} is already used")
    raise PositionError(where, f"unknown card {name!r}")
