"""Build a state from an explicit layout of card ids, for scenario tests.

A thin layer over the short position form (README.md, "Short form"): ``build_state`` writes one
and loads it, so a stuck active seat passes at once (R5) as in a real turn. Cards given nowhere
are set aside: they are out of this round, and come back only at the next deal (3.2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .game import HappyMochi
from .state import MochiState


def build_state(
    hands: Sequence[Sequence[int]],
    tens: Sequence[int],
    units: Sequence[int],
    draw: Sequence[int] = (),
    reserves: Sequence[Sequence[int]] | None = None,
    *,
    direction: str = "+",
    active: int = 0,
    totals: Sequence[int] | None = None,
    round_number: int = 1,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
) -> MochiState:
    """A state at the start of ``active``'s turn in round ``round_number``.

    ``tens``/``units`` list each main-duo pile bottom to top; ``draw`` lists the draw pile from
    its top card down. Every card may appear at most once (PositionError otherwise).
    """
    short: dict[str, Any] = {
        "form": "short",
        "game": HappyMochi.id,
        "options": dict(options or {}),
        "seed": seed,
        "hands": [list(h) for h in hands],
        "T": list(tens),
        "U": list(units),
        "draw": list(reversed(draw)),
        "direction": direction,
        "active": active,
        "round": round_number,
    }
    if reserves is not None:
        short["reserves"] = [list(r) for r in reserves]
    if totals is not None:
        short["totals"] = list(totals)
    state = HappyMochi().load(short)
    assert isinstance(state, MochiState)
    return state
