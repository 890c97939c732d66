"""The seven actions (RULES 5.4-5.6) with their boosters (Bell, Robe, Flute, Sword, Socks)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import cards as C
from .completion import complete_from_hand, craft_support, smith_support
from .effects.registry import effect_loop, inline
from .model import ActionCtx, Flow, ask

if TYPE_CHECKING:
    from .state import MottainaiState

inline("actions", "Bell", "Robe", "Flute", "Sword", "Socks")

TAILOR_TARGET = 5


# ----- sources for Monk and Potter ----------------------------------------------------------


def flute_targets(s: MottainaiState, p: int) -> list[tuple[int, str, int]]:
    """(seat, zone, card): opponents' face-up tasks and Paper works (E-BOO-1)."""
    if not s.owns(p, "Flute"):
        return []
    out = []
    for q in s.opponents(p):
        pl = s.players[q]
        if pl.task is not None and not pl.task_down:
            out.append((q, "task", pl.task))
        out += [(q, "gallery", w) for w in pl.gallery if s.mat(w) == C.PAPER]
        out += [(q, "gift_shop", w) for w in pl.shop if s.mat(w) == C.PAPER]
    return out


def sword_victims(s: MottainaiState, p: int, zone: str) -> list[int]:
    """Opponents with strictly more helpers (Monk) or bench cards (Potter) (E-BOO-2)."""
    if not s.owns(p, "Sword"):
        return []
    mine = len(getattr(s.players[p], zone))
    return [q for q in s.opponents(p) if len(getattr(s.players[q], zone)) > mine]


def gather(s: MottainaiState, p: int, zone: str, ctx: ActionCtx) -> Flow:
    """Monk (zone=helpers) or Potter (zone=bench): one card from a chosen source."""
    dest: list[int] = getattr(s.players[p], zone)
    opts: list[dict[str, Any]] = [{"source": "floor", **s.opt(c)} for c in s.floor]
    vals: list[Any] = list(s.floor)
    if zone == "bench" and s.owns(p, "Socks"):
        opts.append({"source": "socks"})
        vals.append("socks")
    if flute_targets(s, p):
        opts.append({"source": "flute"})
        vals.append("flute")
    if sword_victims(s, p, zone):
        opts.append({"source": "sword"})
        vals.append("sword")
    task = "Monk" if zone == "helpers" else "Potter"
    pick = yield from ask(p, task.lower(), f"{task}: where does the card come from?", opts, vals)
    if pick == "socks":
        s.emit({"type": "effect", "seat": p, "effect": "Socks", "card": "Socks"})
        card = s.take_top()
        dest.append(card)
        s.emit({"type": "move", "card": s.name(card), "src": "deck", "dst": zone, "seat": p})
        ctx.collected = True
        s.check_end()
        return
    if pick == "flute":
        targets = flute_targets(s, p)
        q, src, card = yield from ask(
            p,
            "flute_target",
            "Flute: which card do you take?",
            [{"seat": q, "zone": z, **s.opt(c)} for q, z, c in targets],
            targets,
        )
        if src == "task":
            s.players[q].task = None
        else:
            s.leave_wing(card, q)
        s.emit({"type": "effect", "seat": p, "effect": "Flute", "card": "Flute"})
    elif pick == "sword":
        victims = sword_victims(s, p, zone)
        q = yield from ask(
            p,
            "sword_opponent",
            "Sword: from which opponent?",
            [{"seat": q} for q in victims],
            victims,
        )
        theirs: list[int] = getattr(s.players[q], zone)
        card = yield from ask(
            p, "sword_card", "Sword: which card?", [s.opt(c) for c in theirs], list(theirs)
        )
        theirs.remove(card)
        src = zone
        s.emit({"type": "effect", "seat": p, "effect": "Sword", "card": "Sword"})
    else:
        card = pick
        q = None
        src = "floor"
        s.floor.remove(card)
    dest.append(card)
    event = {"type": "move", "card": s.name(card), "src": src, "dst": zone, "seat": p}
    if q is not None:
        event["src_seat"] = q
    s.emit(event)
    ctx.collected = True
    s.check_end()


def monk(s: MottainaiState, p: int, ctx: ActionCtx) -> Flow:
    yield from gather(s, p, "helpers", ctx)


def potter(s: MottainaiState, p: int, ctx: ActionCtx) -> Flow:
    yield from gather(s, p, "bench", ctx)


# ----- Clerk ----------------------------------------------------------------------------------


def clerk(s: MottainaiState, p: int, ctx: ActionCtx) -> Flow:
    """Bench card to sales; or Bell (top of the deck); or Robe (all bench cards of a material)."""
    pl = s.players[p]
    opts: list[dict[str, Any]] = [{"source": "bench", **s.opt(c)} for c in pl.bench]
    vals: list[Any] = list(pl.bench)
    if s.owns(p, "Bell"):
        opts.append({"source": "bell"})
        vals.append("bell")
    if s.owns(p, "Robe") and pl.bench:
        opts.append({"source": "robe"})
        vals.append("robe")
    pick = yield from ask(p, "clerk", "Clerk: what do you sell?", opts, vals)
    ctx.sold = True
    if pick == "bell":
        s.emit({"type": "effect", "seat": p, "effect": "Bell", "card": "Bell"})
        card = s.take_top()
        pl.sales.append(card)
        s.emit({"type": "move", "card": s.name(card), "src": "deck", "dst": "sales", "seat": p})
        s.check_end()
        return
    if pick == "robe":
        mats = sorted({s.base_mat(c) for c in pl.bench})
        mat = yield from ask(
            p,
            "robe_material",
            "Robe: sell every bench card of which material?",
            [{"material": C.MATERIALS[m]} for m in mats],
            mats,
        )
        s.emit({"type": "effect", "seat": p, "effect": "Robe", "card": "Robe"})
        chosen = [c for c in pl.bench if s.base_mat(c) == mat]
    else:
        chosen = [pick]
    for card in chosen:
        pl.bench.remove(card)
        pl.sales.append(card)
        s.emit({"type": "move", "card": s.name(card), "src": "bench", "dst": "sales", "seat": p})


# ----- Tailor ---------------------------------------------------------------------------------


def tailor(s: MottainaiState, p: int, ctx: ActionCtx | None) -> Flow:
    """Before-Tailor effects, returns one at a time, then refill to five (E-TSK-10)."""
    from .flow import return_from_hand

    yield from effect_loop(
        s, p, "before_tailor", "tailor_effect", "Use a before-Tailor effect?", None
    )
    pl = s.players[p]
    while pl.hand:
        card = yield from ask(
            p,
            "tailor_return",
            "Tailor: return a hand card?",
            [{"choice": "stop"}] + [s.opt(c) for c in pl.hand],
            [None, *pl.hand],
        )
        if card is None:
            break
        return_from_hand(s, p, card, "tailor")
    while len(pl.hand) + len(pl.waiting) < TAILOR_TARGET:
        s.draw(p, "tailor")


# ----- Smith, Craft, Prayer -------------------------------------------------------------------


def smith_works(s: MottainaiState, p: int) -> list[int]:
    return [c for c in s.players[p].hand if smith_support(s, p, c).enough()]


def smith(s: MottainaiState, p: int, ctx: ActionCtx) -> Flow:
    cands = smith_works(s, p)
    work = yield from ask(
        p, "smith_work", "Smith: which work do you complete?", [s.opt(c) for c in cands], cands
    )
    ctx.work = work
    yield from complete_from_hand(s, p, work, smith_support(s, p, work), "smith")


def craft_works(s: MottainaiState, p: int, mat: int) -> list[int]:
    return [
        c for c in s.players[p].hand if s.base_mat(c) == mat and craft_support(s, p, c).enough()
    ]


def craft_possible(s: MottainaiState, p: int, mat: int) -> bool:
    return bool(craft_works(s, p, mat))


def craft(s: MottainaiState, p: int, mat: int, ctx: ActionCtx) -> Flow:
    cands = craft_works(s, p, mat)
    work = yield from ask(
        p, "craft_work", "Craft: which work do you complete?", [s.opt(c) for c in cands], cands
    )
    ctx.work = work
    yield from complete_from_hand(s, p, work, craft_support(s, p, work), "craft")


def prayer(s: MottainaiState, p: int) -> None:
    s.draw(p, "prayer")


def task_possible(s: MottainaiState, p: int, mat: int) -> bool:
    """Whether the task action of material ``mat`` has a legal way (RULES 5.4)."""
    pl = s.players[p]
    if mat == C.PAPER:
        return bool(pl.bench) or s.owns(p, "Bell") > 0
    if mat == C.STONE:
        return bool(s.floor or flute_targets(s, p) or sword_victims(s, p, "helpers"))
    if mat == C.CLAY:
        return bool(
            s.floor or s.owns(p, "Socks") or flute_targets(s, p) or sword_victims(s, p, "bench")
        )
    if mat == C.METAL:
        return bool(smith_works(s, p))
    return True


TASK_ACTIONS = {C.PAPER: clerk, C.STONE: monk, C.CLOTH: tailor, C.CLAY: potter, C.METAL: smith}
