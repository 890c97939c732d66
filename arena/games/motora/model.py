"""Plain data for members, tribes and idols (RULES.md 2)."""

from __future__ import annotations

from dataclasses import dataclass, field

# Member states (RULES.md 2).
ACTIVE = "active"
PLACED = "placed"
RETURNED = "returned"
NEXT_INJURED = "next_injured"
NEXT_SERIOUS = "next_serious"
INJURED = "injured"
SERIOUS = "seriously_injured"
PRISONER = "prisoner"
SHRINE = "dead_on_shrine"
REMOVED = "removed"

LIVING = (ACTIVE, PLACED, RETURNED, NEXT_INJURED, NEXT_SERIOUS, INJURED, SERIOUS)
SHRINES = ("life", "death")


@dataclass(slots=True)
class Member:
    id: int
    tribe: int
    state: str = ACTIVE
    pos: str | None = None  # set while PLACED
    captor: int | None = None  # set while PRISONER
    shrine: str | None = None  # set while DEAD_ON_SHRINE
    shrine_of: int | None = None  # whose shrine it lies on
    placed_index: int = 0
    stage: int = 0  # placement stage (1 or 2) this turn
    gear: int | None = None  # uid of the carried gear card
    new_this_turn: bool = False
    home_first: bool = False
    captured_this_turn: bool = False


@dataclass(slots=True)
class Idol:
    id: int
    pos: str | None  # on the board, or None while on a shrine
    owner: int | None = None
    shrine: str | None = None
    moved: bool = False


@dataclass(slots=True)
class Tribe:
    seat: int
    village: str | None = None
    village_tile: str | None = None
    food: int = 0
    water: int = 0
    shelter: int = 0
    eliminated: bool = False
    eliminated_turn: int = 0
    members: list[int] = field(default_factory=list)  # uids of its own members, ever
    hand: list[int] = field(default_factory=list)  # equipment uids held (incl. carried gear)
    placed_count: int = 0  # placements this turn
    home_used: bool = False  # a member already got home_first this turn
    recruited: bool = False
    # per-turn card effects (RULES.md 5, 14)
    plenty: int = 0
    combat_mod: int = 0
    need_mod: dict[str, int] = field(default_factory=dict)
    ward: bool = False
    procession: int = 0
    hunts: list[int] = field(default_factory=list)  # Hunting Horns played this turn
