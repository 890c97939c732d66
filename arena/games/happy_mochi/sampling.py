"""Determinization: a full Happy Mochi state one seat cannot tell from the real one.

What a seat knows besides its view comes from the events it was sent. :class:`Tracker` follows
them and keeps, for every other seat, its hand as slots in order (a card id where the seat saw
which card went there, for example a main-duo top the player drew or a card it passed left; None
otherwise), the cards it saw go into that seat's reserve, and each seat's held card. Hand indices
of plays, inserts, passes and reserves are public, so known cards keep their exact place.

:class:`Sampler` deals every card the seat cannot place (the pool: all cards minus the piles, its
own cards and the known ones) at random into the unknown slots: other hands, reserves and held
cards, the draw pile (in a random order) and, for hand-written positions, the cards set aside.
The rest of the position (counters, direction, effects, scores, the pending decision) is public
and comes from the view; answers other seats already gave to a simultaneous decision are drawn
at random. The generator is seeded from ``rng``, so samples are reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.games.rng import derived, rng_state

from . import choices as ch
from .cards import CARD_COUNT

if TYPE_CHECKING:
    from ..base import State
    from .game import HappyMochi


class Tracker:
    """What ``seat`` has learnt from its events about the other seats' hidden cards."""

    def __init__(self, players: int, seat: int) -> None:
        self.n = players
        self.seat = seat
        self.slots: list[list[int | None]] = [[] for _ in range(players)]
        self.reserved: list[list[int]] = [[] for _ in range(players)]  # known reserve cards
        self.holding: list[int | None] = [None] * players
        self.round_winners: list[int | None] = []

    def see(self, event: Mapping[str, Any]) -> None:
        kind, me = event["type"], self.seat
        seat = event.get("seat")
        if kind == "round_start":
            self.slots = [[None] * size for size in event["hand_sizes"]]
            self.holding = [None] * self.n
        elif kind == "round_end":
            self.round_winners.append(event["winner"])
        elif kind == "pass_left":
            given = [self._pop(s, i) for s, i in enumerate(event["indices"])]
            given[me] = event.get("gave")
            for s in range(self.n):
                self.holding[(s + 1) % self.n] = given[s]
        elif seat is None or seat == me:
            return
        elif kind == "play":
            del self.slots[seat][event["index"] : event["index"] + 2]
        elif kind == "draw":
            self.holding[seat] = event.get("card")  # public only for T and U
            if event["source"] == "reserve":
                self.reserved[seat] = []  # which reserved card it took is hidden
        elif kind in ("insert", "insert_received"):
            self.slots[seat].insert(event["index"], self.holding[seat])
            self.holding[seat] = None
        elif kind in ("reserve", "round_reserve"):
            card = self._pop(seat, event["index"])
            if card is not None:
                self.reserved[seat].append(card)

    def _pop(self, seat: int, index: int) -> int | None:
        slots = self.slots[seat]
        return slots.pop(index) if 0 <= index < len(slots) else None

    def forget(self, hand_sizes: Sequence[int]) -> None:
        """Know no hidden card: for events that do not fit the view (or start mid-round)."""
        self.slots = [[None] * size for size in hand_sizes]
        self.reserved = [[] for _ in range(self.n)]
        self.holding = [None] * self.n


class Sampler:
    """Samples positions for search bots; remembers the tracker of the last event list it read.

    A bot passes the same growing list of events on every call, so only new events are read.
    """

    def __init__(self) -> None:
        self._events: Sequence[Mapping[str, Any]] | None = None
        self._read = 0
        self._tracker: Tracker | None = None

    def tracker(self, players: int, seat: int, events: Sequence[Mapping[str, Any]]) -> Tracker:
        tracker = self._tracker
        if (
            tracker is None
            or self._events is not events
            or tracker.seat != seat
            or tracker.n != players
            or len(events) < self._read
        ):
            tracker = self._tracker = Tracker(players, seat)
            self._events, self._read = events, 0
        for event in events[self._read :]:
            tracker.see(event)
        self._read = len(events)
        return tracker

    def sample(
        self,
        game: HappyMochi,
        players: int,
        options: Mapping[str, Any],
        seat: int,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        rng: random.Random,
    ) -> State:
        tracker = self.tracker(players, seat, events)
        position = _position(game, players, options, seat, view, tracker, rng)
        if position is None:  # knowledge that does not fit the view: sample from the view only
            tracker.forget(view["hand_sizes"])
            position = _position(game, players, options, seat, view, tracker, rng)
        assert position is not None
        return game.load(position)


def _holders(view: Mapping[str, Any], players: int) -> list[int]:
    """Seats holding a drawn or received card now (public: the decision says who inserts)."""
    phase = view["phase"]
    if phase == ch.INSERT:
        return list(view["to_act"])
    if phase == ch.INSERT_RECEIVED:
        return list(range(players))
    return []


def _position(
    game: HappyMochi,
    players: int,
    options: Mapping[str, Any],
    seat: int,
    view: Mapping[str, Any],
    tracker: Tracker,
    rng: random.Random,
) -> dict[str, Any] | None:
    """A full position consistent with ``view`` and ``tracker``; None if they disagree."""
    hand_sizes, reserve_sizes = view["hand_sizes"], view["reserve_sizes"]
    holders = _holders(view, players)
    used = bytearray(CARD_COUNT)
    for card in (*view["T"], *view["U"], *view["hand"], *view["reserve"]):
        used[card] = 1
    if seat in holders:
        used[view["holding"]] = 1
    hands: list[list[int | None]] = []
    reserves: list[list[int | None]] = []
    holding: list[int | None] = [None] * players
    for s in range(players):
        if s == seat:
            hands.append(list(view["hand"]))
            reserves.append(list(view["reserve"]))
            continue
        slots, known = tracker.slots[s], tracker.reserved[s]
        if len(slots) != hand_sizes[s] or len(known) > reserve_sizes[s]:
            return None
        held = tracker.holding[s] if s in holders else None
        for card in (*slots, *known, held):
            if card is None:
                continue
            if used[card]:
                return None
            used[card] = 1
        hands.append(list(slots))
        reserves.append([*known, *[None] * (reserve_sizes[s] - len(known))])
        if s in holders:
            holding[s] = held
    pool = [card for card in range(CARD_COUNT) if not used[card]]
    unknown = sum(h.count(None) for h in hands) + sum(r.count(None) for r in reserves)
    unknown += sum(1 for s in holders if s != seat and holding[s] is None)
    if unknown + view["draw_size"] > len(pool):
        return None
    rng.shuffle(pool)
    deal = iter(pool)
    for zone in (*hands, *reserves):
        zone[:] = [next(deal) if card is None else card for card in zone]
    for s in holders:
        if s == seat:
            holding[s] = view["holding"]
        elif holding[s] is None:
            holding[s] = next(deal)
    draw = [next(deal) for _ in range(view["draw_size"])]
    phase = view["phase"]
    answers: list[int | None] = [None] * players
    if phase in ch.SIMULTANEOUS:
        for s in range(players):
            waiting = phase != ch.ROUND_RESERVE or hand_sizes[s] > 0
            if waiting and s not in view["to_act"]:
                choices = hand_sizes[s] + (1 if phase == ch.INSERT_RECEIVED else 0)
                answers[s] = rng.randrange(choices)
    winners = tracker.round_winners[-len(view["round_scores"]) :] if view["round_scores"] else []
    untold: list[int | None] = [None] * (len(view["round_scores"]) - len(winners))
    winners = untold + winners
    return {
        **game.envelope(players, options),
        "round": view["round"],
        "starter": view["starter"],
        "active": view["active"],
        "direction": view["direction"],
        "turn": view["turn"],
        "passes": view["passes"],
        "phase": phase,
        "effects": list(view["effects_pending"]),
        "target": view.get("force_draw_target"),
        "answers": answers,
        "hands": hands,
        "reserves": reserves,
        "holding": holding,
        "T": list(view["T"]),
        "U": list(view["U"]),
        "draw": draw,
        "aside": sorted(deal),
        "totals": list(view["totals"]),
        "round_scores": [list(r) for r in view["round_scores"]],
        "round_winners": winners,
        "end_reason": None,
        "rng": rng_state(derived(rng)),
    }
