"""Cover (RULES 7, 5.2): how many helpers or sales of a material a player's works cover."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import cards as C

if TYPE_CHECKING:
    from .state import MottainaiState


def wing_capacity(s: MottainaiState, p: int, mat: int, gallery: bool) -> int:
    """value(M) x works of M in the wing; Go Set counts Stone works in both wings (E-COV-3)."""
    pl = s.players[p]
    wing, other = (pl.gallery, pl.shop) if gallery else (pl.shop, pl.gallery)
    count = sum(1 for w in wing if s.mat(w) == mat)
    if mat == C.STONE and s.owns(p, "Go Set"):
        count += sum(1 for w in other if s.mat(w) == C.STONE)
    return C.VALUES[mat] * count


def helpers_covered(s: MottainaiState, p: int, mat: int, count: int) -> bool:
    """All or nothing (E-COV-1); Bangle covers its owner's Stone helpers (E-OBS-4)."""
    if mat == C.STONE and s.owns(p, "Bangle"):
        return True
    return count <= wing_capacity(s, p, mat, gallery=True)


def sales_covered(s: MottainaiState, p: int, mat: int) -> bool:
    count = sum(1 for c in s.players[p].sales if s.base_mat(c) == mat)
    return count <= wing_capacity(s, p, mat, gallery=False)
