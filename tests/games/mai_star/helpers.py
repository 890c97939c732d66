"""Helpers for Mai-Star scenario tests: arrange a precise table, answer by option content."""

from __future__ import annotations

import random
from typing import Any

from arena.games.base import State
from arena.games.mai_star import GAME, MaiStarState
from arena.games.mai_star.data import FULL_DECK, KANRYOU

_SORTED_DECK = sorted(FULL_DECK)
FILLERS = ("actor_green", "actor_green", "actor_red", "actor_red", "actor_blue", "actor_blue")


def arranged(
    geishas: list[str],
    hands: dict[int, list[str]] | None = None,
    guests: dict[int, list[str]] | None = None,
    ads: dict[int, list[str]] | None = None,
    deck: list[str] | None = None,
    active: int = 0,
    rnd: int = 1,
    options: dict[str, Any] | None = None,
    seed: int = 0,
) -> MaiStarState:
    """A state whose turn for ``active`` starts now, with exactly the given cards: the game's
    short position form (README.md "Short form"), read back by ``GAME.load``.

    ``deck`` is listed top card first; cards not placed anywhere go to the discard pile. Seats
    without a listed hand get one Actor each (``FILLERS``), so the round does not end at once
    on an empty hand.
    """
    hands = dict(hands or {})
    for s in range(len(geishas)):
        hands.setdefault(s, [FILLERS[s]])
    short = {
        "form": "short",
        "geishas": geishas,
        "hands": hands,
        "guests": guests or {},
        "advertisers": ads or {},
        "deck": deck or [],
        "active": active,
        "round": rnd,
        "options": options or {},
        "seed": seed,
    }
    st = GAME.load(short)
    assert isinstance(st, MaiStarState)
    return st


def options_of(st: State) -> list[dict[str, Any]]:
    return list(st.pending()[0].options)


def kind(st: State) -> str:
    pending = st.pending()
    return pending[0].kind if pending else "none"


def answer(st: State, expected_kind: str, **fields: Any) -> None:
    """Answer the pending decision with the option whose fields include ``fields``."""
    decision = st.pending()[0]
    assert decision.kind == expected_kind, (decision.kind, expected_kind, decision.options)
    for i, opt in enumerate(decision.options):
        if all(opt.get(k) == v for k, v in fields.items()):
            st.act(decision.seat, i)
            return
    raise AssertionError(f"no option {fields} in {decision.kind}: {decision.options}")


def has_option(st: State, **fields: Any) -> bool:
    return any(all(o.get(k) == v for k, v in fields.items()) for o in options_of(st))


def ids(cards: list[int]) -> list[str]:
    from arena.games.mai_star.data import CARD_IDS

    return [CARD_IDS[c] for c in cards]


def hand(st: MaiStarState, seat: int) -> list[str]:
    return sorted(ids(st.seats[seat].hand))


def events_of(st: MaiStarState, seat: int, start: int = 0) -> list[dict[str, Any]]:
    return st.events_since(seat, start)[0]


def check_conservation(state: State) -> None:
    """RULES.md section 1/13: every one of the 75 cards is in exactly one place."""
    assert isinstance(state, MaiStarState)
    places: list[int] = list(state.deck) + list(state.discard)
    for area in state.seats:
        places += area.hand + area.guests + area.ads
    if state.round:
        places.sort()
        assert places == _SORTED_DECK
    assert not state.pending() or len(state.pending()) == 1


def permute_hidden(state: State, observer: int, actor: int, rng: random.Random) -> State:
    """Shuffle what ``observer`` cannot see: other hands and the middle of the deck.

    Kept in place: the actor's hand; a hand the actor is looking at (Sumo Wrestler); the active
    player's hand (after a reaction, prompts with nothing to choose are skipped according to it,
    which decides how many events this answer releases); the deck's top 6 cards (this answer
    may draw them for the observer); the cards Harukaze put under the deck (her player knows
    them); the District Kanryou (whether a target can react decides when an effect's events
    appear, though the same events appear either way).
    """
    assert isinstance(state, MaiStarState)
    bottom = state.bottom_known
    deck = state.deck
    slots = [i for i in range(bottom, len(deck) - 6) if deck[i] != KANRYOU]
    looked_at = state.handler[1][0] if state.handler[0] == "sumo_discard" else -1
    kept = (observer, actor, looked_at, state.active)
    seats = [s for s in range(state.n) if s not in kept]
    pool = [deck[i] for i in slots]
    for s in seats:
        pool += [c for c in state.seats[s].hand if c != KANRYOU]
    rng.shuffle(pool)
    for i in slots:
        deck[i] = pool.pop()
    for s in seats:
        area = state.seats[s]
        keep = [c for c in area.hand if c == KANRYOU]
        size = len(area.hand) - len(keep)
        area.hand = keep + [pool.pop() for _ in range(size)]
    return state
