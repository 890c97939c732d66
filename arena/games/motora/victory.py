"""Elimination and the ways a game ends (RULES.md 13)."""

from __future__ import annotations

from bisect import insort
from typing import TYPE_CHECKING

from ..base import Outcome, competition_ranks
from .board import BOARD
from .state import GameOver  # state imports victory only inside functions: no cycle

if TYPE_CHECKING:
    from .state import MotoraState


def idols_required(st: MotoraState) -> int:
    return BOARD.idols_required[st.players]


def check_idol_win(st: MotoraState) -> None:
    """RULES.md 13.2: the moment a tribe holds enough idols on its shrines, it wins."""
    need = idols_required(st)
    for seat in st.order():
        if st.idols_of(seat) >= need:
            raise GameOver("idols", [seat])


def check(st: MotoraState) -> None:
    """RULES.md 13.1 and 13.3: eliminate tribes without own living members, then the win checks."""
    alive = st.order()
    gone = [s for s in alive if not st.own(s)]
    if gone:
        idols_before = {s: st.idols_of(s) for s in gone}
        for seat in gone:
            st.tribes[seat].eliminated = True
            st.tribes[seat].eliminated_turn = st.turn
        for seat in gone:
            eliminate(st, seat)
        left = st.order()
        if len(left) == 1:
            raise GameOver("last_tribe", left)
        if not left:
            best = max(idols_before.values())
            tied = sorted(s for s in gone if idols_before[s] == best)
            raise GameOver("simultaneous_elimination", tied)
    check_idol_win(st)


def eliminate(st: MotoraState, seat: int) -> None:
    """RULES.md 13.1: the village is ruined, idols drop, equipment goes, prisoners are freed."""
    tribe = st.tribes[seat]
    village = tribe.village
    st.emit({"type": "eliminated", "seat": seat})
    if village is not None and st.owner.get(village) == seat:
        del st.owner[village]
        insort(st.ruined, village, key=BOARD.order.__getitem__)  # the view sends it as is
        for idol in st.idols:
            if idol.owner == seat:
                idol.owner = None
                idol.shrine = None
                idol.pos = village
                st.emit({"type": "idol_dropped", "idol": idol.id, "position": village})
    for uid in tribe.hand:
        st.to_bottom(uid)
    tribe.hand = []
    for prisoner in st.prisoners_of(seat):
        st.free(prisoner, "captor_eliminated")


def wrath(st: MotoraState, reason: str) -> None:
    """RULES.md 13.4: most idols, then most own living members, else a draw."""
    alive = st.order()
    key = {s: (st.idols_of(s), len(st.own(s))) for s in alive}
    best = max(key.values())
    raise GameOver(reason, sorted(s for s in alive if key[s] == best))


def outcome(st: MotoraState) -> Outcome:
    """Winners score 1/k and share rank 0; every other tribe scores 0 and shares the next rank."""
    if st.result is None:
        raise RuntimeError("the game is not over")
    winners = st.result.winners
    scores = tuple(1.0 / len(winners) if s in winners else 0.0 for s in range(st.players))
    details = {
        "reason": st.result.reason,
        "winners": list(winners),
        "turns": st.turn,
        "idols": [st.idols_of(s) for s in range(st.players)],
        "living": [len(st.own(s)) for s in range(st.players)],
        "eliminated_turn": [t.eliminated_turn if t.eliminated else None for t in st.tribes],
    }
    return Outcome(scores=scores, ranks=competition_ranks([-x for x in scores]), details=details)
