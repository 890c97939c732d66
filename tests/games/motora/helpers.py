"""Scenario helpers: build precise Motora situations and drive parts of the rules generator.

Tests create a game with :func:`fresh` (seat 0 first, villages chosen), then change the state's
plain fields (members, stocks, hands, decks) and either call a phase procedure through
:func:`run` or drive the whole game with :func:`drive`. Dice are scripted with :class:`Dice`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator
from typing import Any

from arena.games.base import Decision
from arena.games.motora import GAME
from arena.games.motora.cards import CARDS
from arena.games.motora.model import ACTIVE, PLACED, Member
from arena.games.motora.state import MotoraState

Answer = Callable[[Decision], int]


class Dice(random.Random):
    """A Random whose d6 rolls come from a script (then from a seeded fallback)."""

    def __init__(self, rolls: list[int]) -> None:
        super().__init__(0)
        self.rolls = list(rolls)

    def randint(self, a: int, b: int) -> int:
        if self.rolls:
            return self.rolls.pop(0)
        return super().randint(a, b)


def fresh(
    players: int = 2,
    villages: tuple[str, ...] = ("r1c2", "r7c6", "r4c1", "r4c7", "r1c4", "r7c4"),
    **options: Any,
) -> MotoraState:
    """A game with seat 0 as first player; seat s chose ``villages[s]``. Paused in turn 1."""
    seed = next(s for s in range(1000) if GAME.new(players, s).first == 0)
    st = GAME.new(players, seed, options)
    while st.pending()[0].kind == "village":
        d = st.pending()[0]
        st.act(d.seat, index(d, position=villages[d.seat]))
    assert st.first == 0 and st.turn == 1
    return st


def short(players: int, **fields: Any) -> dict[str, Any]:
    """A short position (see the README's *Short positions*) for ``players`` tribes."""
    return {"form": "short", "game": "motora", "players": players, **fields}


def index(decision: Decision, **fields: Any) -> int:
    """Index of the first option whose fields include ``fields``."""
    for i, option in enumerate(decision.options):
        if all(option.get(k) == v for k, v in fields.items()):
            return i
    raise AssertionError(f"no option {fields} in {decision.kind}: {decision.options}")


def default(decision: Decision) -> int:
    """Pass, place at the cheapest spot first listed at cost 0 (own village), rest, Life."""
    kind = decision.kind
    if kind == "place":
        return min(range(len(decision.options)), key=lambda i: decision.options[i]["distance"])
    return 0


def run(gen: Generator[Decision, int, Any], answer: Answer = default) -> Any:
    """Drive a phase procedure to its end; returns its value. GameOver propagates."""
    try:
        decision = next(gen)
        while True:
            decision = gen.send(answer(decision))
    except StopIteration as stop:
        return stop.value


def drive(
    st: MotoraState,
    answer: Answer = default,
    until: Callable[[MotoraState], bool] | None = None,
    limit: int = 100_000,
) -> None:
    """Answer decisions with ``answer`` until the game ends or ``until(st)`` holds."""
    for _ in range(limit):
        if not st.pending() or (until is not None and until(st)):
            return
        d = st.pending()[0]
        st.act(d.seat, answer(d))
    raise AssertionError("drive limit reached")


def put(
    st: MotoraState, seat: int, pos: str, n: int = 1, gear: str | None = None, stage: int = 2
) -> list[Member]:
    """Place ``n`` ACTIVE members of ``seat`` on ``pos`` directly (optionally carrying gear)."""
    out = []
    tribe = st.tribes[seat]
    for _ in range(n):
        m = next(st.members[i] for i in tribe.members if st.members[i].state == ACTIVE)
        tribe.placed_count += 1
        m.state, m.pos, m.stage, m.placed_index = PLACED, pos, stage, tribe.placed_count
        if gear is not None:
            m.gear = give(st, seat, gear)
        out.append(m)
    return out


def uid(card_id: str, taken: tuple[int, ...] = ()) -> int:
    return next(u for u, c in enumerate(CARDS) if c.id == card_id and u not in taken)


def give(st: MotoraState, seat: int, card_id: str) -> int:
    """Move one copy of ``card_id`` from its deck into ``seat``'s hand; return its uid."""
    held = tuple(u for t in st.tribes for u in t.hand)
    card = uid(card_id, held)
    for deck in st.decks.values():
        if card in deck:
            deck.remove(card)
    st.tribes[seat].hand.append(card)
    return card


def top_events(st: MotoraState, *card_ids: str) -> None:
    """Put these event cards on top of the event deck, in this order."""
    deck = st.decks["event"]
    chosen = []
    for cid in card_ids:
        u = next(u for u in deck if CARDS[u].id == cid and u not in chosen)
        chosen.append(u)
    for u in chosen:
        deck.remove(u)
    deck[:0] = chosen


def clear_board(st: MotoraState) -> None:
    """Send every placed member back to ACTIVE (a blank board for a scenario)."""
    for m in st.members:
        if m.state == PLACED:
            m.state, m.pos, m.gear, m.stage, m.placed_index = ACTIVE, None, None, 0, 0
    for t in st.tribes:
        t.placed_count = 0


def events(st: MotoraState, kind: str) -> list[dict[str, Any]]:
    return [e["event"] for e in st.event_log() if e["event"]["type"] == kind]
