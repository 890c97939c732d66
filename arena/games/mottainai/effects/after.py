"""After-effects (RULES 6.6): after you complete this, after you complete a work, after an action.

Each hook's ``fits`` says which actions/completions put it in the pool; ``usable`` says whether
it can do anything now (only usable effects are offered).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import cards as C
from ..model import ActionCtx, Flow, GameOver, ask
from .registry import hook

if TYPE_CHECKING:
    from ..state import MottainaiState

FLOOR_PICKS = 2
GONG_DRAWS = 3


def _any_work(s: MottainaiState, ctx: ActionCtx) -> bool:
    return ctx.work is not None


def _bench(s: MottainaiState, p: int, src: int, ctx: Any) -> bool:
    return bool(s.players[p].bench)


def _floor(s: MottainaiState, p: int, src: int, ctx: Any) -> bool:
    return bool(s.floor)


def _move(s: MottainaiState, p: int, card: int, src: str, dst: str, **extra: Any) -> None:
    s.emit({"type": "move", "card": s.name(card), "src": src, "dst": dst, "seat": p, **extra})


# ----- after you complete a work ---------------------------------------------------------------


@hook("Amulet", fits=_any_work, usable=_bench)
def amulet(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    """One bench card to your sales."""
    bench = s.players[p].bench
    card = yield from ask(
        p,
        "amulet_card",
        "Amulet: which bench card do you sell?",
        [s.opt(c) for c in bench],
        list(bench),
    )
    bench.remove(card)
    s.players[p].sales.append(card)
    _move(s, p, card, "bench", "sales")


def _stool_fits(s: MottainaiState, ctx: ActionCtx) -> bool:
    return ctx.work is not None and s.base_mat(ctx.work) in (C.STONE, C.CLAY, C.METAL)


@hook("Stool", fits=_stool_fits)
def stool(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    s.draw(p, "Stool")
    return
    yield


def _poem_fits(s: MottainaiState, ctx: ActionCtx) -> bool:
    return ctx.work is not None and s.base_mat(ctx.work) == C.PAPER


def _work_still_yours(s: MottainaiState, p: int, ctx: ActionCtx) -> bool:
    return ctx.work is not None and s.players[p].wing_of(ctx.work) is not None


def _poem_usable(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> bool:
    left = ctx.poem_left[0]
    return _work_still_yours(s, p, ctx) and (left is None or left > 0)


def _return_work(s: MottainaiState, p: int, work: int) -> None:
    s.leave_wing(work, p)
    s.to_bottom(work)
    _move(s, p, work, "wing", "deck_bottom")


@hook("Poem", fits=_poem_fits, usable=_poem_usable)
def poem(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    """Return the Paper work; complete the top card of the deck for free (E-AFT-9 bound)."""
    from ..completion import free_complete

    left = ctx.poem_left[0]
    ctx.poem_left[0] = (len(s.deck) if left is None else left) - 1
    assert ctx.work is not None
    _return_work(s, p, ctx.work)
    card = s.deck[-1]
    s.show(card)
    s.emit({"type": "deck_reveal", "seat": p, "cards": [s.name(card)], "reason": "Poem"})
    yield from free_complete(s, p, card, "Poem", ctx, s.take_top)


def _cloak_usable(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> bool:
    return _work_still_yours(s, p, ctx)


@hook("Cloak", fits=_any_work, usable=_cloak_usable)
def cloak(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    """Return the work; then you may complete a Metal hand card for free."""
    from ..completion import free_complete

    assert ctx.work is not None
    _return_work(s, p, ctx.work)
    hand = s.players[p].hand
    metals = [c for c in hand if s.base_mat(c) == C.METAL]
    if not metals:
        return
    card = yield from ask(
        p,
        "cloak_work",
        "Cloak: complete a Metal card from your hand?",
        [{"choice": "decline"}] + [s.opt(c) for c in metals],
        [None, *metals],
    )
    if card is None:
        return
    yield from free_complete(s, p, card, "Cloak", ctx, lambda: hand.remove(card))


# ----- after you complete this ---------------------------------------------------------------


def _frog_usable(s: MottainaiState, p: int, src: int, ctx: Any) -> bool:
    mine = s.work_count(p)
    return all(s.work_count(q) >= mine for q in s.opponents(p))


@hook("Frog", usable=_frog_usable)
def frog(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    """One extra turn after this one (E-AFT-5; several queue up)."""
    s.extra_turns += 1
    s.emit({"type": "extra_turn", "seat": p, "pending": s.extra_turns})
    return
    yield


@hook("Jar")
def jar(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    """Name a material: opponents move those hand cards into your waiting area (E-AFT-7)."""
    mats = list(range(len(C.MATERIALS)))
    mat = yield from ask(
        p, "jar_material", "Jar: name a material.", [{"material": m} for m in C.MATERIALS], mats
    )
    mine = s.players[p]
    for q in s.opponents(p):
        hand = s.players[q].hand
        moved = [c for c in hand if s.base_mat(c) == mat]
        s.players[q].hand = [c for c in hand if s.base_mat(c) != mat]
        mine.waiting.extend(moved)
        s.jars.append((q, mat, len(moved)))
        s.emit(
            {
                "type": "jar",
                "seat": p,
                "from": q,
                "material": C.MATERIALS[mat],
                "count": len(moved),
            },
            private={q: {"cards": [s.name(c) for c in moved]}},
        )


def _richer(s: MottainaiState, p: int, count: Any) -> list[int]:
    mine = count(p)
    return [q for q in s.opponents(p) if count(q) > mine]


def _shuriken_usable(s: MottainaiState, p: int, src: int, ctx: Any) -> bool:
    return bool(_richer(s, p, s.work_count))


@hook("Shuriken", usable=_shuriken_usable)
def shuriken(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    """Take a work from an opponent with more works (E-AFT-8); it is not completed."""
    from ..completion import choose_wing

    victims = _richer(s, p, s.work_count)
    q = yield from ask(
        p,
        "shuriken_opponent",
        "Shuriken: from which opponent?",
        [{"seat": q} for q in victims],
        victims,
    )
    works = s.players[q].works()
    work = yield from ask(
        p, "shuriken_work", "Shuriken: which work?", [s.opt(w) for w in works], works
    )
    wing = yield from choose_wing(s, p, work)
    s.leave_wing(work, q)
    s.add_work(p, work, wing)
    _move(s, p, work, "wing", wing, src_seat=q)
    s.check_end()


def _floor_picks(s: MottainaiState, p: int, dest: str, kind: str, effect: str) -> Flow:
    """Statue / Vase: up to two floor cards, one at a time (E-AFT-6)."""
    for _ in range(FLOOR_PICKS):
        if not s.floor:
            return
        card = yield from ask(
            p,
            kind,
            f"{effect}: take a floor card?",
            [{"choice": "stop"}] + [s.opt(c) for c in s.floor],
            [None, *s.floor],
        )
        if card is None:
            return
        s.floor.remove(card)
        getattr(s.players[p], dest).append(card)
        _move(s, p, card, "floor", dest)


@hook("Statue", usable=_floor)
def statue(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    yield from _floor_picks(s, p, "bench", "statue_pick", "Statue")


@hook("Vase", usable=_floor)
def vase(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    yield from _floor_picks(s, p, "sales", "vase_pick", "Vase")


def _floor_lacks(s: MottainaiState) -> bool:
    mats = [s.base_mat(c) for c in s.floor]
    return C.STONE not in mats or C.METAL not in mats


def _tablet_usable(s: MottainaiState, p: int, src: int, ctx: Any) -> bool:
    return bool(s.floor) or _floor_lacks(s)


@hook("Tablet", usable=_tablet_usable)
def tablet(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    """Return the whole floor (oldest first, E-MISC-1), or deal until Stone and Metal show."""
    opts: list[dict[str, Any]] = []
    vals: list[str] = []
    if s.floor:
        opts.append({"choice": "return_floor"})
        vals.append("return")
    if _floor_lacks(s):
        opts.append({"choice": "restock"})
        vals.append("restock")
    mode = yield from ask(p, "tablet_mode", "Tablet: return the floor or restock it?", opts, vals)
    if mode == "return":
        floor, s.floor = s.floor, []
        for c in floor:
            s.to_bottom(c)
        s.emit({"type": "floor_returned", "seat": p, "cards": [s.name(c) for c in floor]})
        return
    while _floor_lacks(s):
        s.deal_to_floor("Tablet")


# ----- after an action -----------------------------------------------------------------------


def _deck_of_cards_fits(s: MottainaiState, ctx: ActionCtx) -> bool:
    return ctx.kind == "smith" and ctx.work is not None and s.base_mat(ctx.work) == C.PAPER


@hook("Deck of Cards", fits=_deck_of_cards_fits)
def deck_of_cards(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    s.draw(p, "Deck of Cards")
    return
    yield


def _prayed(s: MottainaiState, ctx: ActionCtx) -> bool:
    return ctx.kind == "prayer"


@hook("Gong", fits=_prayed)
def gong(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    """Draw three, then Gong itself moves to your waiting area (E-AFT-10)."""
    for _ in range(GONG_DRAWS):
        s.draw(p, "Gong")
    s.leave_wing(src, p)
    pl = s.players[p]
    pl.waiting.append(src)
    pl.waiting_known.append(src)
    _move(s, p, src, "wing", "waiting")
    return
    yield


@hook("Cup", fits=_prayed)
def cup(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    """Return Cup: the game ends at once (E-END-4)."""
    s.leave_wing(src, p)
    s.to_bottom(src)
    _move(s, p, src, "wing", "deck_bottom")
    raise GameOver("cup")
    yield


def _collected(s: MottainaiState, ctx: ActionCtx) -> bool:
    return ctx.collected


@hook("Plane", fits=_collected)
def plane(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    """Move one of your works to your other wing (E-END-2)."""
    pl = s.players[p]
    works = pl.works()
    work = yield from ask(
        p,
        "plane_work",
        "Plane: which work changes wing?",
        [s.opt(w, wing="gallery" if w in pl.gallery else "gift_shop") for w in works],
        works,
    )
    if work in pl.gallery:
        pl.gallery.remove(work)
        pl.shop.append(work)
        _move(s, p, work, "gallery", "gift_shop")
    else:
        pl.shop.remove(work)
        pl.gallery.append(work)
        _move(s, p, work, "gift_shop", "gallery")
    s.check_end()


def _sold(s: MottainaiState, ctx: ActionCtx) -> bool:
    return ctx.sold


def _ring_usable(s: MottainaiState, p: int, src: int, ctx: Any) -> bool:
    return bool(_richer(s, p, lambda q: len(s.players[q].sales)))


@hook("Ring", fits=_sold, usable=_ring_usable)
def ring(s: MottainaiState, p: int, src: int, ctx: ActionCtx) -> Flow:
    """Take a sale from an opponent with more sales (E-BOO-2, E-BOO-5)."""
    victims = _richer(s, p, lambda q: len(s.players[q].sales))
    q = yield from ask(
        p, "ring_opponent", "Ring: from which opponent?", [{"seat": q} for q in victims], victims
    )
    sales = s.players[q].sales
    card = yield from ask(
        p, "ring_card", "Ring: which sale?", [s.opt(c) for c in sales], list(sales)
    )
    sales.remove(card)
    s.players[p].sales.append(card)
    _move(s, p, card, "sales", "sales", src_seat=q)
