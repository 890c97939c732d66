"""Setup and the turn sequence (RULES.md 3, 4, 14): the top of the rules generator."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from . import combat, equipment, events, placement, resources
from .board import BOARD
from .cards import DECKS, deck_uids
from .model import (
    ACTIVE,
    INJURED,
    NEXT_INJURED,
    NEXT_SERIOUS,
    PLACED,
    RETURNED,
    SERIOUS,
    Idol,
)
from .victory import wrath

if TYPE_CHECKING:
    from .state import Flow, MotoraState


def play(st: MotoraState) -> Flow:
    """The whole game; ends when a GameOver is raised anywhere below."""
    from .state import GameOver

    if st.result is not None:
        return
    try:
        if st.phase in ("setup", "village_choice"):
            yield from setup(st)
        while True:
            yield from turn(st)
    except GameOver as over:
        st.result = over
        st.phase = "over"
        st.fight = None
        st.frames.clear()
        st.emit({"type": "game_over", "reason": over.reason, "winners": over.winners})


def setup(st: MotoraState) -> Flow:
    """RULES.md 3: tiles, first player, village choice, idols, decks.

    The village choice needs no frame: the next tribe to choose is the first in turn order
    without a village.
    """
    if st.phase == "setup":
        villages = [t.id for t in BOARD.village_tiles]
        others = [t.id for t in BOARD.other_tiles]
        st.rng.shuffle(villages)
        st.rng.shuffle(others)
        spots = BOARD.village_spots + BOARD.tile_spots
        for pos, tile in zip(spots, villages + others, strict=True):
            st.tile_at[pos] = tile
            st.pos_of_tile[tile] = pos
        st.first = st.rng.randrange(st.players)
        st.emit({"type": "setup", "tiles": dict(st.tile_at), "first_player": st.first})
        st.phase = "village_choice"
    for seat in st.order():
        if st.tribes[seat].village is None:
            yield from choose_village(st, seat)
    for pos in BOARD.village_spots:
        if pos not in st.owner:
            st.ruined.append(pos)
            add_idol(st, pos)
    if st.players == 6:
        roll = st.d6("temple_idol")
        add_idol(st, st.pos_of_tile[BOARD.groups["temple"][roll]])
    for deck in DECKS:
        cards = deck_uids(deck)
        st.rng.shuffle(cards)
        st.decks[deck] = cards


def choose_village(st: MotoraState, seat: int) -> Flow:
    """Decision D1: a free village spot, whose tile gives the starting stock."""
    free = [p for p in BOARD.village_spots if p not in st.owner]
    options = []
    for pos in free:
        tile = st.tile(pos)
        options.append({"position": pos, "tile": tile.id, "name": tile.name, **tile.start})
    choice = yield from st.ask(seat, "village", options, "Choose your village spot.")
    pos = choice["position"]
    tribe = st.tribes[seat]
    tribe.village = pos
    tribe.village_tile = choice["tile"]
    st.owner[pos] = seat
    tribe.food, tribe.water, tribe.shelter = choice["food"], choice["water"], choice["shelter"]
    for _ in range(int(BOARD.constants["starting_members"])):
        st.new_member(seat, ACTIVE)
    st.emit({"type": "village", "seat": seat, "position": pos, "tile": choice["tile"]})


def add_idol(st: MotoraState, pos: str) -> None:
    idol = Idol(id=len(st.idols), pos=pos)
    st.idols.append(idol)
    st.emit({"type": "idol_placed", "idol": idol.id, "position": pos})


def turn(st: MotoraState) -> Flow:
    """RULES.md 4: one full round for every tribe; the frame counts the steps done."""
    fresh = not st.resuming()
    frame = st.enter("turn", step=0)
    if fresh:
        st.turn += 1
        limit = st.options["turn_limit"]
        if limit and st.turn > limit:
            wrath(st, "turn_limit")
        if st.turn > 1:
            st.first = next(
                (st.first + i) % st.players
                for i in range(1, st.players + 1)
                if not st.tribes[(st.first + i) % st.players].eliminated
            )
        st.emit({"type": "turn", "turn": st.turn, "first_player": st.first})
    while frame["step"] < len(STEPS):
        phase, procedure = STEPS[frame["step"]]
        st.phase = phase
        yield from procedure(st)
        frame["step"] += 1
    st.leave()
    end_of_turn(st)


def start_window(st: MotoraState) -> Flow:
    yield from equipment.window(st, "start_of_turn")


def consumption_window(st: MotoraState) -> Flow:
    yield from equipment.window(st, "before_consumption")


# The steps of a turn (RULES.md 4) and the phase each one shows in the view.
STEPS: tuple[tuple[str, Callable[[MotoraState], Flow]], ...] = (
    ("start_of_turn", start_window),
    ("placement_stage_1", placement.stage_one),
    ("event", events.event_step),
    ("event", events.card_hunts),
    ("placement_stage_2", placement.stage_two),
    ("combat", combat.combat_phase),
    ("actions", resources.action_phase),
    ("before_consumption", consumption_window),
    ("consumption", resources.consumption_step),
)
PHASE_STEPS = {phase: i for i, (phase, _) in reversed(list(enumerate(STEPS)))}  # first step


def end_of_turn(st: MotoraState) -> None:
    """RULES.md 14: members come back, gear returns, this turn's effects end."""
    moves = {PLACED: ACTIVE, RETURNED: ACTIVE, NEXT_INJURED: INJURED, NEXT_SERIOUS: SERIOUS}
    for m in st.members:
        if m.state in moves:
            m.state = moves[m.state]
            m.pos = None
        m.gear = None
        m.new_this_turn = m.home_first = m.captured_this_turn = False
        m.placed_index = m.stage = 0
    for pos in st.restricted:
        st.restricted[pos] = False
    for tribe in st.tribes:
        tribe.placed_count = 0
        tribe.home_used = tribe.recruited = False
        tribe.plenty = tribe.combat_mod = tribe.procession = 0
        tribe.hunts = []
        tribe.need_mod = {}
        tribe.ward = False
    for idol in st.idols:
        idol.moved = False
    st.gathered = {}
    st.fished = {}
    st.need_mod = {}
    st.event = None
    st.emit({"type": "end_of_turn", "turn": st.turn})
