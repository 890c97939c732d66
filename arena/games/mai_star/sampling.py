"""Determinization: a full position one seat cannot tell from the real one (search bots).

What a seat knows: its view (public table, its own hand, the hand sizes, the pending decision
with the engine's scheduled steps) and the events it was sent. Hidden are the other hands and
the deck order. Some hidden cards are known all the same, and they are kept where they are:
a hand seen with a Sumo Wrestler, an advertiser taken back into hand by an Exchange, and for
Harukaze the cards she put under the deck. Every other unseen card is dealt at random.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .data import CARD_IDS, CARD_INDEX, FULL_DECK, GEISHAS

# Discard reasons whose cards come from the discarding seat's hand.
FROM_HAND_DISCARDS = ("introduce", "sumo", "harukaze", "monk", "kanryou")


def known_hands(seat: int, players: int, events: Sequence[Mapping[str, Any]]) -> list[Counter]:
    """Cards ``seat`` knows to be in each other hand now, from this round's events."""
    known: list[Counter] = [Counter() for _ in range(players)]
    for event in events:
        kind = event["type"]
        who = event.get("seat", -1)
        if kind == "round_start":
            known = [Counter() for _ in range(players)]
        elif kind == "look" and who == seat and "hand" in event:
            known[event["target"]] = Counter(event["hand"])
        elif who == seat or who < 0:
            continue
        elif kind == "exchange":
            known[who] -= Counter([event["placed"]])
            known[who][event["returned"]] += 1
        elif kind in ("guest", "advertise"):
            known[who] -= Counter([event["card"]])
        elif kind == "discard" and event["reason"] in FROM_HAND_DISCARDS:
            known[who] -= Counter(event["cards"])
        elif kind == "deck_bottom":
            known[who] = Counter()  # one of its cards went under the deck: which one is unknown
    return known


def sample_position(
    seat: int, view: Mapping[str, Any], events: Sequence[Mapping[str, Any]], rng: random.Random
) -> dict[str, Any]:
    """The fields of a position (no envelope, no generator) consistent with ``seat``'s view
    and events."""
    tables = view["tables"]
    players = len(tables)
    bottom = list(view.get("deck_bottom", []))  # bottom card first
    pool = Counter(CARD_IDS[c] for c in FULL_DECK) if view["round"] else Counter()
    seen = [*view["hand"], *view["discard"], *bottom]
    for table in tables:
        seen += table["guests"] + table["advertisers"]
    pool -= Counter(seen)
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[seat] = list(view["hand"])
    others = [s for s in range(players) if s != seat]
    known = known_hands(seat, players, events)
    handler = view["decision"]["handler"]
    if handler[0] == "sumo_discard":  # its options name the target's cards, look or no look
        options = Counter(o["card"] for o in view["decision"]["options"])
        known[handler[1]] |= options
    for s, cards in enumerate(known):
        if s == seat:
            continue
        for name in sorted(cards.elements(), key=CARD_INDEX.__getitem__):
            if pool[name] and len(hands[s]) < tables[s]["hand_size"]:
                pool[name] -= 1
                hands[s].append(name)
    unseen = sorted(pool.elements(), key=CARD_INDEX.__getitem__)
    rng.shuffle(unseen)
    for s in others:
        missing = tables[s]["hand_size"] - len(hands[s])
        hands[s] += unseen[:missing]
        del unseen[:missing]
    taken = [t.get("geisha") for t in tables]
    flags = view.get("turn_flags", {})
    decision = dict(view["decision"])
    stack = decision.pop("stack")
    return {
        "round": view["round"],
        "start_seat": view["start_seat"],
        "active": view.get("active", -1),
        "geishas_available": view.get(
            "available_geishas", [g.name for g in GEISHAS if g.name not in taken]
        ),
        "seats": [
            {
                "geisha": table.get("geisha"),
                "hand": hands[s],
                "guests": table["guests"],
                "advertisers": table["advertisers"],
                "extra_turns": table["extra_turns"],
                "total": table["total"],
                "round_vp": table["round_vp"],
                "round_hand": table["round_hand"],
            }
            for s, table in enumerate(tables)
        ],
        "deck": unseen + bottom[::-1],
        "deck_bottom_known": len(bottom),
        "discard": view["discard"],
        "turn": {
            "suzune_used": flags.get("suzune_used", False),
            "momiji_used": flags.get("momiji_used", False),
            "natsumi_uses": flags.get("natsumi_uses", 0),
            "boost": flags.get("boost"),
        },
        "akenohoshi_used": view["akenohoshi_used"],
        "guest_limit_reached": view.get("guest_limit_reached", False),
        "final_lap": view.get("final_lap_remaining"),
        "resolving": view.get("reaction_to"),
        "stack": stack,
        "decision": decision,
        "over": False,
    }
