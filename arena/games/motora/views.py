"""What one seat may see (RULES.md 18): everything public plus its own hand."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .board import BOARD
from .cards import CARDS, public_card
from .model import LIVING, PRISONER, SHRINE, SHRINES

if TYPE_CHECKING:
    from .state import MotoraState


def view(st: MotoraState, seat: int) -> dict[str, Any]:
    shrines = _shrine_counts(st)
    carried_by = {m.gear: m.id for m in st.members if m.gear is not None}
    hand = []
    if 0 <= seat < st.players:
        for uid in st.tribes[seat].hand:
            hand.append(
                {**public_card(uid), "window": CARDS[uid].window, "carried_by": carried_by.get(uid)}
            )
    return {
        "seat": seat,
        "players": st.players,
        "turn": st.turn,
        "phase": st.phase,
        "first_player": st.first,
        "turn_order": st.order(),
        "to_act": [d.seat for d in st.pending()],
        "idols_required": BOARD.idols_required[st.players],
        "board": {
            "tile": dict(st.tile_at),
            "owner": dict(st.owner),
            "destroyed": [p for p in BOARD.positions if st.destroyed[p]],
            "restricted": [p for p in BOARD.positions if st.restricted[p]],
            "ruined": [p for p in BOARD.positions if p in st.ruined],
        },
        "idols": [
            {
                "idol": i.id,
                "position": i.pos,
                "owner": i.owner,
                "shrine": i.shrine,
                "moved": i.moved,
            }
            for i in st.idols
        ],
        "tribes": [_tribe(st, s, shrines[s]) for s in range(st.players)],
        "decks": {name: len(cards) for name, cards in st.decks.items()},
        "event_discard": [CARDS[u].id for u in st.discard],
        "current_event": public_card(st.event) if st.event is not None else None,
        "need_modifiers": dict(st.need_mod),
        "fight": st.fight,
        "hand": hand,
    }


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


def _shrine_counts(st: MotoraState) -> list[dict[str, dict[str, int]]]:
    """Idols and dead per tribe and shrine, in one pass (the view's hot spot otherwise)."""
    counts = [
        {"idols": dict.fromkeys(SHRINES, 0), "dead": dict.fromkeys(SHRINES, 0)}
        for _ in range(st.players)
    ]
    for idol in st.idols:
        if idol.owner is not None and idol.shrine in SHRINES:
            counts[idol.owner]["idols"][idol.shrine] += 1
    for m in st.members:
        if m.state == SHRINE and m.shrine_of is not None:
            counts[m.shrine_of]["dead"][m.shrine] += 1
    return counts


def _tribe(st: MotoraState, seat: int, shrine: dict[str, dict[str, int]]) -> dict[str, Any]:
    tribe = st.tribes[seat]
    counts = {"craftsmen": 0, "temple": 0}
    for uid in st.unattached(seat):
        counts[CARDS[uid].deck] += 1
    members = []
    for i in tribe.members:
        m = st.members[i]
        if m.state in LIVING or m.state == PRISONER:
            members.append(
                {
                    "id": m.id,
                    "state": m.state,
                    "position": m.pos,
                    "captor": m.captor,
                    "placed_index": m.placed_index,
                    "stage": m.stage,
                    "gear": public_card(m.gear) if m.gear is not None else None,
                    "home_first": m.home_first,
                    "new_this_turn": m.new_this_turn,
                }
            )
    return {
        "seat": seat,
        "eliminated": tribe.eliminated,
        "village": tribe.village,
        "village_tile": tribe.village_tile,
        "food": tribe.food,
        "water": tribe.water,
        "shelter": tribe.shelter,
        "idols": shrine["idols"],
        "dead": shrine["dead"],
        "life_bonus": shrine["idols"]["life"] + shrine["dead"]["life"] // 2,
        "death_bonus": shrine["idols"]["death"] + shrine["dead"]["death"] // 2,
        "members": members,
        "tribe_size": st.tribe_size(seat),
        "cards_in_hand": counts,
        "effects": {
            "plenty": tribe.plenty,
            "combat": tribe.combat_mod,
            "need": dict(tribe.need_mod),
            "ward": tribe.ward,
            "procession": tribe.procession,
            "hunts": len(tribe.hunts),
        },
        "recruited": tribe.recruited,
    }
