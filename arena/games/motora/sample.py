"""Sampling a full Motora state from one seat's knowledge (``Game.determinize``, for search bots).

Everything on the table is public in Motora except the face-down cards in other tribes' hands and
the order of the three decks. The sample copies the view (which, for the seat being asked, also
carries the flow's stack), takes from the events what the view leaves out (whose shrine each dead
member lies on, who was captured this turn, the Hunting Horns played, when a tribe fell), and
deals the unseen cards at random: cards this seat saw reach a hand (carried gear, a capture, a
theft) go back to that hand first, the rest are shuffled among the face-down slots and the decks.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..rng import derived, rng_state
from .cards import CARDS, DECKS, deck_uids
from .model import PRISONER, SHRINE
from .position import load_position
from .state import MotoraState
from .views import MEMBER_FIELDS, TRIBE_FIELDS


def determinize(
    players: int,
    options: dict[str, Any],
    seat: int,
    view: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    rng: random.Random,
) -> MotoraState:
    """A state ``seat`` cannot tell from the real one, asking it the decision it faces now."""
    if view.get("stack") is None:
        raise ValueError("determinize needs the view of the seat being asked (it holds the stack)")
    history = _History(events)
    tribes = [dict(zip(TRIBE_FIELDS, row, strict=True)) for row in view["tribes"]]
    members = [dict(zip(MEMBER_FIELDS, row, strict=True)) for row in view["members"]]
    hands, decks = _deal(seat, view, tribes, members, history, rng)
    event_deck, discard = _event_cards(view, rng)
    if view["phase"] == "village_choice":  # the decks are dealt once every village is chosen
        decks = {d: [] for d in decks}
        event_deck = []
    position = {
        "turn": view["turn"],
        "first_player": view["first_player"],
        "phase": view["phase"],
        "tiles": dict(view["board"]["tile"]),
        "destroyed": list(view["board"]["destroyed"]),
        "restricted": list(view["board"]["restricted"]),
        "tribes": [_tribe(s, t, hands[s], members, history) for s, t in enumerate(tribes)],
        "members": [_member(k, m, history) for k, m in enumerate(members)],
        "idols": [
            {"position": p, "owner": o, "shrine": s, "moved": moved}
            for p, o, s, moved in view["idols"]
        ],
        "decks": {"event": event_deck, **decks},
        "discard": discard,
        "event": view["current_event"]["uid"] if view["current_event"] else None,
        "need_modifiers": dict(view["need_modifiers"]),
        "gathered": list(view["gathered"]),
        "fished": [list(pair) for pair in view["fished"]],
        "result": None,
        "stack": view["stack"],
        "rng": rng_state(derived(rng)),
    }
    return load_position(players, options, position, check=False)


class _History:
    """What the events tell that the view does not show."""

    def __init__(self, events: Sequence[Mapping[str, Any]]) -> None:
        self.shrine: dict[int, tuple[str, int]] = {}  # dead member -> (shrine, whose)
        self.captured: set[int] = set()  # members captured this turn
        self.hunts: dict[int, list[int]] = {}  # seat -> Hunting Horns played this turn
        self.fell: dict[int, int] = {}  # seat -> turn it was eliminated
        self.known: dict[int, int] = {}  # card uid -> seat whose hand it was seen reach
        turn = 0
        for e in events:
            kind = e["type"]
            if kind == "turn":
                turn = e["turn"]
                self.captured.clear()
                self.hunts.clear()
            elif kind == "member" and e["to"] == SHRINE:
                self.shrine[e["member"]] = (e["shrine"], e["shrine_of"])
            elif kind == "captured":
                self.captured.add(e["member"])
                if e["gear"] is not None:
                    self.known[e["gear"]["uid"]] = e["captor"]
            elif kind == "eliminated":
                self.fell[e["seat"]] = turn
                self._forget(e["seat"])
            elif kind == "shelter_collapse":
                self._forget(e["seat"])
            elif kind == "placed" and e["gear"] is not None:
                self.known[e["gear"]["uid"]] = e["seat"]
            elif kind == "gear_stolen" and "card" in e:
                self.known[e["card"]["uid"]] = e["seat"]
            elif kind == "card_played":
                uid = e["card"]["uid"]
                self.known.pop(uid, None)
                if CARDS[uid].effect == "npe_hunt":
                    self.hunts.setdefault(e["seat"], []).append(uid)

    def _forget(self, seat: int) -> None:
        for uid in [u for u, s in self.known.items() if s == seat]:
            del self.known[uid]


def _deal(
    seat: int,
    view: Mapping[str, Any],
    tribes: list[dict[str, Any]],
    members: list[dict[str, Any]],
    history: _History,
    rng: random.Random,
) -> tuple[list[list[int]], dict[str, list[int]]]:
    """Per seat its hand (own: as seen; others: carried gear plus dealt cards), and the
    equipment decks made of the cards left over."""
    players = len(tribes)
    own = [card["uid"] for card in view["hand"]]
    carried: dict[int, list[int]] = {s: [] for s in range(players)}
    for m in members:
        if m["gear"] is not None and m["tribe"] != seat:
            carried[m["tribe"]].append(m["gear"])
    seen = set(own).union(*carried.values())
    unseen = {d: [u for u in deck_uids(d) if u not in seen] for d in DECKS if d != "event"}
    for cards in unseen.values():
        rng.shuffle(cards)
    hands: list[list[int]] = []
    for s, tribe in enumerate(tribes):
        if s == seat:
            hands.append(own)
            continue
        hand = list(carried[s])
        for deck in unseen:
            slots = tribe["face_down_" + deck]
            pool = unseen[deck]
            known = [u for u in pool if history.known.get(u) == s][:slots]
            rest = [u for u in pool if u not in known]
            dealt = known + rest[: slots - len(known)]
            unseen[deck] = [u for u in pool if u not in dealt]
            hand += dealt
        hands.append(hand)
    return hands, unseen


def _event_cards(view: Mapping[str, Any], rng: random.Random) -> tuple[list[int], list[int]]:
    """The discard pile (copies of a card are interchangeable) and the rest shuffled as the deck."""
    current = view["current_event"]["uid"] if view["current_event"] else None
    free = [u for u in deck_uids("event") if u != current]
    discard = []
    for card_id in view["event_discard"]:
        uid = next(u for u in free if CARDS[u].id == card_id)
        free.remove(uid)
        discard.append(uid)
    rng.shuffle(free)
    return free, discard


def _tribe(
    seat: int,
    row: dict[str, Any],
    hand: list[int],
    members: list[dict[str, Any]],
    history: _History,
) -> dict[str, Any]:
    own = [m for m in members if m["tribe"] == seat]
    hunts = history.hunts.get(seat, [])[: row["hunts"]]
    if len(hunts) < row["hunts"]:  # events missed: any Hunting Horn plays the same
        horn = next(u for u, c in enumerate(CARDS) if c.effect == "npe_hunt")
        hunts += [horn] * (row["hunts"] - len(hunts))
    return {
        "village": row["village"],
        "food": row["food"],
        "water": row["water"],
        "shelter": row["shelter"],
        "eliminated": row["eliminated"],
        "eliminated_turn": history.fell.get(seat, 0) if row["eliminated"] else 0,
        "hand": hand,
        "placed_count": max((m["placed_index"] for m in own), default=0),
        "home_used": any(m["home_first"] for m in own),
        "recruited": row["recruited"],
        "plenty": row["plenty"],
        "combat": row["combat"],
        "need": dict(row["need"]),
        "ward": row["ward"],
        "procession": row["procession"],
        "hunts": hunts,
    }


def _member(uid: int, row: dict[str, Any], history: _History) -> dict[str, Any]:
    shrine, shrine_of = history.shrine.get(uid, (None, None))
    dead = row["state"] == SHRINE
    if dead and shrine is None:  # events missed: its own tribe's Life shrine
        shrine, shrine_of = "life", row["tribe"]
    return {
        "tribe": row["tribe"],
        "state": row["state"],
        "position": row["position"],
        "captor": row["captor"],
        "shrine": shrine if dead else None,
        "shrine_of": shrine_of if dead else None,
        "placed_index": row["placed_index"],
        "stage": row["stage"],
        "gear": row["gear"],
        "new_this_turn": row["new_this_turn"],
        "home_first": row["home_first"],
        "captured_this_turn": row["state"] == PRISONER and uid in history.captured,
    }
