"""What one seat may know (RULES.md section 17): public table, own hand, counts of the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .data import CARD_IDS, COLOURS, GEISHAS, HAND_SIZES, HARUKAZE, SKILLS
from .positions import encode_decision, encode_frame

if TYPE_CHECKING:
    from .state import MaiStarState


_ID = CARD_IDS.__getitem__


def _table(st: MaiStarState, seat: int) -> dict[str, Any]:
    area = st.seats[seat]
    out: dict[str, Any] = {
        "guests": list(map(_ID, area.guests)),
        "advertisers": list(map(_ID, area.ads)),
        "hand_size": len(area.hand),
        "total": area.total,
        "round_vp": area.round_vp.copy(),
        "round_hand": area.round_hand.copy(),
        "extra_turns": area.extra_turns,
    }
    if area.geisha >= 0:
        rep = st.reputation(seat)
        out["geisha"] = GEISHAS[area.geisha].name
        out["reputation"] = {SKILLS[0]: rep[0], SKILLS[1]: rep[1], SKILLS[2]: rep[2]}
    return out


def build_view(st: MaiStarState, seat: int) -> dict[str, Any]:
    decision = st.decision
    if st.over:
        phase = "over"
    elif decision is not None and decision.kind == "geisha":
        phase = "selection"
    else:
        phase = "play"
    view: dict[str, Any] = {
        "seat": seat,
        "players": st.n,
        "round": st.round,
        "phase": phase,
        "hand": sorted(map(_ID, st.seats[seat].hand)),
        "deck_size": len(st.deck),
        "discard": list(map(_ID, st.discard)),
        "tables": [_table(st, s) for s in range(st.n)],
        "start_seat": st.start_seat,
        "akenohoshi_used": st.akenohoshi_used,
    }
    if st.active >= 0:
        view["active"] = st.active
    if phase == "selection":
        view["available_geishas"] = [GEISHAS[g].name for g in st.available]
    if phase == "play" and st.active >= 0:
        view["turn_flags"] = {
            "suzune_used": st.suzune_used,
            "momiji_used": st.momiji_used,
            "natsumi_uses": st.natsumi_uses,
        }
        if st.boost >= 0:
            view["turn_flags"]["boost"] = COLOURS[st.boost]
    if st.options["limited_guests"] != "off" and st.round:
        view["guest_limit"] = HAND_SIZES[st.round - 1]
        view["guest_limit_reached"] = st.limited_flag
    if st.lap is not None:
        view["final_lap_remaining"] = list(st.lap)
    if st.bottom_known and st.ability(seat) == HARUKAZE:
        view["deck_bottom"] = list(map(_ID, st.deck[: st.bottom_known]))
    if decision is not None and decision.seat == seat:
        if decision.kind == "reaction":
            view["reaction_to"] = dict(st.resolving or {})
        view["decision"] = {
            **(encode_decision(st) or {}),
            "stack": [encode_frame(f) for f in st.stack],
        }
    return view
