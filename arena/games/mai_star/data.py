"""Card and geisha data, loaded once from the packaged ``cards.json`` (never hard-coded).

Cards are referred to by their index in ``cards.json``'s customer list (so sorting indices gives the
file's order, which is the order RULES.md section 18 asks for in option lists); bots see the
string ``id``. Geishas are referred to by index too and shown by name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

SKILLS = ("performance", "service", "intelligence")
COLOURS = ("red", "blue", "green")


@dataclass(frozen=True, slots=True)
class Card:
    """One distinct customer card (name + colour); ``copies`` physical cards share it."""

    index: int
    id: str
    name: str
    colour: str
    skill: int  # index into SKILLS for red/blue/green, -1 for black
    requirement: int | None
    requirement_type: str  # "colour" | "any" | "none"
    income: int
    advertisement: tuple[int, int, int]
    effect_id: str
    effect_timing: str  # "on_play" | "reaction_guest_row" | "reaction_hand" | "none"
    effect_parameter: str  # "target_player" | "hand_card_same_colour" | "hand_card" | "none"
    targets_player: bool
    copies: int


@dataclass(frozen=True, slots=True)
class Geisha:
    index: int
    name: str
    reputation: tuple[int, int, int]
    ability_id: str


def _load() -> dict:
    return json.loads((Path(__file__).parent / "cards.json").read_text(encoding="utf-8"))


_RAW = _load()

# What every seat may know of the cards, sent once in ``welcome`` (Game.public_data).
PUBLIC_CARDS: dict[str, list[dict]] = {
    kind: [{k: v for k, v in card.items() if k != "source"} for card in _RAW[kind]]
    for kind in ("customers", "geishas")
}

CARDS: tuple[Card, ...] = tuple(
    Card(
        index=i,
        id=c["id"],
        name=c["name"],
        colour=c["color"],
        skill=COLOURS.index(c["color"]) if c["color"] in COLOURS else -1,
        requirement=c["requirement"],
        requirement_type=c["requirement_type"],
        income=c["income"],
        advertisement=tuple(c["advertisement"][s] for s in SKILLS),
        effect_id=c["effect_id"],
        effect_timing=c["effect_timing"],
        effect_parameter=c["effect_parameter"],
        targets_player=c["effect_targets_player"],
        copies=c["copies"],
    )
    for i, c in enumerate(_RAW["customers"])
)
GEISHAS: tuple[Geisha, ...] = tuple(
    Geisha(i, g["name"], tuple(g["reputation"][s] for s in SKILLS), g["ability_id"])
    for i, g in enumerate(_RAW["geishas"])
)

CARD_INDEX: dict[str, int] = {c.id: c.index for c in CARDS}
GEISHA_INDEX: dict[str, int] = {g.name: g.index for g in GEISHAS}
CARD_IDS: tuple[str, ...] = tuple(c.id for c in CARDS)

# The 75-card deck in canonical order; every round is shuffled from this, whatever the
# cards' previous places, so a new deal never depends on hidden positions.
FULL_DECK: tuple[int, ...] = tuple(c.index for c in CARDS for _ in range(c.copies))

_SIZES = _RAW["starting_hand_size"]
HAND_SIZES: tuple[int, int, int] = (_SIZES["round_1"], _SIZES["round_2"], _SIZES["round_3"])
OBORO_BONUS: int = _SIZES["oboro_bonus"]
HAND_PENALTY: int = _RAW["hand_penalty_per_card"]
MIN_PLAYERS: int = _RAW["players"]["min"]
MAX_PLAYERS: int = _RAW["players"]["max"]

# Ability ids (stable names from cards.json) the engine dispatches on.
AKENOHOSHI = "akenohoshi_plus_three"
HARUKAZE = "harukaze_draw_three_return_two"
MOMIJI = "momiji_red_effect_twice"
NATSUMI = "natsumi_extra_blue_guest"
OBORO = "oboro_two_extra_cards"
SUZUNE = "suzune_extra_advertise"
AKENOHOSHI_BOOST = 3  # printed on the Akenohoshi card

RONIN_EFFECT = "ronin_cancel_from_guest_row"
KANRYOU_EFFECT = "kanryou_cancel_from_hand"
COURTIER_EFFECT = "courtier_extra_guest_same_colour"
KANRYOU: int = next(c.index for c in CARDS if c.effect_id == KANRYOU_EFFECT)

assert len(FULL_DECK) == _RAW["customer_card_total"], "cards.json copies do not sum to the deck"
assert {g.ability_id for g in GEISHAS} == {AKENOHOSHI, HARUKAZE, MOMIJI, NATSUMI, OBORO, SUZUNE}
