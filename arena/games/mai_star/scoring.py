"""Round scoring, the next round's starting player and the final ranking (sections 12-14, R37)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Outcome, competition_ranks
from .data import CARDS, HAND_PENALTY

if TYPE_CHECKING:
    from .state import MaiStarState


def round_score(income: int, hand_size: int) -> int:
    """Income minus 2 per card in hand, floored at 0 per round (section 12, R36)."""
    return max(0, income - HAND_PENALTY * hand_size)


def score_round(st: MaiStarState) -> None:
    rows = []
    for s, seat in enumerate(st.seats):
        income = sum(CARDS[c].income for c in seat.guests)
        vp = round_score(income, len(seat.hand))
        seat.total += vp
        seat.round_vp.append(vp)
        seat.round_hand.append(len(seat.hand))
        rows.append(
            {"seat": s, "income": income, "hand": len(seat.hand), "vp": vp, "total": seat.total}
        )
    st.emit({"type": "round_score", "round": st.round, "scores": rows})


def next_start_seat(st: MaiStarState) -> int:
    """Lowest total starts; a tie goes to the one closest clockwise after a leader (13, R37)."""
    totals = [s.total for s in st.seats]
    low, high = min(totals), max(totals)
    if low == high:
        return st.rng.randrange(st.n)
    leaders = [s for s in range(st.n) if totals[s] == high]
    candidates = [s for s in range(st.n) if totals[s] == low]
    distance = {c: min((c - h) % st.n for h in leaders) for c in candidates}
    best = min(distance.values())
    closest = [c for c in candidates if distance[c] == best]
    return closest[0] if len(closest) == 1 else closest[st.rng.randrange(len(closest))]


def final_outcome(st: MaiStarState) -> Outcome:
    """Total VP, tie-break on fewest cards in hand at the end of round 3 (section 14, R38)."""
    totals = [s.total for s in st.seats]
    last_hand = [s.round_hand[-1] for s in st.seats]
    ranks = competition_ranks([(-totals[s], last_hand[s]) for s in range(st.n)])
    details = {
        "round_vp": [list(s.round_vp) for s in st.seats],
        "round_hand": [list(s.round_hand) for s in st.seats],
    }
    return Outcome(scores=tuple(float(t) for t in totals), ranks=ranks, details=details)
