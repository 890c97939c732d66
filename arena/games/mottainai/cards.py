"""Card data, loaded once from the packaged ``cards.json`` (the only source of card facts).

A physical card is an int *uid*: ``0 .. 53`` for one deck, ``0 .. 107`` with two decks, where
``uid % 54`` is the index of its printed card. Per-uid tables make the hot lookups plain list
indexing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_DATA: dict[str, Any] = json.loads((Path(__file__).parent / "cards.json").read_text("utf-8"))

MATERIALS: tuple[str, ...] = tuple(m["material"] for m in _DATA["materials"])
VALUES: tuple[int, ...] = tuple(m["value"] for m in _DATA["materials"])
TASKS: tuple[str, ...] = tuple(m["task"] for m in _DATA["materials"])
MAT_INDEX: dict[str, int] = {name: i for i, name in enumerate(MATERIALS)}

PAPER, STONE, CLOTH, CLAY, METAL = (
    MAT_INDEX["Paper"],
    MAT_INDEX["Stone"],
    MAT_INDEX["Cloth"],
    MAT_INDEX["Clay"],
    MAT_INDEX["Metal"],
)


@dataclass(frozen=True)
class CardDef:
    """One printed card: its name, material (index into MATERIALS), value and timing class."""

    index: int
    name: str
    material: int
    value: int
    category: str


def _load() -> tuple[CardDef, ...]:
    ordered = sorted(_DATA["cards"], key=lambda c: c["id"])
    defs = []
    for i, raw in enumerate(ordered):
        mat = MAT_INDEX[raw["material"]]
        if raw["value"] != VALUES[mat]:
            raise ValueError(
                f"cards.json: {raw['name']} has value {raw['value']}, not {VALUES[mat]}"
            )
        defs.append(CardDef(i, raw["name"], mat, raw["value"], raw["category"]))
    if len(defs) != _DATA["deck_size"]:
        raise ValueError(f"cards.json lists {len(defs)} cards, deck_size says {_DATA['deck_size']}")
    return tuple(defs)


DEFS: tuple[CardDef, ...] = _load()
DECK_SIZE = len(DEFS)
BY_NAME: dict[str, CardDef] = {d.name: d for d in DEFS}
CATEGORIES: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _DATA["categories"].items()}
CATEGORY_OF: dict[str, str] = {d.name: d.category for d in DEFS}

# Per printed-card tables for the views and events: read-only, shared between views.
CARD_INFO: tuple[dict[str, Any], ...] = tuple(
    {"name": d.name, "material": MATERIALS[d.material], "value": d.value} for d in DEFS
)


def sort_key(name: str) -> str:
    """First-player key (RULES 3.6, E-SET-1): lower-case name; a space sorts before letters."""
    return name.lower()
