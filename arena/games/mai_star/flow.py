"""Game flow: geisha selection, rounds, the turn skeleton and the end-of-turn checks.

RULES.md sections 3, 5, 11, 13, 15.1 and 15.3; the turn procedure of section 19.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .data import FULL_DECK, GEISHA_INDEX, GEISHAS, HAND_SIZES
from .geishas import oboro_extra
from .ops import step
from .scoring import next_start_seat, score_round

if TYPE_CHECKING:
    from .state import MaiStarState


def counterclockwise(n: int, first: int) -> tuple[int, ...]:
    """Selection order: ``first``, then the seats to its right (section 3)."""
    return tuple((first - i) % n for i in range(n))


def setup(st: MaiStarState) -> None:
    """Schedule the start of the game (section 3; Management Mode: section 15.1)."""
    if st.options["management_mode"]:
        st.push("start_round", 1)
        return
    order = counterclockwise(st.n, st.rng.randrange(st.n))
    st.start_seat = order[-1]  # the last chooser starts round 1
    st.push("start_round", 1)
    st.push("select_geisha", order, 0)


@step("select_geisha")
def select_geisha(st: MaiStarState, order: tuple[int, ...], i: int) -> None:
    """D1: the next seat in selection order picks one of the remaining geishas."""
    seat = order[i]
    st.active = seat
    options = [{"geisha": GEISHAS[g].name} for g in st.available]
    st.ask(seat, "geisha", options, "Choose your geisha", "geisha_chosen", order, i)


@step("geisha_chosen")
def geisha_chosen(st: MaiStarState, option: dict[str, Any], order: tuple[int, ...], i: int) -> None:
    g = GEISHA_INDEX[option["geisha"]]
    st.available.remove(g)
    st.seats[order[i]].geisha = g
    st.emit({"type": "geisha", "seat": order[i], "geisha": GEISHAS[g].name})
    if i + 1 < len(order):
        st.push("select_geisha", order, i + 1)


@step("start_round")
def start_round(st: MaiStarState, rnd: int) -> None:
    """Collect and shuffle all 75 cards, deal, pick the starting player (sections 3, 13)."""
    management = st.options["management_mode"]
    st.round = rnd
    st.deck = list(FULL_DECK)
    st.rng.shuffle(st.deck)
    st.discard = []
    st.limited_flag = False
    st.lap = None
    st.bottom_known = 0
    st.akenohoshi_used = False
    for seat in st.seats:
        seat.hand, seat.guests, seat.ads, seat.extra_turns = [], [], [], 0
        if management:
            seat.geisha = -1
    order: tuple[int, ...] = ()
    if management:
        st.available = list(range(len(GEISHAS)))
        first = st.rng.randrange(st.n) if rnd == 1 else next_start_seat(st)
        order = counterclockwise(st.n, first)
        st.start_seat = order[-1] if rnd == 1 else first
    elif rnd > 1:
        st.start_seat = next_start_seat(st)
    st.emit({"type": "round_start", "round": rnd, "start_seat": st.start_seat})
    size = HAND_SIZES[rnd - 1]
    for s in range(st.n):
        st.draw(s, size + oboro_extra(st, s), "deal")
    st.push("turn", st.start_seat, False)
    if order:  # Management Mode: choose after the deal, then Oboro's extra cards (R35, R42)
        st.push("oboro_bonus")
        st.push("select_geisha", order, 0)


@step("turn")
def turn(st: MaiStarState, seat: int, extra: bool) -> None:
    """Section 5: reset the per-turn flags, then pre-action, main action, post-action, end."""
    st.active = seat
    st.suzune_used = False
    st.momiji_used = False
    st.natsumi_uses = 0
    st.boost = -1
    st.emit({"type": "turn", "seat": seat, "extra": extra, "final_lap": st.lap is not None})
    st.push("end_turn", seat)
    st.push("post_action", seat)
    st.push("main_action", seat)
    st.push("pre_action", seat)


@step("end_turn")
def end_turn(st: MaiStarState, seat: int) -> None:
    """Section 11 checks, then the Doctor's extra turns or the next seat (section 5 step 7)."""
    if st.boost >= 0:
        st.boost = -1
        st.emit({"type": "boost_end", "seat": seat})
    if any(not s.hand for s in st.seats):
        st.push("end_round", "empty_hand")
    elif st.limited_flag:
        st.push("end_round", "limited_guests")
    elif st.lap is not None:
        if st.lap:
            st.push("turn", st.lap.pop(0), False)
        else:
            st.push("end_round", "final_lap")
    elif not st.deck:
        if st.options["longer_six_player"]:
            for s in st.seats:
                s.extra_turns = 0
            st.lap = [(seat + i) % st.n for i in range(1, st.n + 1)]
            st.emit({"type": "final_lap", "seat": seat})
            st.push("turn", st.lap.pop(0), False)
        else:
            st.push("end_round", "deck_exhausted")
    elif st.seats[seat].extra_turns > 0:
        st.seats[seat].extra_turns -= 1
        st.push("turn", seat, True)
    else:
        st.push("turn", (seat + 1) % st.n, False)


@step("end_round")
def end_round(st: MaiStarState, reason: str) -> None:
    """Score the round (section 12); extra turns are lost; next round or the end (section 14)."""
    for s in st.seats:
        s.extra_turns = 0
    st.active = -1
    st.lap = None
    st.emit({"type": "round_end", "round": st.round, "reason": reason})
    score_round(st)
    if st.round < len(HAND_SIZES):
        st.push("start_round", st.round + 1)
    else:
        st.over = True
        outcome = st.outcome()
        st.emit({"type": "game_over", "scores": list(outcome.scores), "ranks": list(outcome.ranks)})
