"""Final scoring (RULES 11) and the outcome, including tie-breaks and the team game."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..base import Outcome, competition_ranks
from . import cards as C
from .cover import sales_covered
from .effects.registry import inline

if TYPE_CHECKING:
    from .state import MottainaiState

inline(
    "scoring",
    "Bench",
    "Coin",
    "Haniwa",
    "Lampshade",
    "Pillar",
    "Quilt",
    "Scroll",
    "Tapestry",
    "Teapot",
)

_QUILT = (C.PAPER, C.STONE, C.CLOTH)
_LAMPSHADE = (C.CLAY, C.METAL)
N_MATS = len(C.MATERIALS)


def _counts(s: MottainaiState, uids: list[int]) -> list[int]:
    out = [0] * N_MATS
    for u in uids:
        out[s.base_mat(u)] += 1
    return out


def _covered_sales(s: MottainaiState, q: int, sales: list[int]) -> list[bool]:
    """Cover per material, then Quilt, then each Pillar on the best tied material (E-SCO-4)."""
    covered = [sales[m] > 0 and sales_covered(s, q, m) for m in range(N_MATS)]
    if s.owns(q, "Quilt"):
        for m in _QUILT:
            covered[m] = covered[m] or sales[m] > 0
    top = max(sales)
    if top:
        tied = [m for m in range(N_MATS) if sales[m] == top and not covered[m]]
        tied.sort(key=lambda m: -C.VALUES[m])
        for m in tied[: s.owns(q, "Pillar")]:
            covered[m] = True
    return covered


def _qualifies(s: MottainaiState, q: int, m: int, sales: list[list[int]]) -> bool:
    """Backorder majority (E-SCO-1), or Lampshade / Quilt at a tie, even at zero (E-SCO-3)."""
    mine = sales[q][m]
    best_other = max(sales[o][m] for o in range(s.n) if o != q)
    if mine > best_other:
        return True
    tie_ok = (m in _LAMPSHADE and s.owns(q, "Lampshade")) or (m in _QUILT and s.owns(q, "Quilt"))
    return bool(tie_ok) and mine >= best_other


def _tapestry(s: MottainaiState, q: int) -> int:
    pl = s.players[q]
    go_set = s.owns(q, "Go Set") > 0
    total = 0
    for wing, other in ((pl.gallery, pl.shop), (pl.shop, pl.gallery)):
        copies = sum(1 for w in wing if s.eff(w) == "Tapestry")
        if copies:
            size = len(wing)
            if go_set:
                size += sum(1 for w in other if s.mat(w) == C.STONE)
            total += copies * size
    return total


def score_player(s: MottainaiState, q: int, sales: list[list[int]]) -> dict[str, int]:
    pl = s.players[q]
    works = pl.works()
    work_pts = sum(s.val(w) for w in works)
    covered = _covered_sales(s, q, sales[q])
    sale_pts = sum(sales[q][m] * C.VALUES[m] for m in range(N_MATS) if covered[m])
    hand = _counts(s, pl.hand)
    multiplier = 1 + s.owns(q, "Coin")
    back_pts = sum(
        C.VALUES[m] * hand[m] * multiplier
        for m in range(N_MATS)
        if hand[m] and _qualifies(s, q, m, sales)
    )
    helpers = _counts(s, pl.helpers)
    if s.fountain is not None and s.fountain[0] == q:
        helpers[C.PAPER] += s.fountain[1]  # E-TSK-3: game ended during that Clerk task
    stone_works = sum(1 for w in works if s.mat(w) == C.STONE)
    effect_pts = (
        3 * s.owns(q, "Scroll")
        + 2 * stone_works * s.owns(q, "Bench")
        + _tapestry(s, q)
        + 3 * max(helpers) * s.owns(q, "Haniwa")
        + 3 * max(_counts(s, pl.bench)) * s.owns(q, "Teapot")
    )
    total = work_pts + sale_pts + back_pts + effect_pts
    return {
        "works": work_pts,
        "sales": sale_pts,
        "backorders": back_pts,
        "effects": effect_pts,
        "total": total,
    }


def finish(s: MottainaiState) -> None:
    """Score every player, rank them (tie-break E-SCO-6, Turtle E-END-5), emit game_over."""
    s.phase = "over"
    s.step = ""
    s.task_ctx = None
    sales = [_counts(s, pl.sales) for pl in s.players]
    breakdown = [score_player(s, q, sales) for q in range(s.n)]
    totals = [b["total"] for b in breakdown]
    dist = [(q - s.current) % s.n for q in range(s.n)]
    winner = s.turtle_winner
    details: dict[str, Any] = {"end": s.end_reason, "breakdown": breakdown}
    teams = None
    if s.teams:
        teams = ((0, 2), (1, 3))
        team_total = [totals[0] + totals[2], totals[1] + totals[3]]
        keys = [
            (
                0 if winner is not None and winner % 2 == q % 2 else 1,
                -team_total[q % 2],
                min(dist[q], dist[(q + 2) % 4]),
            )
            for q in range(s.n)
        ]
        details["team_scores"] = team_total
    else:
        keys = [(0 if q == winner else 1, -totals[q], dist[q]) for q in range(s.n)]
    if winner is not None:
        details["turtle_winner"] = winner
    ranks = competition_ranks(keys)
    s.result = Outcome(tuple(float(t) for t in totals), ranks, teams, details)
    s.emit(
        {
            "type": "game_over",
            "reason": s.end_reason,
            "scores": totals,
            "ranks": list(ranks),
            "hands": [[s.name(c) for c in pl.hand] for pl in s.players],
        }
    )
