"""Motora positions: a state as plain data, and back, checked (README "Positions").

A position holds the table (tiles, members, idols, stocks, hands, decks in order), this turn's
effects, the random generator and the flow's stack (``state.frames``: where each running
procedure stands, such as a fight's dice or a tribe's action plan). Loading fills a blank state
and starts the rules generator, which resumes from the stack and asks the pending decision again.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..base import PositionError
from ..rng import rng_from, rng_state
from .board import BOARD
from .cards import CARDS, DECKS
from .model import LIVING, PLACED, PRISONER, SHRINE, SHRINES, Idol, Member
from .state import COUNTED, GameOver, MotoraState

PHASES = (
    "village_choice",
    "start_of_turn",
    "placement_stage_1",
    "event",
    "placement_stage_2",
    "combat",
    "actions",
    "before_consumption",
    "consumption",
    "over",
)
STATES = (*LIVING, PRISONER, SHRINE, "removed")
RESOURCES = ("food", "water", "shelter")
FIELDS = (
    "turn",
    "first_player",
    "phase",
    "tiles",
    "destroyed",
    "restricted",
    "tribes",
    "members",
    "idols",
    "decks",
    "discard",
    "event",
    "need_modifiers",
    "gathered",
    "fished",
    "result",
    "stack",
    "pending",
    "rng",
)
TRIBE_FIELDS = (
    "village",
    "food",
    "water",
    "shelter",
    "eliminated",
    "eliminated_turn",
    "hand",
    "placed_count",
    "home_used",
    "recruited",
    "plenty",
    "combat",
    "need",
    "ward",
    "procession",
    "hunts",
)
MEMBER_FIELDS = (
    "tribe",
    "state",
    "position",
    "captor",
    "shrine",
    "shrine_of",
    "placed_index",
    "stage",
    "gear",
    "new_this_turn",
    "home_first",
    "captured_this_turn",
)
IDOL_FIELDS = ("position", "owner", "shrine", "moved")


def write_position(st: MotoraState) -> dict[str, Any]:
    """The full position of ``st`` (README "Positions"); JSON-able, nothing shared with ``st``."""
    from . import GAME

    pending = st.pending()
    return {
        **GAME.envelope(st.players, st.options),
        "turn": st.turn,
        "first_player": st.first,
        "phase": st.phase,
        "tiles": dict(st.tile_at),
        "destroyed": [p for p in BOARD.positions if st.destroyed[p]],
        "restricted": [p for p in BOARD.positions if st.restricted[p]],
        "tribes": [
            {
                "village": t.village,
                "food": t.food,
                "water": t.water,
                "shelter": t.shelter,
                "eliminated": t.eliminated,
                "eliminated_turn": t.eliminated_turn,
                "hand": list(t.hand),
                "placed_count": t.placed_count,
                "home_used": t.home_used,
                "recruited": t.recruited,
                "plenty": t.plenty,
                "combat": t.combat_mod,
                "need": dict(t.need_mod),
                "ward": t.ward,
                "procession": t.procession,
                "hunts": list(t.hunts),
            }
            for t in st.tribes
        ],
        "members": [
            {
                "tribe": m.tribe,
                "state": m.state,
                "position": m.pos,
                "captor": m.captor,
                "shrine": m.shrine,
                "shrine_of": m.shrine_of,
                "placed_index": m.placed_index,
                "stage": m.stage,
                "gear": m.gear,
                "new_this_turn": m.new_this_turn,
                "home_first": m.home_first,
                "captured_this_turn": m.captured_this_turn,
            }
            for m in st.members
        ],
        "idols": [
            {"position": i.pos, "owner": i.owner, "shrine": i.shrine, "moved": i.moved}
            for i in st.idols
        ],
        "decks": {name: list(cards) for name, cards in st.decks.items()},
        "discard": list(st.discard),
        "event": st.event,
        "need_modifiers": dict(st.need_mod),
        "gathered": [p for p in BOARD.positions if st.gathered.get(p)],
        "fished": [list(key) for key, done in st.fished.items() if done],
        "result": None
        if st.result is None
        else {"reason": st.result.reason, "winners": list(st.result.winners)},
        "stack": json.loads(json.dumps(st.frames)),
        "pending": {"seat": pending[0].seat, "kind": pending[0].kind} if pending else None,
        "rng": rng_state(st.rng),
    }


def load_position(
    players: int, options: dict[str, Any], position: Mapping[str, Any], check: bool = True
) -> MotoraState:
    """A state continuing ``position`` exactly; with ``check`` every invariant is verified first.

    Positions written by :func:`write_position` of a live state are valid by construction, so
    ``clone`` skips the checks.
    """
    if check:
        _check(players, position)
    st = MotoraState.__new__(MotoraState)
    st.blank(players, options)
    _fill(st, position)
    if not check:
        st.start()
        return st
    try:
        st.start()
    except PositionError:
        raise
    except Exception as exc:  # a stack the flow cannot follow, whatever broke
        raise PositionError("stack", f"the flow cannot resume from it ({exc})") from None
    _check_pending(st, position.get("pending"))
    return st


def _fill(st: MotoraState, pos: Mapping[str, Any]) -> None:
    st.turn = pos["turn"]
    st.first = pos["first_player"]
    st.phase = pos["phase"]
    st.tile_at = {p: pos["tiles"][p] for p in BOARD.positions if p in pos["tiles"]}
    st.pos_of_tile = {tile: p for p, tile in st.tile_at.items()}
    for p in pos["destroyed"]:
        st.destroyed[p] = True
    for p in pos["restricted"]:
        st.restricted[p] = True
    for seat, raw in enumerate(pos["tribes"]):
        tribe = st.tribes[seat]
        tribe.village = raw["village"]
        tribe.village_tile = st.tile_at.get(raw["village"]) if raw["village"] else None
        tribe.food, tribe.water, tribe.shelter = raw["food"], raw["water"], raw["shelter"]
        tribe.eliminated, tribe.eliminated_turn = raw["eliminated"], raw["eliminated_turn"]
        tribe.hand = list(raw["hand"])
        tribe.placed_count, tribe.home_used = raw["placed_count"], raw["home_used"]
        tribe.recruited, tribe.plenty, tribe.combat_mod = (
            raw["recruited"],
            raw["plenty"],
            raw["combat"],
        )
        tribe.need_mod = dict(raw["need"])
        tribe.ward, tribe.procession, tribe.hunts = (
            raw["ward"],
            raw["procession"],
            list(raw["hunts"]),
        )
        if raw["village"] is not None and not raw["eliminated"]:
            st.owner[raw["village"]] = seat
    for uid, raw in enumerate(pos["members"]):
        st.members.append(
            Member(
                id=uid,
                tribe=raw["tribe"],
                state=raw["state"],
                pos=raw["position"],
                captor=raw["captor"],
                shrine=raw["shrine"],
                shrine_of=raw["shrine_of"],
                placed_index=raw["placed_index"],
                stage=raw["stage"],
                gear=raw["gear"],
                new_this_turn=raw["new_this_turn"],
                home_first=raw["home_first"],
                captured_this_turn=raw["captured_this_turn"],
            )
        )
        st.tribes[raw["tribe"]].members.append(uid)
    st.idols = [
        Idol(id=k, pos=i["position"], owner=i["owner"], shrine=i["shrine"], moved=i["moved"])
        for k, i in enumerate(pos["idols"])
    ]
    if st.phase != "village_choice":
        st.ruined = [p for p in BOARD.village_spots if p not in st.owner]
    st.decks = {name: list(pos["decks"][name]) for name in DECKS}
    st.discard = list(pos["discard"])
    st.event = pos["event"]
    st.need_mod = dict(pos["need_modifiers"])
    st.gathered = {p: True for p in pos["gathered"]}
    st.fished = {(spot, p): True for spot, p in pos["fished"]}
    if pos["result"] is not None:
        st.result = GameOver(pos["result"]["reason"], list(pos["result"]["winners"]))
    st.frames = json.loads(json.dumps(pos["stack"]))
    st.rng = rng_from(pos["rng"])


# ---------------------------------------------------------------------------- checks
def _check(players: int, pos: Mapping[str, Any]) -> None:
    """Refuse a position that breaks Motora's invariants, naming the field."""
    unknown = sorted(set(pos) - set(FIELDS) - {"game", "version", "players", "options", "form"})
    if unknown:
        raise PositionError(unknown[0], "is not a Motora position field")
    for name in FIELDS:
        if name not in pos:
            raise PositionError(name, "is missing")
    phase = pos["phase"]
    if phase not in PHASES:
        raise PositionError("phase", f"must be one of {', '.join(PHASES)}, got {phase!r}")
    _int(pos["turn"], "turn", 0)
    if (pos["turn"] == 0) != (phase == "village_choice"):
        raise PositionError("turn", "is 0 exactly during the village choice")
    _seat(pos["first_player"], players, "first_player")
    _check_tiles(pos["tiles"])
    for name in ("destroyed", "restricted", "gathered"):
        _positions(pos[name], name, BOARD.tile_spots)
    seats = range(players)
    tribes = _list(pos["tribes"], "tribes")
    if len(tribes) != players:
        raise PositionError("tribes", f"must list {players} tribes, one per seat")
    villages: list[str] = []
    for seat, raw in enumerate(tribes):
        _check_tribe(raw, f"tribes[{seat}]", phase, villages)
    if phase != "over" and pos["tribes"][pos["first_player"]]["eliminated"]:
        raise PositionError("first_player", "is an eliminated tribe")
    _check_members(pos, players)
    _check_idols(pos, players, phase)
    _check_cards(pos, phase)
    _check_counts(pos["need_modifiers"], "need_modifiers")
    fished = _list(pos["fished"], "fished")
    for k, pair in enumerate(fished):
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or pair[0] not in BOARD.fishing
            or pair[1] not in BOARD.fishing[pair[0]].fishable_from
        ):
            raise PositionError(f"fished[{k}]", "must be [spot, position that fishes it]")
    result = pos["result"]
    if (result is not None) != (phase == "over"):
        raise PositionError("result", "is set exactly when the phase is 'over'")
    if result is not None and (
        not isinstance(result, dict)
        or not isinstance(result.get("reason"), str)
        or not isinstance(result.get("winners"), list)
        or not all(w in seats for w in result["winners"])
    ):
        raise PositionError("result", "must be {reason, winners: [seat, ...]}")
    stack = _list(pos["stack"], "stack")
    for k, frame in enumerate(stack):
        if not isinstance(frame, dict) or not isinstance(frame.get("proc"), str):
            raise PositionError(f"stack[{k}]", "must be a map with a 'proc' name")
    if phase not in ("over", "village_choice") and (not stack or stack[0]["proc"] != "turn"):
        raise PositionError("stack", "must start with the turn's frame during a turn")
    rng_from(pos["rng"], "rng")


def _check_tiles(tiles: Any) -> None:
    if not isinstance(tiles, dict) or sorted(tiles) != sorted(BOARD.positions):
        raise PositionError("tiles", "must map every land position to a tile id")
    counts = Counter(tiles.values())
    for tile, n in counts.items():
        if tile not in BOARD.tiles:
            raise PositionError("tiles", f"unknown tile {tile!r}")
        if n > 1:
            raise PositionError("tiles", f"tile {tile!r} lies on {n} positions")
    for p, tile in tiles.items():
        if (p in BOARD.village_spots) != (BOARD.tiles[tile].group is None):
            raise PositionError(f"tiles.{p}", "village tiles go exactly on village spots")


def _check_tribe(raw: Any, where: str, phase: str, villages: list[str]) -> None:
    if not isinstance(raw, dict):
        raise PositionError(where, "must be a map")
    for name in TRIBE_FIELDS:
        if name not in raw:
            raise PositionError(f"{where}.{name}", "is missing")
    village = raw["village"]
    if village is None:
        if phase != "village_choice":
            raise PositionError(f"{where}.village", "every tribe has a village after setup")
    elif village not in BOARD.village_spots:
        raise PositionError(f"{where}.village", f"{village!r} is not a village spot")
    elif village in villages:
        raise PositionError(f"{where}.village", f"{village} belongs to another tribe")
    else:
        villages.append(village)
    for name in (*RESOURCES, "eliminated_turn", "placed_count", "plenty", "combat", "procession"):
        _int(raw[name], f"{where}.{name}", None if name in ("plenty", "combat") else 0)
    for name in ("eliminated", "home_used", "recruited", "ward"):
        if not isinstance(raw[name], bool):
            raise PositionError(f"{where}.{name}", "must be true or false")
    _check_counts(raw["need"], f"{where}.need")
    for k, uid in enumerate(_list(raw["hunts"], f"{where}.hunts")):
        if _uid(uid, f"{where}.hunts[{k}]").effect != "npe_hunt":
            raise PositionError(f"{where}.hunts[{k}]", "must be a played Hunting Horn")


def _check_members(pos: Mapping[str, Any], players: int) -> None:
    members = _list(pos["members"], "members")
    sizes: Counter[int] = Counter()
    carried: dict[int, str] = {}
    for k, raw in enumerate(members):
        where = f"members[{k}]"
        if not isinstance(raw, dict):
            raise PositionError(where, "must be a map")
        for name in MEMBER_FIELDS:
            if name not in raw:
                raise PositionError(f"{where}.{name}", "is missing")
        seat = _seat(raw["tribe"], players, f"{where}.tribe")
        state = raw["state"]
        if state not in STATES:
            raise PositionError(f"{where}.state", f"unknown member state {state!r}")
        if state in COUNTED:
            sizes[seat] += 1
        if (raw["position"] is not None) != (state == PLACED):
            raise PositionError(f"{where}.position", "is set exactly while the member is placed")
        if state == PLACED and raw["position"] not in BOARD.order:
            raise PositionError(f"{where}.position", f"{raw['position']!r} is not a land position")
        if (raw["captor"] is not None) != (state == PRISONER):
            raise PositionError(f"{where}.captor", "is set exactly while the member is a prisoner")
        if state == PRISONER and (
            _seat(raw["captor"], players, f"{where}.captor") == seat
            or pos["tribes"][raw["captor"]]["eliminated"]
        ):
            raise PositionError(f"{where}.captor", "must be another tribe still in the game")
        if (raw["shrine"] is not None or raw["shrine_of"] is not None) != (state == SHRINE):
            raise PositionError(f"{where}.shrine", "is set exactly while dead on a shrine")
        if state == SHRINE:
            if raw["shrine"] not in SHRINES:
                raise PositionError(f"{where}.shrine", "must be 'life' or 'death'")
            _seat(raw["shrine_of"], players, f"{where}.shrine_of")
        if pos["tribes"][seat]["eliminated"] and state in LIVING:
            raise PositionError(f"{where}.state", "an eliminated tribe has no living member")
        for name in ("placed_index", "stage"):
            _int(raw[name], f"{where}.{name}", 0)
        for name in ("new_this_turn", "home_first", "captured_this_turn"):
            if not isinstance(raw[name], bool):
                raise PositionError(f"{where}.{name}", "must be true or false")
        gear = raw["gear"]
        if gear is not None:
            if state != PLACED or gear not in pos["tribes"][seat]["hand"]:
                raise PositionError(f"{where}.gear", "only a placed member carries, from its hand")
            if not _uid(gear, f"{where}.gear").assignable:
                raise PositionError(f"{where}.gear", f"{CARDS[gear].name} is not carried gear")
            if gear in carried:
                raise PositionError(f"{where}.gear", f"card {gear} is carried by {carried[gear]}")
            carried[gear] = where
    limit = int(BOARD.constants["max_tribe_size"])
    for seat, size in sorted(sizes.items()):
        if size > limit:
            raise PositionError("members", f"tribe {seat} has {size} members, at most {limit}")


def _check_idols(pos: Mapping[str, Any], players: int, phase: str) -> None:
    idols = _list(pos["idols"], "idols")
    if phase == "village_choice" and idols:
        raise PositionError("idols", "are placed once every village is chosen")
    for k, raw in enumerate(idols):
        where = f"idols[{k}]"
        if not isinstance(raw, dict) or sorted(raw) != sorted(IDOL_FIELDS):
            raise PositionError(where, f"must be a map of {', '.join(IDOL_FIELDS)}")
        if raw["position"] is not None:
            if raw["position"] not in BOARD.order:
                raise PositionError(f"{where}.position", "must be a land position")
            if raw["owner"] is not None or raw["shrine"] is not None:
                raise PositionError(f"{where}.owner", "an idol on the board lies on no shrine")
        else:
            _seat(raw["owner"], players, f"{where}.owner")
            if raw["shrine"] not in SHRINES:
                raise PositionError(f"{where}.shrine", "an idol off the board lies on a shrine")
        if not isinstance(raw["moved"], bool):
            raise PositionError(f"{where}.moved", "must be true or false")


def _check_cards(pos: Mapping[str, Any], phase: str) -> None:
    """Every card is in exactly one place: a deck, the discard pile, the current event, a hand."""
    decks = pos["decks"]
    if not isinstance(decks, dict) or sorted(decks) != sorted(DECKS):
        raise PositionError("decks", f"must map {', '.join(DECKS)} to lists of cards")
    seen: dict[int, str] = {}
    places: list[tuple[str, Any, tuple[str, ...]]] = [
        *((f"decks.{d}", decks[d], (d,)) for d in DECKS),
        ("discard", pos["discard"], ("event",)),
        ("event", [] if pos["event"] is None else [pos["event"]], ("event",)),
        *(
            (f"tribes[{s}].hand", t["hand"], ("craftsmen", "temple"))
            for s, t in enumerate(pos["tribes"])
        ),
    ]
    for where, cards, allowed in places:
        for k, uid in enumerate(_list(cards, where)):
            card = _uid(uid, f"{where}[{k}]")
            if card.deck not in allowed:
                raise PositionError(f"{where}[{k}]", f"{card.name} is a {card.deck} card")
            if uid in seen:
                raise PositionError(f"{where}[{k}]", f"card {uid} is also in {seen[uid]}")
            seen[uid] = where
    if phase == "village_choice":
        if seen:
            raise PositionError("decks", "are dealt once every village is chosen")
        return
    missing = [uid for uid in range(len(CARDS)) if uid not in seen]
    if missing:
        raise PositionError("decks", f"card {missing[0]} ({CARDS[missing[0]].name}) is missing")


def _check_pending(st: MotoraState, pending: Any) -> None:
    if pending is None:
        return
    now = st.pending()
    if not isinstance(pending, dict) or not now:
        raise PositionError("pending", "does not match the decision the stack leads to (none)")
    decision = now[0]
    if (pending.get("seat"), pending.get("kind")) != (decision.seat, decision.kind):
        raise PositionError(
            "pending", f"the stack leads to {decision.kind!r} for seat {decision.seat}"
        )


# ---------------------------------------------------------------------------- small checks
def _int(value: Any, where: str, minimum: int | None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise PositionError(where, "must be an integer")
    if minimum is not None and value < minimum:
        raise PositionError(where, f"must be at least {minimum}, got {value}")
    return value


def _seat(value: Any, players: int, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < players:
        raise PositionError(where, f"must be a seat from 0 to {players - 1}, got {value!r}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise PositionError(where, "must be a list")
    return value


def _uid(value: Any, where: str) -> Any:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < len(CARDS):
        raise PositionError(where, f"must be a card uid from 0 to {len(CARDS) - 1}")
    return CARDS[value]


def _positions(value: Any, where: str, allowed: tuple[str, ...]) -> None:
    items = _list(value, where)
    for k, p in enumerate(items):
        if p not in allowed:
            raise PositionError(f"{where}[{k}]", f"{p!r} is not a tile spot")
    if len(set(items)) != len(items):
        raise PositionError(where, "lists a position twice")


def _check_counts(value: Any, where: str) -> None:
    if not isinstance(value, dict):
        raise PositionError(where, "must map resources to amounts")
    for resource, amount in value.items():
        if resource not in RESOURCES:
            raise PositionError(f"{where}.{resource}", "is not food, water or shelter")
        _int(amount, f"{where}.{resource}", None)
