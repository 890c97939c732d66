"""Positions (README "Positions"): a checkpoint of the zones plus the answers given since.

The rules run as one procedure (a generator, :mod:`.flow`) whose sub-step lives in its local
variables, so a position does not describe the sub-step field by field: it holds the zones at the
latest *checkpoint* (the start of the current turn, or where a hand-written position entered the
turn: Morning, Noon or Night) and the answers given since. Loading places the cards, enters the
turn there and replays those answers, so a copy costs one turn's worth of decisions at most,
whatever the length of the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any

from ..base import PositionError
from ..rng import KeyedRandom, rng_from, rng_state
from . import cards as C
from .model import Player

ENTRIES = ("morning", "noon", "night")
ZONES = ("hand", "waiting", "helpers", "bench", "sales", "gallery", "gift_shop")
FACE_UP = (*ZONES[2:], "waiting_known")  # every seat's zones that every seat sees
_ATTR = {zone: "shop" if zone == "gift_shop" else zone for zone in (*ZONES, "waiting_known")}
SEAT_KEYS = (*ZONES, "waiting_known", "task", "task_face_down")
TOP_KEYS = (
    "entry",
    "turn",
    "current",
    "extra_turn",
    "extra_turns",
    "doll_task",
    "kite",
    "deck_top_known",
    "seats",
    "floor",
    "deck",
    "box",
    "rng",
    "answers",
)


@dataclass
class Mark:
    """The checkpoint a state can be rebuilt from: zones (card uids) and turn counters."""

    entry: str
    extra: bool  # this turn is an extra (Frog) turn
    players: list[Player]
    floor: list[int]
    deck: list[int]  # deck[-1] is the top
    box: list[int]
    current: int
    turn_no: int
    extra_turns: int
    kite: dict[int, int]  # Kite uid -> printed card it copies
    doll_card: int | None
    top_known: bool
    rng: dict[str, Any]  # rng_state's JSON form

    def __getstate__(self) -> dict[str, Any]:
        """Pickles (snapshots) hold the checkpoint alone, not the names cached from it, so they
        are the same whether or not a view was built first."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @cached_property
    def face_up(self) -> list[dict[str, tuple[str, ...]]]:
        """Per seat, the names in its face-up zones: what every ``turn_start`` of this turn
        shows. A checkpoint never changes (the next one is a new Mark), so they are named once."""
        return [
            {zone: tuple(_names(getattr(pl, _ATTR[zone]))) for zone in FACE_UP}
            for pl in self.players
        ]

    @cached_property
    def deck_at(self) -> dict[int, int]:
        """Where each card lies in the deck, counted from the top: a ``turn_start`` names only
        the few cards revealed since, instead of testing every card of the deck."""
        return {uid: i for i, uid in enumerate(reversed(self.deck))}


def copy_player(pl: Player) -> Player:
    return Player(
        list(pl.hand),
        list(pl.waiting),
        list(pl.waiting_known),
        pl.task,
        pl.task_down,
        list(pl.helpers),
        list(pl.bench),
        list(pl.sales),
        list(pl.gallery),
        list(pl.shop),
    )


_NAMES = tuple(d.name for d in C.DEFS)  # by uid modulo the deck size


def _name(uid: int) -> str:
    return _NAMES[uid % C.DECK_SIZE]


def _names(uids: list[int]) -> list[str]:
    names, size = _NAMES, C.DECK_SIZE
    return [names[u % size] for u in uids]


def _kite_rows(mark: Mark) -> list[dict[str, Any]]:
    rows = []
    for q, pl in enumerate(mark.players):
        for w in pl.gallery + pl.shop:
            if w in mark.kite:
                rows.append({"seat": q, "copy_of": C.DEFS[mark.kite[w]].name})
    return rows


def _head(mark: Mark) -> dict[str, Any]:
    """The turn's fields a position body and a seat's ``turn_start`` both begin with."""
    me = mark.players[mark.current]
    return {
        "entry": mark.entry,
        "turn": mark.turn_no,
        "current": mark.current,
        "extra_turn": mark.extra,
        "extra_turns": mark.extra_turns,
        "doll_task": mark.doll_card is not None and mark.doll_card == me.task,
        "kite": _kite_rows(mark),
        "deck_top_known": mark.top_known,
    }


def write(mark: Mark, answers: list[int]) -> dict[str, Any]:
    """The body of a full position (everything but the envelope)."""
    seats = []
    for pl in mark.players:
        entry: dict[str, Any] = {zone: _names(getattr(pl, _ATTR[zone])) for zone in ZONES}
        entry["waiting_known"] = _names(pl.waiting_known)
        entry["task"] = None if pl.task is None else _name(pl.task)
        entry["task_face_down"] = pl.task_down
        seats.append(entry)
    body = _head(mark)
    body.update(
        seats=seats,
        floor=_names(mark.floor),
        deck=_names(mark.deck[::-1]),
        box=_names(mark.box),
        rng=dict(mark.rng),
        answers=list(answers),
    )
    return body


def seen_by(
    mark: Mark, seat: int, revealed: list[int], jars: list[tuple[int, int, int]], answers: list[int]
) -> dict[str, Any]:
    """The checkpoint as ``seat`` (the current player) knows it now: hidden cards are None.

    ``revealed`` are the uids shown to every seat since the checkpoint (cards dealt or revealed
    from the deck, a setup card turned up), ``jars`` the (opponent, material, count) of each Jar
    since; the view carries this so that a search bot can rebuild the checkpoint (:mod:`.sample`).
    """
    shown = set(revealed)
    names, size = _NAMES, C.DECK_SIZE

    def known(uid: int) -> str | None:
        return names[uid % size] if uid in shown else None

    seats = []
    for q, (pl, face_up) in enumerate(zip(mark.players, mark.face_up, strict=True)):
        entry: dict[str, Any] = {zone: list(face_up[zone]) for zone in ZONES[2:]}
        entry["hand"] = _names(pl.hand) if q == seat else [None] * len(pl.hand)
        entry["waiting"] = [_name(u) if u in pl.waiting_known else known(u) for u in pl.waiting]
        entry["waiting_known"] = list(face_up["waiting_known"])
        entry["task"] = (
            None if pl.task is None else known(pl.task) if pl.task_down else _name(pl.task)
        )
        entry["task_face_down"] = pl.task_down
        seats.append(entry)
    deck: list[str | None] = [None] * len(mark.deck)
    deck_at = mark.deck_at
    for uid in revealed:
        if (i := deck_at.get(uid)) is not None:
            deck[i] = names[uid % size]
    if mark.top_known and mark.deck:
        deck[0] = _name(mark.deck[-1])
    body = _head(mark)  # only what the seat is shown: not the whole deck named, nor the box
    body.update(
        seats=seats,
        floor=_names(mark.floor),
        deck=deck,
        answers=list(answers),
        jars=[list(j) for j in jars],
    )
    return body


# ----- reading ------------------------------------------------------------------------------


def _int(data: Mapping[str, Any], key: str, low: int, high: int | None = None) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise PositionError(key, "must be an integer")
    if value < low or (high is not None and value > high):
        top = "" if high is None else f" and at most {high}"
        raise PositionError(key, f"must be at least {low}{top}, got {value}")
    return value


def _bool(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key)
    if not isinstance(value, bool):
        raise PositionError(key, "must be true or false")
    return value


class _Cards:
    """Hands out card uids by name, each physical card once (``decks`` copies of each name)."""

    def __init__(self, decks: int) -> None:
        self.free: dict[str, list[int]] = {}
        for uid in range(C.DECK_SIZE * decks):
            self.free.setdefault(_name(uid), []).append(uid)
        self.decks = decks

    def take(self, name: Any, where: str) -> int:
        if not isinstance(name, str) or name not in C.BY_NAME:
            raise PositionError(where, f"unknown card {name!r}")
        if not self.free[name]:
            raise PositionError(
                where, f"{name!r} is one card too many ({self.decks} in play, in another zone)"
            )
        return self.free[name].pop(0)

    def many(self, names: Any, where: str) -> list[int]:
        if not isinstance(names, list):
            raise PositionError(where, "must be a list of card names")
        return [self.take(n, f"{where}[{i}]") for i, n in enumerate(names)]

    def left(self) -> list[str]:
        """Names of the cards not handed out yet, in card-uid order."""
        return _names(sorted(u for uids in self.free.values() for u in uids))


def _seat(cards: _Cards, raw: Any, where: str) -> Player:
    if not isinstance(raw, Mapping):
        raise PositionError(where, "must be a map")
    unknown = sorted(set(raw) - set(SEAT_KEYS))
    if unknown:
        raise PositionError(f"{where}.{unknown[0]}", "is not a seat field")
    pl = Player()
    for zone in ZONES:
        setattr(pl, _ATTR[zone], cards.many(raw.get(zone, []), f"{where}.{zone}"))
    known = raw.get("waiting_known", [])
    if not isinstance(known, list):
        raise PositionError(f"{where}.waiting_known", "must be a list of card names")
    pool = list(pl.waiting)
    for i, name in enumerate(known):
        match = [u for u in pool if _name(u) == name]
        if not match:
            raise PositionError(f"{where}.waiting_known[{i}]", f"{name!r} is not waiting")
        pool.remove(match[0])
        pl.waiting_known.append(match[0])
    if raw.get("task") is not None:
        pl.task = cards.take(raw["task"], f"{where}.task")
    pl.task_down = bool(raw.get("task_face_down", False))
    if pl.task_down and pl.task is None:
        raise PositionError(f"{where}.task_face_down", "there is no task")
    return pl


def read(data: Mapping[str, Any], players: int, decks: int) -> tuple[Mark, list[int]]:
    """Check a full position's body and build its checkpoint; also the answers to replay."""
    unknown = sorted(set(data) - set(TOP_KEYS) - {"game", "version", "players", "options"})
    if unknown:
        raise PositionError(unknown[0], "is not a position field")
    missing = [k for k in TOP_KEYS if k not in data]
    if missing:
        raise PositionError(missing[0], "is missing")
    if data["entry"] not in ENTRIES:
        raise PositionError("entry", f"must be one of {', '.join(ENTRIES)}")
    current = _int(data, "current", 0, players - 1)
    seats = data["seats"]
    if not isinstance(seats, list) or len(seats) != players:
        raise PositionError("seats", f"must list {players} seats")
    cards = _Cards(decks)
    table = [_seat(cards, raw, f"seats[{q}]") for q, raw in enumerate(seats)]
    for q, pl in enumerate(table):
        if pl.waiting and q != current:
            raise PositionError(f"seats[{q}].waiting", "only the current seat has waiting cards")
    floor = cards.many(data["floor"], "floor")
    deck = cards.many(data["deck"], "deck")[::-1]
    box = cards.many(data["box"], "box")
    left = cards.left()
    if left:
        raise PositionError("deck", f"cards in no zone: {', '.join(left[:5])}")
    kite = _kites(data["kite"], table)
    doll = _bool(data, "doll_task")
    if doll and table[current].task is None:
        raise PositionError("doll_task", "the current seat has no task")
    answers = data["answers"]
    if not isinstance(answers, list) or not all(
        isinstance(a, int) and not isinstance(a, bool) and a >= 0 for a in answers
    ):
        raise PositionError("answers", "must be a list of option indices")
    mark = Mark(
        entry=data["entry"],
        extra=_bool(data, "extra_turn"),
        players=table,
        floor=floor,
        deck=deck,
        box=box,
        current=current,
        turn_no=_int(data, "turn", 0),
        extra_turns=_int(data, "extra_turns", 0),
        kite=kite,
        doll_card=table[current].task if doll else None,
        top_known=_bool(data, "deck_top_known") and bool(deck),
        rng=rng_state(rng_from(data["rng"])),
    )
    return mark, list(answers)


def _kites(rows: Any, table: list[Player]) -> dict[int, int]:
    """Kite copies: each row goes to its seat's next Kite work (gallery, then gift shop)."""
    if not isinstance(rows, list):
        raise PositionError("kite", "must be a list of {seat, copy_of}")
    kite: dict[int, int] = {}
    for i, row in enumerate(rows):
        where = f"kite[{i}]"
        if not isinstance(row, Mapping):
            raise PositionError(where, "must be a map {seat, copy_of}")
        q = row.get("seat")
        if not isinstance(q, int) or isinstance(q, bool) or not 0 <= q < len(table):
            raise PositionError(f"{where}.seat", f"no seat {q!r}")
        copied = row.get("copy_of")
        if copied not in C.BY_NAME:
            raise PositionError(f"{where}.copy_of", f"unknown card {copied!r}")
        kites = [
            w for w in table[q].gallery + table[q].shop if _name(w) == "Kite" and w not in kite
        ]
        if not kites:
            raise PositionError(f"{where}.seat", f"seat {q} has no Kite work left to copy with")
        kite[kites[0]] = C.BY_NAME[copied].index
    return kite


# ----- the short form -----------------------------------------------------------------------


def expand(short: Mapping[str, Any], players: int, decks: int) -> dict[str, Any]:
    """A full position body from the short form: names, defaults, unnamed cards placed.

    Cards not named anywhere go below the named ``deck`` cards in an order shuffled by
    ``seed`` (default 0), or into ``box`` (out of play) with ``exact_deck: true``.
    """
    allowed = {*TOP_KEYS, "form", "seed", "exact_deck", "game", "version", "players", "options"}
    unknown = sorted(set(short) - allowed)
    if unknown:
        raise PositionError(unknown[0], "is not a short-position field")
    seats = short.get("seats", [])
    if not isinstance(seats, list) or len(seats) > players:
        raise PositionError("seats", f"must list at most {players} seats")
    full_seats = []
    cards = _Cards(decks)
    for q in range(players):
        raw = seats[q] if q < len(seats) else {}
        pl = _seat(cards, raw, f"seats[{q}]")
        entry: dict[str, Any] = {zone: list(raw.get(zone, [])) for zone in ZONES}
        entry["waiting_known"] = list(raw.get("waiting_known", []))
        entry["task"] = raw.get("task")
        entry["task_face_down"] = pl.task_down
        full_seats.append(entry)
    floor = list(short.get("floor", []))
    deck = list(short.get("deck", []))
    box = list(short.get("box", []))
    for where, names in (("floor", floor), ("deck", deck), ("box", box)):
        cards.many(names, where)
    seed = short.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise PositionError("seed", "must be an integer")
    rng = KeyedRandom(seed)
    rest = cards.left()
    rng.shuffle(rest)
    if short.get("exact_deck", False):
        box += rest
    else:
        deck += rest[::-1]
    return {
        "entry": short.get("entry", "morning"),
        "turn": short.get("turn", 0),
        "current": short.get("current", 0),
        "extra_turn": short.get("extra_turn", False),
        "extra_turns": short.get("extra_turns", 0),
        "doll_task": short.get("doll_task", False),
        "kite": list(short.get("kite", [])),
        "deck_top_known": short.get("deck_top_known", False),
        "seats": full_seats,
        "floor": floor,
        "deck": deck,
        "box": box,
        "rng": short["rng"] if "rng" in short else rng_state(rng),
        "answers": list(short.get("answers", [])),
    }
