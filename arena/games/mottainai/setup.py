"""Setup (RULES 3): deck size, wing threshold, the deal, the first player."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import cards as C

if TYPE_CHECKING:
    from .state import MottainaiState

HAND_SIZE = 5


def deck_count(players: int, options: dict[str, Any]) -> int:
    """Two decks at 4-5 players (RULES 1.2, 12); ``two_decks`` may add the second at 2-3."""
    if options.get("two_decks") is None:
        return 2 if players >= 4 else 1
    return 2 if options["two_decks"] else 1


def wing_threshold(players: int, options: dict[str, Any]) -> int:
    """T = 6 in the extended game; by default extended at 4-5 players (RULES 12, DESIGNED)."""
    extended = options.get("extended")
    if extended is None:
        extended = players >= 4
    return 6 if extended else 5


def deal(s: MottainaiState) -> None:
    """RULES 3 with the engine's dealing convention: hands, setup cards, floor, in seat order."""
    s.deck = list(range(C.DECK_SIZE * s.decks))
    s.rng.shuffle(s.deck)
    for q, pl in enumerate(s.players):
        pl.hand = [s.deck.pop() for _ in range(HAND_SIZE)]
        s.emit(
            {"type": "deal", "seat": q, "count": HAND_SIZE},
            private={q: {"cards": [s.name(u) for u in pl.hand]}},
        )
    for pl in s.players:
        pl.task = s.deck.pop()
        pl.task_down = True
    s.emit({"type": "setup_cards", "count": s.n})
    candidates = list(range(s.n))
    turned = [s.deck.pop() for _ in candidates]
    s.floor.extend(turned)
    s.emit({"type": "floor_deal", "seats": candidates, "cards": [s.name(u) for u in turned]})
    while True:
        keys = [C.sort_key(s.name(u)) for u in turned]
        best = min(keys)
        tied = [q for q, k in zip(candidates, keys, strict=False) if k == best]
        if len(tied) == 1:
            break
        candidates = tied  # E-SET-3: the tied players turn another card each
        turned = [s.deck.pop() for _ in candidates]
        s.floor.extend(turned)
        s.emit({"type": "floor_deal", "seats": candidates, "cards": [s.name(u) for u in turned]})
    s.current = tied[0]
    s.emit({"type": "first_player", "seat": s.current})
