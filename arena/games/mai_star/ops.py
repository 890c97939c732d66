"""The registry of engine steps.

The engine resolves effects depth first with an explicit stack of plain tuples
``(step name, *arguments)`` instead of Python generators, so a state can be deep-copied and
pickled at any decision. Every module registers its steps here by name; answers to decisions
are steps too (called with the chosen option first).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .data import CARD_INDEX

STEPS: dict[str, Callable[..., None]] = {}


def step(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register ``fn`` as the step ``name`` (its first argument is the state)."""

    def register(fn: Callable[..., None]) -> Callable[..., None]:
        if name in STEPS:
            raise ValueError(f"step {name!r} registered twice")
        STEPS[name] = fn
        return fn

    return register


def option_card(option: dict[str, Any]) -> int:
    """The card index named by an option's ``card`` field."""
    return CARD_INDEX[option["card"]]
