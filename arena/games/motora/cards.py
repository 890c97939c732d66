"""Card definitions, loaded once from the packaged ``cards.json`` (RULES.md 15).

Every physical card gets a small integer uid (cards.json order, copies expanded), so decks and
hands are plain lists of ints. Card behaviour is chosen by ``params["type"]``; names and texts
come only from the data file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DECKS = ("event", "craftsmen", "temple")

# Which card windows are open in each engine window (cards.json field_meanings.window).
WINDOWS = {
    "start_of_turn": ("start_of_turn", "start_of_turn_or_before_consumption"),
    "before_consumption": ("before_consumption", "start_of_turn_or_before_consumption"),
}


@dataclass(frozen=True)
class Card:
    id: str
    name: str
    deck: str
    kind: str  # events: effect category; equipment: "gear" or "single_use"
    window: str | None
    assignable: bool  # gear that is attached to a member at placement
    params: dict[str, Any]
    text: str

    @property
    def effect(self) -> str:
        return str(self.params.get("type", "none"))


def load_cards(path: Path) -> tuple[Card, ...]:
    """One Card per physical copy; the index in the tuple is the card's uid."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    out: list[Card] = []
    for c in raw["cards"]:
        card = Card(
            id=c["id"],
            name=c["name"],
            deck=c["deck"],
            kind=c["kind"],
            window=c.get("window"),
            assignable=bool(c.get("assign_to_member", False)),
            params=dict(c.get("params") or {}),
            text=c.get("effect", ""),
        )
        out.extend([card] * int(c.get("copies", 1)))
    return tuple(out)


CARDS = load_cards(Path(__file__).parent / "cards.json")


def deck_uids(deck: str) -> list[int]:
    """All uids of one deck, in data order (shuffled by the game at setup)."""
    return [uid for uid, card in enumerate(CARDS) if card.deck == deck]


def public_card(uid: int) -> dict[str, Any]:
    """How a card is shown once its identity is known to the viewer."""
    card = CARDS[uid]
    return {"uid": uid, "card": card.id, "name": card.name, "kind": card.kind}
