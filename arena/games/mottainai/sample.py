"""Determinization for search bots: a position the current player cannot tell from the real one.

The current player's view carries ``turn_start``: this turn's checkpoint as that player knows it
(hidden cards as None, cards shown since by name), the Jars played since and its own answers.
Sampling fills every None with a card nobody has seen, in an order shuffled by the bot's
generator; loading that position replays the answers, which rebuilds the decision being asked
with the same options and the same view. Jars constrain the sample: an opponent who gave ``n``
cards of a material held exactly ``n`` of them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from ..base import PositionError
from ..rng import derived, rng_state
from . import cards as C
from .position import ZONES


def _jar_needs(jars: list[list[int]]) -> dict[int, dict[int, int]]:
    """Per opponent, per material: how many cards of it the checkpoint hand held (first Jar)."""
    needs: dict[int, dict[int, int]] = {}
    for q, mat, count in jars:
        needs.setdefault(q, {}).setdefault(mat, count)
    return needs


class _Pool:
    """The cards nobody has seen, in a shuffled order; hands them out by material if asked."""

    def __init__(self, names: list[str], rng: random.Random) -> None:
        rng.shuffle(names)
        self.names = names

    def take(self, fits: Any = None) -> str:
        for i, name in enumerate(self.names):
            if fits is None or fits(C.BY_NAME[name].material):
                return self.names.pop(i)
        if fits is not None and self.names:
            return self.names.pop(0)  # the constraint cannot hold: any card keeps counts right
        raise PositionError("view.turn_start", "more hidden cards than cards unaccounted for")


def sample(view: Mapping[str, Any], decks: int, rng: random.Random) -> dict[str, Any]:
    """A full position body consistent with ``view`` (the current player's), hidden cards dealt."""
    known = view.get("turn_start")
    if known is None:
        raise PositionError("view.turn_start", "only the current player's view can be sampled")
    seats: list[dict[str, Any]] = [
        {k: list(v) if isinstance(v, list) else v for k, v in e.items()} for e in known["seats"]
    ]
    unseen = {d.name: decks for d in C.DEFS}
    for entry in seats:
        for zone in ZONES:
            for name in entry[zone]:
                if name is not None:
                    unseen[name] -= 1
        if entry["task"] is not None:
            unseen[entry["task"]] -= 1
    for name in (*known["floor"], *known["deck"]):
        if name is not None:
            unseen[name] -= 1
    pool = _Pool([d.name for d in C.DEFS for _ in range(unseen[d.name])], rng)
    for q, needs in sorted(_jar_needs(known["jars"]).items()):
        hand = seats[q]["hand"]
        slots = [i for i, name in enumerate(hand) if name is None]
        for mat, count in sorted(needs.items()):
            for i in slots[:count]:
                hand[i] = pool.take(lambda m, mat=mat: m == mat)
            slots = slots[count:]
        for i in slots:
            hand[i] = pool.take(lambda m, needs=needs: m not in needs)
    for entry in seats:
        for zone in ("hand", "waiting"):
            entry[zone] = [pool.take() if name is None else name for name in entry[zone]]
        if entry["task_face_down"] and entry["task"] is None:
            entry["task"] = pool.take()
    deck = [pool.take() if name is None else name for name in known["deck"]]
    body = {k: v for k, v in known.items() if k != "jars"}
    body.update(
        seats=seats,
        deck=deck,
        box=pool.names,
        rng=rng_state(derived(rng)),
    )
    return body
