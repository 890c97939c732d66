"""What one seat may see (RULES.md 18): everything public plus its own hand.

The view is rebuilt for every decision a bot is sent, so it is kept compact: members, idols and
tribes are rows (lists in the field order of ``MEMBER_FIELDS``, ``IDOL_FIELDS`` and
``TRIBE_FIELDS``, which the welcome data also lists) instead of one map each. A row costs a
fraction of a map, and a map of over 16 keys (a tribe's) costs several times more again.
"""

from __future__ import annotations

from itertools import compress
from typing import TYPE_CHECKING, Any

import msgpack

from .board import BOARD
from .cards import CARDS, public_card
from .model import REMOVED, SHRINE

if TYPE_CHECKING:
    from .state import MotoraState

MEMBER_FIELDS = (
    "tribe",
    "state",
    "position",
    "captor",
    "placed_index",
    "stage",
    "gear",
    "home_first",
    "new_this_turn",
)
IDOL_FIELDS = ("position", "owner", "shrine", "moved")
TRIBE_FIELDS = (
    "seat",
    "eliminated",
    "village",
    "village_tile",
    "food",
    "water",
    "shelter",
    "tribe_size",
    "idols_life",
    "idols_death",
    "dead_life",
    "dead_death",
    "life_bonus",
    "death_bonus",
    "face_down_craftsmen",
    "face_down_temple",
    "plenty",
    "combat",
    "need",
    "ward",
    "procession",
    "hunts",
    "recruited",
)
GONE = (SHRINE, REMOVED)  # members no longer counted in their tribe
CARD_IDS = tuple(c.id for c in CARDS)  # card id by uid, for the event discard


def view(st: MotoraState, seat: int) -> dict[str, Any]:
    """The README's view, built afresh for every call (nothing in it is cached)."""
    members, carried_by, size, dead = _members(st)
    return {
        "seat": seat,
        "players": st.players,
        "turn": st.turn,
        "phase": st.phase,
        "first_player": st.first,
        "turn_order": st.order(),
        "to_act": [d.seat for d in st.pending()],
        "idols_required": BOARD.idols_required[st.players],
        "board": _board(st),
        "members": members,
        "idols": [[i.pos, i.owner, i.shrine, i.moved] for i in st.idols],
        "tribes": _tribes(st, carried_by, size, dead),
        "decks": {name: len(cards) for name, cards in st.decks.items()},
        "event_discard": list(map(CARD_IDS.__getitem__, st.discard)),
        "current_event": public_card(st.event) if st.event is not None else None,
        "need_modifiers": dict(st.need_mod),
        "fight": st.fight,
        "hand": _hand(st, seat, carried_by),
        "gathered": sorted(st.gathered, key=BOARD.order.__getitem__) if st.gathered else [],
        "fished": [list(pair) for pair in st.fished],
        "stack": _stack(st, seat),
    }


def _stack(st: MotoraState, seat: int) -> list[dict[str, Any]] | None:
    """The flow's stack for the seat being asked (all of it is public or its own; search bots
    rebuild the decision from it), None for any other seat."""
    pending = st.pending()
    if not pending or pending[0].seat != seat:
        return None
    # A copy, since the flow goes on changing its frames. They hold only what JSON holds
    # (positions store them as JSON), and a round trip through msgpack gives the same lists,
    # maps and strings for a third of the CPU of one through json.
    return msgpack.unpackb(msgpack.packb(st.frames))


def public_data() -> dict[str, Any]:
    """Static facts for the ``welcome`` message: the island, the tile pool and the card texts."""
    return {
        "map": list(BOARD.grid),
        "positions": [
            {
                "position": p,
                "village_spot": p in BOARD.village_spots,
                "neighbours": list(BOARD.neighbours[p]),
                "fishing": list(BOARD.fishing_near[p]),
            }
            for p in BOARD.positions
        ],
        "fishing": [
            {"id": f.id, "food": f.food, "fishable_from": list(f.fishable_from)}
            for f in BOARD.fishing.values()
        ],
        "tiles": [
            {
                "id": t.id,
                "name": t.name,
                "group": t.group or "village",
                "d6": list(t.d6),
                "special": t.special,
                "gather": [dict(o) for o in t.gather],
                "start": dict(t.start) if t.start else None,
            }
            for t in BOARD.village_tiles + BOARD.other_tiles
        ],
        "eruption": list(BOARD.eruption),
        "idols_required": {str(k): v for k, v in BOARD.idols_required.items()},
        "member_fields": list(MEMBER_FIELDS),
        "idol_fields": list(IDOL_FIELDS),
        "tribe_fields": list(TRIBE_FIELDS),
        "cards": [
            {
                "uid": uid,
                "card": c.id,
                "name": c.name,
                "deck": c.deck,
                "kind": c.kind,
                "window": c.window,
                "params": dict(c.params),
                "text": c.text,
            }
            for uid, c in enumerate(CARDS)
        ],
    }


def _board(st: MotoraState) -> dict[str, Any]:
    """What lies where: tile ids, claimed villages and the damaged positions in board order."""
    return {
        "tile": dict(st.tile_at),
        "owner": dict(st.owner),
        "destroyed": _flagged(st.destroyed),
        "restricted": _flagged(st.restricted),
        "ruined": list(st.ruined),
    }


def _flagged(flags: dict[str, bool]) -> list[str]:
    """The positions whose flag is set, in board order (the maps were filled in board order and
    updates keep it). Usually none is, which ``any`` finds in C without building anything."""
    return list(compress(flags, flags.values())) if any(flags.values()) else []


def _members(
    st: MotoraState,
) -> tuple[list[list[Any]], dict[int, int], list[int], dict[str, list[int]]]:
    """One pass over all members (the view's largest loop): their rows, who carries which gear,
    and per seat the tribe size (living plus imprisoned, RULES.md 2) and dead per shrine."""
    n = st.players
    rows: list[list[Any]] = []
    row = rows.append
    carried_by: dict[int, int] = {}
    size = [0] * n
    dead = {"life": [0] * n, "death": [0] * n}
    for m in st.members:
        state, tribe, gear = m.state, m.tribe, m.gear
        row(
            [
                tribe,
                state,
                m.pos,
                m.captor,
                m.placed_index,
                m.stage,
                gear,
                m.home_first,
                m.new_this_turn,
            ]
        )
        if state not in GONE:
            size[tribe] += 1
        elif state == SHRINE and m.shrine is not None and m.shrine_of is not None:
            dead[m.shrine][m.shrine_of] += 1
        if gear is not None:
            carried_by[gear] = m.id
    return rows, carried_by, size, dead


def _tribes(
    st: MotoraState, carried_by: dict[int, int], size: list[int], dead: dict[str, list[int]]
) -> list[list[Any]]:
    """One row per seat (``TRIBE_FIELDS``); its members are the ``members`` rows of that tribe."""
    n = st.players
    idols = {"life": [0] * n, "death": [0] * n}
    for idol in st.idols:
        if idol.shrine is not None and idol.owner is not None:
            idols[idol.shrine][idol.owner] += 1
    face_down = _face_down(st, carried_by)
    craftsmen, temple = face_down["craftsmen"], face_down["temple"]
    life, death = idols["life"], idols["death"]
    dead_life, dead_death = dead["life"], dead["death"]
    return [
        [
            s,
            t.eliminated,
            t.village,
            t.village_tile,
            t.food,
            t.water,
            t.shelter,
            size[s],
            life[s],
            death[s],
            dead_life[s],
            dead_death[s],
            life[s] + dead_life[s] // 2,
            death[s] + dead_death[s] // 2,
            craftsmen[s],
            temple[s],
            t.plenty,
            t.combat_mod,
            dict(t.need_mod),
            t.ward,
            t.procession,
            len(t.hunts),
            t.recruited,
        ]
        for s, t in enumerate(st.tribes)
    ]


def _face_down(st: MotoraState, carried_by: dict[int, int]) -> dict[str, list[int]]:
    """Per deck and seat, how many hand cards are not carried as gear (so are face down)."""
    counts = {"craftsmen": [0] * st.players, "temple": [0] * st.players}
    for s, tribe in enumerate(st.tribes):
        for uid in tribe.hand:
            if uid not in carried_by:
                counts[CARDS[uid].deck][s] += 1
    return counts


def _hand(st: MotoraState, seat: int, carried_by: dict[int, int]) -> list[dict[str, Any]]:
    """The seat's own cards (none for an observer) and which member carries each."""
    if not 0 <= seat < st.players:
        return []
    return [
        {**public_card(uid), "window": CARDS[uid].window, "carried_by": carried_by.get(uid)}
        for uid in st.tribes[seat].hand
    ]
