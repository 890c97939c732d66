"""Plain data of a game in progress: a player's zones, the action context, the end signal.

Nothing here knows the rules; :mod:`.state` holds the primitives that move cards and check the end.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from ..base import Decision

# A rules procedure: a generator that yields Decisions and receives the chosen index.
Flow = Generator[Decision, int, Any]


@dataclass
class Player:
    """One temple. Lists keep insertion order (used for option order and display)."""

    hand: list[int] = field(default_factory=list)
    waiting: list[int] = field(default_factory=list)
    waiting_known: list[int] = field(default_factory=list)  # public cards in the waiting area
    task: int | None = None
    task_down: bool = False  # the face-down setup card (E-SET-2)
    helpers: list[int] = field(default_factory=list)
    bench: list[int] = field(default_factory=list)
    sales: list[int] = field(default_factory=list)
    gallery: list[int] = field(default_factory=list)
    shop: list[int] = field(default_factory=list)

    def works(self) -> list[int]:
        return self.gallery + self.shop

    def wing_of(self, uid: int) -> list[int] | None:
        if uid in self.gallery:
            return self.gallery
        if uid in self.shop:
            return self.shop
        return None


@dataclass
class ActionCtx:
    """What one action did, for its after-effects pool (RULES 6.6)."""

    kind: str  # clerk, monk, tailor, potter, smith, craft, prayer, free
    work: int | None = None
    sold: bool = False
    collected: bool = False
    poem_left: list[int | None] = field(default_factory=lambda: [None])  # E-AFT-9 chain bound


class GameOver(Exception):
    """Raised by any atomic step that ends the game (RULES 10); caught at the top of the flow."""

    def __init__(self, reason: str, winner: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.winner = winner


def ask(
    seat: int, kind: str, prompt: str, options: list[dict[str, Any]], values: list[Any]
) -> Flow:
    """Put one choice to ``seat`` and return the value paired with the chosen option."""
    choice = yield Decision(seat, kind, tuple(options), prompt)
    return values[choice]
