"""Contract properties over many seeded random Motora games (common brief; RULES.md 2, 18)."""

from __future__ import annotations

import random

import pytest

from arena.games.base import OptionError
from arena.games.motora import GAME
from arena.games.motora.board import BOARD
from arena.games.motora.cards import CARDS
from arena.games.motora.model import LIVING, PLACED, PRISONER
from arena.games.motora.state import MotoraState
from tests.games.engine_checks import (
    check_cross_process_determinism,
    check_illegal_answers_rejected,
    check_no_leak,
    check_outcome,
    random_answers,
)

PLAYERS = (2, 3, 4, 5, 6)


def invariants(state: object) -> None:
    """RULES.md 2: every card, member and idol is in exactly one place; stocks never negative."""
    st = state
    assert isinstance(st, MotoraState)
    places = [u for deck in st.decks.values() for u in deck] + list(st.discard)
    places += [u for t in st.tribes for u in t.hand]
    if st.event is not None and st.event not in st.discard:
        places.append(st.event)
    if st.turn:  # the decks are formed after the village choice
        assert sorted(places) == list(range(len(CARDS)))
    for t in st.tribes:
        assert min(t.food, t.water, t.shelter) >= 0
        assert st.tribe_size(t.seat) <= BOARD.constants["max_tribe_size"]
        if t.eliminated:
            assert not st.own(t.seat)
            assert not t.hand
    for m in st.members:
        assert (m.pos is not None) == (m.state == PLACED)
        if m.state == PRISONER:
            assert m.captor is not None and not st.tribes[m.captor].eliminated
        if m.gear is not None:
            assert m.state == PLACED and m.gear in st.tribes[m.tribe].hand
            assert CARDS[m.gear].assignable
    carried = [m.gear for m in st.members if m.gear is not None]
    assert len(carried) == len(set(carried))
    for idol in st.idols:
        on_shrine = idol.owner is not None
        assert on_shrine == (idol.pos is None) == (idol.shrine is not None)
        if on_shrine:
            assert not st.tribes[idol.owner].eliminated
            assert st.tribes[idol.owner].village in st.owner


@pytest.mark.parametrize("players", PLAYERS)
def test_random_games_end_with_valid_outcome(players: int) -> None:
    """200 random games per player count: every option accepted, games end, invariants hold."""
    for seed in range(200):
        on_step = invariants if seed % 10 == 0 else None
        state, _ = random_answers(GAME, players, seed, policy_seed=seed, on_step=on_step)
        check_outcome(state, players)
        assert state.outcome().details["reason"] in (
            "idols",
            "last_tribe",
            "simultaneous_elimination",
            "wrath_of_the_gods",
            "turn_limit",
        )
        for s in range(players):
            assert (
                all(m.state not in LIVING for m in state.own(s)) or not state.tribes[s].eliminated
            )


def rolls(state: MotoraState) -> list[int]:
    """Every die value the game announced: fight dice, rerolls and single rolls."""
    out: list[int] = []
    for entry in state.event_log():
        event = entry["event"]
        if event["type"] == "fight_roll":
            out += [value for side in event["dice"] for value in side["dice"]]
        elif event["type"] == "reroll" or event["type"] == "die":
            out.append(event["roll"])
    return out


def test_every_die_is_a_d6() -> None:
    """RULES.md conventions, 8: every die rolled (a fight's two per side, a reroll, a single
    roll) shows 1 to 6; over a few random games every face shows up."""
    seen: set[int] = set()
    for seed in range(6):
        state, _ = random_answers(GAME, 4, seed, policy_seed=seed)
        seen.update(rolls(state))
    assert seen == set(range(1, 7))


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize(
    "options",
    [{"turn_limit": 3}, {"stockpile_cap": 12}, {"wrath_of_the_gods": False, "turn_limit": 40}],
)
def test_random_games_with_options(players: int, options: dict) -> None:
    """Game options (RULES.md 11.6, 13.4): games still end, with invariants checked."""
    for seed in range(20):
        state, _ = random_answers(GAME, players, seed, options, seed, on_step=invariants)
        check_outcome(state, players)
        if "turn_limit" in options:
            assert state.turn <= options["turn_limit"] + 1
        if options.get("stockpile_cap"):
            assert all(max(t.food, t.water, t.shelter) <= 12 + 30 for t in state.tribes)


def test_turn_limit_ends_by_wrath_rules() -> None:
    """RULES.md 13.4: with turn_limit N the game ends at the start of turn N+1, same tie-break."""
    state, _ = random_answers(GAME, 6, 1, {"turn_limit": 1}, 3)
    details = state.outcome().details
    if details["reason"] == "turn_limit":
        assert state.turn == 2


def test_wrath_off_requires_turn_limit() -> None:
    with pytest.raises(OptionError):
        GAME.resolve_options({"wrath_of_the_gods": False}, 3)
    with pytest.raises(OptionError):
        GAME.new(7, 0)


@pytest.mark.parametrize("players", PLAYERS)
def test_illegal_answers_rejected(players: int) -> None:
    state = GAME.new(players, 11)
    rng = random.Random(players)
    step = 0
    while state.pending():
        if step % 97 == 0:
            check_illegal_answers_rejected(state, players)
        d = state.pending()[0]
        state.act(d.seat, rng.randrange(len(d.options)))
        step += 1
    check_illegal_answers_rejected(state, players)


@pytest.mark.parametrize("players", PLAYERS)
def test_cross_process_determinism(players: int) -> None:
    for seed in (1, 2):
        check_cross_process_determinism(GAME, players, seed)


def permute(state: object, observer: int, actor: int, rng: random.Random) -> MotoraState:
    """Shuffle what ``observer`` cannot see: the decks below the events one answer can reveal,
    and the face-down cards of seats other than the observer and the actor (keeping each seat's
    count per deck and kind)."""
    st = state
    assert isinstance(st, MotoraState)
    events = st.decks["event"]
    rest = events[3:]
    rng.shuffle(rest)
    events[3:] = rest
    for name in ("craftsmen", "temple"):
        rng.shuffle(st.decks[name])
    others = [s for s in range(st.players) if s not in (observer, actor)]
    for deck in ("craftsmen", "temple"):
        for kind in ("gear", "single_use"):
            slots = []
            for s in others:
                free = st.unattached(s)
                slots += [(s, u) for u in free if CARDS[u].deck == deck and CARDS[u].kind == kind]
            cards = [u for _, u in slots]
            rng.shuffle(cards)
            for (s, old), new in zip(slots, cards, strict=True):
                hand = st.tribes[s].hand
                hand[hand.index(old)] = -1 - new
            for s in others:
                st.tribes[s].hand = [-1 - u if u < 0 else u for u in st.tribes[s].hand]
    return st


@pytest.mark.parametrize("players", PLAYERS)
def test_no_leak(players: int) -> None:
    """RULES.md 18: decks and face-down equipment never reach another seat's view or events."""
    for seed in range(3):
        assert check_no_leak(GAME, players, seed, permute, every=53) > 0


def test_clone_and_snapshot_replay_the_game() -> None:
    """A clone (and a restored snapshot) is the same game and goes on identically; the clone's
    log starts empty, like a loaded position's."""
    from tests.games.engine_checks import digest

    state, answers = random_answers(GAME, 4, 5, policy_seed=5)
    half = GAME.new(4, 5)
    for choice in [c for _, c in answers[: len(answers) // 2]]:
        half.act(half.pending()[0].seat, choice)
    before = half.event_count()
    twin = half.clone()
    restored = GAME.restore(half.snapshot())
    for s in (half, twin, restored):
        for choice in [c for _, c in answers[len(answers) // 2 :]]:
            s.act(s.pending()[0].seat, choice)
    assert digest(half) == digest(restored) == digest(state)
    assert twin.event_log() == state.event_log()[before:]
    assert twin.outcome() == state.outcome()


def test_public_data_and_view_are_msgpack_able() -> None:
    """The welcome data and views use str keys and lists only: they go to bots inside msgpack
    maps with string keys (protocol/PROTOCOL.md)."""
    import msgpack

    data = GAME.public_data(GAME.resolve_options({}, 3))
    assert {t["id"] for t in data["tiles"]} == set(BOARD.tiles)
    assert len(data["cards"]) == len(CARDS)
    state, _ = random_answers(GAME, 3, 4, policy_seed=4)
    for blob in (data, state.view(0), state.view(2)):
        assert msgpack.unpackb(msgpack.packb(blob), strict_map_key=True) == blob


WELCOME = GAME.public_data(GAME.resolve_options({}, 2))


def view_matches_state(state: object) -> None:
    """Every member and idol row, and each tribe's counts, agree with the state itself."""
    st = state
    assert isinstance(st, MotoraState)
    seen = st.view(0)
    for m, row in zip(st.members, seen["members"], strict=True):
        named = dict(zip(WELCOME["member_fields"], row, strict=True))
        assert named == {
            "tribe": m.tribe,
            "state": m.state,
            "position": m.pos,
            "captor": m.captor,
            "placed_index": m.placed_index,
            "stage": m.stage,
            "gear": m.gear,
            "home_first": m.home_first,
            "new_this_turn": m.new_this_turn,
        }
    idols = [dict(zip(WELCOME["idol_fields"], row, strict=True)) for row in seen["idols"]]
    assert idols == [
        {"position": i.pos, "owner": i.owner, "shrine": i.shrine, "moved": i.moved}
        for i in st.idols
    ]
    for s, row in enumerate(seen["tribes"]):
        tribe = dict(zip(WELCOME["tribe_fields"], row, strict=True))
        assert tribe["seat"] == s
        assert tribe["tribe_size"] == st.tribe_size(s)
        assert tribe["life_bonus"] == st.bonus(s, "life")
        assert tribe["death_bonus"] == st.bonus(s, "death")
        face_down = [CARDS[u].deck for u in st.unattached(s)]
        assert tribe["face_down_craftsmen"] == face_down.count("craftsmen")
        assert tribe["face_down_temple"] == face_down.count("temple")


@pytest.mark.parametrize("players", [2, 6])
def test_compact_view_matches_the_state(players: int) -> None:
    """The compact rows and flat tribe counts say the same as the state, step after step."""
    for seed in range(2):
        random_answers(GAME, players, seed, policy_seed=seed, on_step=view_matches_state)
