"""Shared helpers for the Happy Mochi tests: card lookup, answering by option fields, checks."""

from __future__ import annotations

from typing import Any

from arena.games.base import Decision
from arena.games.happy_mochi.cards import CARD_COUNT, EFFECT, card_id
from arena.games.happy_mochi.state import MochiState


def c(colour: str, number: int, effect: str | None = "any") -> int:
    """Card id by face; with ``effect`` given, also assert the card carries it (cards.json)."""
    card = card_id(number, colour)
    if effect != "any":
        assert EFFECT[card] == effect, f"{colour} {number} has {EFFECT[card]}, test wants {effect}"
    return card


def decision(state: MochiState, seat: int | None = None) -> Decision:
    """The pending decision of ``seat`` (or the only pending one)."""
    pending = state.pending()
    if seat is None:
        assert len(pending) == 1, [d.kind for d in pending]
        return pending[0]
    found = [d for d in pending if d.seat == seat]
    assert found, f"seat {seat} has no pending decision; pending: {pending}"
    return found[0]


def pick(state: MochiState, kind: str, who: int | None = None, **fields: Any) -> None:
    """Answer ``who``'s (or the only) pending ``kind`` decision: the option matching ``fields``."""
    d = decision(state, who)
    assert d.kind == kind, f"expected {kind}, engine asks {d.kind} of seat {d.seat}"
    matches = [i for i, o in enumerate(d.options) if all(o.get(k) == v for k, v in fields.items())]
    assert len(matches) == 1, f"{fields} matches {len(matches)} of {d.options}"
    state.act(d.seat, matches[0])


def events(state: MochiState, seat: int, kind: str | None = None) -> list[dict[str, Any]]:
    out, _ = state.events_since(seat, 0)
    return [e for e in out if kind is None or e["type"] == kind]


ALL_CARDS = list(range(CARD_COUNT))


def card_places(state: MochiState) -> list[int]:
    """Every card id in every place, sorted (card conservation checks)."""
    cards = state.tens + state.units + state.draw + state.aside
    for group in state.hands:
        cards += group
    for group in state.reserves:
        cards += group
    for card in state.holding:
        if card is not None:
            cards.append(card)
    cards.sort()
    return cards


def assert_conserved(state: MochiState) -> None:
    """RULES.md 1-2: all 70 cards are always in exactly one place."""
    assert card_places(state) == ALL_CARDS, "a card is missing or in two places"
