"""Card data for Happy Mochi, loaded once from the packaged ``cards.json`` (RULES.md 1).

Cards are referred to everywhere by their integer ``id`` from that file. Lookups are flat tuples
indexed by id so the rules engine never touches dictionaries in its hot paths. Colours are
opaque labels: the engine only compares them for equality (RULES.md 1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EFFECTS = ("flip", "force_draw", "pass_left", "reserve")


def _load() -> dict[str, Any]:
    with (Path(__file__).parent / "cards.json").open(encoding="utf-8") as handle:
        return json.load(handle)


_DATA = _load()
_CARDS = sorted(_DATA["cards"], key=lambda c: c["id"])
if [c["id"] for c in _CARDS] != list(range(len(_CARDS))):
    raise ValueError("happy_mochi cards.json: card ids must be 0..N-1")
for _card in _CARDS:
    if _card["effect"] is not None and _card["effect"] not in EFFECTS:
        raise ValueError(f"happy_mochi cards.json: unknown effect {_card['effect']!r}")

COLOURS: tuple[str, ...] = tuple(_DATA["colours"])
CARD_COUNT: int = len(_CARDS)
NUMBER: tuple[int, ...] = tuple(c["number"] for c in _CARDS)
COLOUR: tuple[int, ...] = tuple(COLOURS.index(c["colour"]) for c in _CARDS)
EFFECT: tuple[str | None, ...] = tuple(c["effect"] for c in _CARDS)

_COMPONENTS = _DATA["components"]
HAND_SIZE: int = _COMPONENTS["hand_size_at_deal"]
END_THRESHOLD: int = _COMPONENTS["game_end_threshold_minus_points"]
MIN_PLAYERS: int = _DATA["players"]["min"]
MAX_PLAYERS: int = _DATA["players"]["max"]

# The static card table sent in every view, indexed by id: [number, colour, effect].
CARD_TABLE: list[list[Any]] = [[c["number"], c["colour"], c["effect"]] for c in _CARDS]


_BY_FACE = {(c["number"], c["colour"]): c["id"] for c in _CARDS}


def card_id(number: int, colour: str) -> int:
    """The id of the card showing ``number`` in ``colour`` (each pair is unique, RULES.md 1)."""
    try:
        return _BY_FACE[(number, colour)]
    except KeyError:
        raise ValueError(f"no Happy Mochi card {colour} {number}") from None
