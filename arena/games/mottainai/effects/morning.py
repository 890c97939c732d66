"""Morning effects (RULES 4.1 step 2): Bowl, Daidoro, Kite, Pin, Umbrella."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import cards as C
from ..model import Flow, ask
from .registry import hook

if TYPE_CHECKING:
    from ..state import MottainaiState

FLOOR_TARGET = 3


@hook("Bowl")
def bowl(s: MottainaiState, p: int, src: int, ctx: Any) -> Flow:
    """Top card of the deck into your craft bench."""
    card = s.take_top()
    s.players[p].bench.append(card)
    s.emit({"type": "move", "card": s.name(card), "src": "deck", "dst": "bench", "seat": p})
    s.check_end()
    return
    yield


def _floor_short(s: MottainaiState, p: int, src: int, ctx: Any) -> bool:
    return len(s.floor) < FLOOR_TARGET


@hook("Daidoro", usable=_floor_short)
def daidoro(s: MottainaiState, p: int, src: int, ctx: Any) -> Flow:
    """Deal to the floor until it holds three cards, one card at a time."""
    while len(s.floor) < FLOOR_TARGET:
        s.deal_to_floor("Daidoro")
    return
    yield


@hook("Umbrella")
def umbrella(s: MottainaiState, p: int, src: int, ctx: Any) -> Flow:
    """Deal one card to the floor; then you may sell one helper of its material."""
    card = s.deal_to_floor("Umbrella")
    mat = s.base_mat(card)
    pl = s.players[p]
    helpers = [h for h in pl.helpers if s.base_mat(h) == mat]
    if not helpers:
        return
    sold = yield from ask(
        p,
        "umbrella_sell",
        f"Umbrella: sell a {C.MATERIALS[mat]} helper?",
        [{"choice": "decline"}] + [s.opt(h) for h in helpers],
        [None, *helpers],
    )
    if sold is not None:
        pl.helpers.remove(sold)
        pl.sales.append(sold)
        s.emit({"type": "move", "card": s.name(sold), "src": "helpers", "dst": "sales", "seat": p})


def _has_hand(s: MottainaiState, p: int, src: int, ctx: Any) -> bool:
    return bool(s.players[p].hand)


@hook("Kite", usable=_has_hand)
def kite(s: MottainaiState, p: int, src: int, ctx: Any) -> Flow:
    """A hand card to a work owner's bench, then copy one of that player's works (E-KITE-*)."""
    pl = s.players[p]
    card = yield from ask(
        p,
        "kite_card",
        "Kite: which hand card goes to a craft bench?",
        [s.opt(c) for c in pl.hand],
        list(pl.hand),
    )
    owners = [(p + k) % s.n for k in range(s.n) if s.work_count((p + k) % s.n)]
    q = yield from ask(
        p,
        "kite_player",
        "Kite: whose bench, and whose work to copy?",
        [{"seat": q} for q in owners],
        owners,
    )
    pl.hand.remove(card)
    s.players[q].bench.append(card)
    event = {"type": "move", "card": s.name(card), "src": "hand", "dst": "bench", "seat": p}
    s.emit({**event, "dst_seat": q})
    works = s.players[q].works()
    target = yield from ask(
        p,
        "kite_work",
        "Kite: which work does Kite copy?",
        [s.opt(w, seat=q) for w in works],
        works,
    )
    if target != src:
        s.set_kite(src, s.kite.get(target, target % C.DECK_SIZE))
        s.emit({"type": "kite_copy", "seat": p, "copy_of": s.eff(src)})
    s.check_end()


@hook("Pin")
def pin(s: MottainaiState, p: int, src: int, ctx: Any) -> Flow:
    """One Tailor action outside any task (E-MOR-3)."""
    from ..actions import tailor

    yield from tailor(s, p, None)
