"""What one seat may see (RULES 14): public zones in full, hidden ones as counts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .position import seen_by

if TYPE_CHECKING:
    from .state import MottainaiState


def build_view(s: MottainaiState, seat: int) -> dict[str, Any]:
    cards = s.cards
    seats = []
    for q, pl in enumerate(s.players):
        entry: dict[str, Any] = {
            "seat": q,
            "hand_count": len(pl.hand),
            "waiting_count": len(pl.waiting),
            "helpers": cards(pl.helpers),
            "bench": cards(pl.bench),
            "sales": cards(pl.sales),
            "gallery": cards(pl.gallery),
            "gift_shop": cards(pl.shop),
        }
        if q == seat:
            entry["hand"] = cards(pl.hand)
        if pl.task is not None:
            if pl.task_down:
                entry["task_face_down"] = True
            else:
                entry["task"] = s.card(pl.task)
        if pl.waiting_known:
            entry["waiting_known"] = cards(pl.waiting_known)
        seats.append(entry)
    view: dict[str, Any] = {
        "seat": seat,
        "players": s.n,
        "current": s.current,
        "phase": s.phase,
        "step": s.step,
        "turn": s.turn_no,
        "wing_threshold": s.threshold,
        "deck_size": len(s.deck),
        "floor": cards(s.floor),
        "seats": seats,
        "extra_turns": s.extra_turns,
    }
    if s.teams:
        view["teams"] = [[0, 2], [1, 3]]
    if s.task_ctx is not None:
        view["task"] = dict(s.task_ctx)
    if s.top_known and s.deck:
        view["deck_top"] = s.card(s.deck[-1])
    if s.result is not None:
        view["scores"] = list(s.result.scores)
        view["ranks"] = list(s.result.ranks)
    elif seat == s.current:
        view["turn_start"] = seen_by(s.mark, seat, s.revealed, s.jars, s.answers)
    return view
