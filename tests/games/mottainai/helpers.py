"""Helpers for the Mottainai tests: invariants (RULES 16) and answering decisions by content."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.games.base import State
from arena.games.mottainai import GAME
from arena.games.mottainai import cards as C
from arena.games.mottainai.state import MottainaiState


def zones(s: MottainaiState) -> list[int]:
    out = list(s.deck) + list(s.floor) + list(s.box)
    for pl in s.players:
        out += pl.hand + pl.waiting + pl.helpers + pl.bench + pl.sales + pl.gallery + pl.shop
        if pl.task is not None:
            out.append(pl.task)
    return out


def check_invariants(state: State) -> None:
    """RULES 16, checked after every answer."""
    s = state
    assert isinstance(s, MottainaiState)
    every = zones(s)
    assert sorted(every) == list(range(C.DECK_SIZE * s.decks)), "card conservation"
    for q, pl in enumerate(s.players):
        if q != s.current:
            assert not pl.waiting, f"seat {q} has waiting cards outside its turn"
        assert all(w in pl.waiting for w in pl.waiting_known)
    for u in s.kite:
        assert s.name(u) == "Kite"
    pending = s.pending()
    if pending:
        assert len(pending) == 1 and pending[0].seat == s.current
        assert pending[0].options
        assert s.deck, "deck empty while running"
        for q in range(s.n):
            assert max(s.wing_sizes(q)) < s.threshold
            assert not s.turtle_done(q)
        pl = s.players[s.current]
        if s.phase == "morning" and s.step != "hand_limit":
            assert len(pl.hand) <= 5 or s.owns(s.current, "Handkerchief")
    else:
        outcome = s.outcome()
        assert sorted(outcome.ranks).count(0) == (2 if s.teams else 1)


def start(layout: dict[str, Any], players: int = 2, **options: Any) -> MottainaiState:
    """The game at the short position ``layout`` (README "Short form"), for scenario tests."""
    short = {"form": "short", "game": "mottainai", "players": players, "options": options}
    state = GAME.load({**short, **layout})
    assert isinstance(state, MottainaiState)
    return state


def opt_matches(option: dict[str, Any], want: dict[str, Any]) -> bool:
    return all(option.get(k) == v for k, v in want.items())


def answer(s: MottainaiState, kind: str, **want: Any) -> None:
    """Answer the pending decision, which must be of ``kind``, with the first matching option."""
    dec = s.pending()[0]
    assert dec.kind == kind, f"expected {kind}, pending {dec.kind}: {dec.options}"
    for i, option in enumerate(dec.options):
        if opt_matches(option, want):
            s.act(dec.seat, i)
            return
    raise AssertionError(f"no option {want} in {dec.kind}: {dec.options}")


def kinds_until(s: MottainaiState, kind: str, default: Callable[[Any], int] | None = None) -> None:
    """Answer every decision before ``kind`` with its first option (usually decline/stop/none)."""
    for _ in range(500):
        dec = s.pending()[0]
        if dec.kind == kind:
            return
        s.act(dec.seat, 0 if default is None else default(dec))
    raise AssertionError(f"never reached {kind}")


def options_of(s: MottainaiState, kind: str) -> list[dict[str, Any]]:
    dec = s.pending()[0]
    assert dec.kind == kind, f"expected {kind}, pending {dec.kind}: {dec.options}"
    return list(dec.options)


def seat(s: MottainaiState, q: int) -> dict[str, list[str]]:
    pl = s.players[q]
    return {
        "hand": names(pl.hand),
        "waiting": names(pl.waiting),
        "helpers": names(pl.helpers),
        "bench": names(pl.bench),
        "sales": names(pl.sales),
        "gallery": names(pl.gallery),
        "gift_shop": names(pl.shop),
    }


def names(uids: list[int]) -> list[str]:
    return [C.DEFS[u % C.DECK_SIZE].name for u in uids]


def no_task(s: MottainaiState) -> None:
    """Answer the Morning with first options, then choose no task (a lone Prayer follows)."""
    kinds_until(s, "new_task")
    answer(s, "new_task", choice="none")


def set_task(s: MottainaiState, card: str) -> None:
    kinds_until(s, "new_task")
    answer(s, "new_task", choice="hand", card=card)


def end_now(layout: dict[str, Any], players: int = 2, **options: Any) -> MottainaiState:
    """Start from ``layout`` with a one-card deck: the current seat's lone Prayer ends the game."""
    s = start({**layout, "deck": ["Sketch"], "exact_deck": True}, players, **options)
    no_task(s)
    assert not s.pending()
    return s


def task_events(s: MottainaiState) -> list[dict[str, Any]]:
    return [e["event"] for e in s.event_log() if e["event"]["type"] == "task"]


def breakdown(s: MottainaiState, q: int) -> dict[str, int]:
    return s.outcome().details["breakdown"][q]
