"""Completing works (RULES 6): support, the wing, placement, and the after-effects pool (6.6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import cards as C
from .effects.registry import REGISTRY, inline
from .model import ActionCtx, Flow, ask

if TYPE_CHECKING:
    from .state import MottainaiState

inline("completion", "Crane", "Brick", "Straw")

WINGS = ("gallery", "gift_shop")


class Support:
    """Support available for one work: requirement and the candidate units (RULES 6.2, 6.3)."""

    def __init__(self, req: int, hand: list[int], task: list[int], bench: int, crane: list[int]):
        self.req = req
        self.hand = hand
        self.task = task
        self.bench = bench  # Craft: interchangeable bench cards of the work's material
        self.crane = crane

    def total(self) -> int:
        return len(self.hand) + len(self.task) + self.bench + len(self.crane)

    def enough(self) -> bool:
        return self.total() >= self.req


def crane_units(s: MottainaiState, p: int) -> list[int]:
    if not s.owns(p, "Crane"):
        return []
    return [c for c in s.players[p].bench if s.base_mat(c) == C.PAPER]


def smith_support(s: MottainaiState, p: int, work: int) -> Support:
    """Hand cards of the work's material; Brick adds face-up task cards; Crane bench Paper."""
    mat = s.base_mat(work)
    req = C.VALUES[mat] - 1
    if mat in (C.CLOTH, C.CLAY):
        req = max(0, req - s.owns(p, "Straw"))
    hand = [c for c in s.players[p].hand if c != work and s.base_mat(c) == mat]
    task: list[int] = []
    if s.owns(p, "Brick"):
        for pl in s.players:
            if pl.task is not None and not pl.task_down and s.base_mat(pl.task) == mat:
                task.append(pl.task)
    crane = crane_units(s, p) if mat != C.PAPER else []
    return Support(req, hand, task, 0, crane)


def craft_support(s: MottainaiState, p: int, work: int) -> Support:
    mat = s.base_mat(work)
    bench = sum(1 for c in s.players[p].bench if s.base_mat(c) == mat)
    crane = crane_units(s, p) if mat != C.PAPER else []
    return Support(C.VALUES[mat] - 1, [], [], bench, crane)


def pick_support(s: MottainaiState, p: int, work: int, sup: Support) -> Flow:
    """Pick support one unit at a time until exactly the requirement (E-TSK-8).

    Asked only when there is a real choice: if every candidate is needed, or only
    interchangeable bench cards remain, the picks are automatic.
    """
    hand: list[int] = []
    task: list[int] = []
    crane: list[int] = []
    bench = 0
    if sup.total() == sup.req or (not sup.hand and not sup.task and not sup.crane):
        hand, task, crane = list(sup.hand), list(sup.task), list(sup.crane)
        bench = min(sup.bench, sup.req)
    while len(hand) + len(task) + len(crane) + bench < sup.req:
        opts: list[dict[str, Any]] = []
        vals: list[tuple[str, int]] = []
        for c in sup.hand:
            if c not in hand:
                opts.append({"source": "hand", **s.opt(c)})
                vals.append(("hand", c))
        for c in sup.task:
            if c not in task:
                opts.append({"source": "task", **s.opt(c)})
                vals.append(("task", c))
        if bench < sup.bench:
            opts.append({"source": "bench", "material": C.MATERIALS[s.base_mat(work)]})
            vals.append(("bench", -1))
        for c in sup.crane:
            if c not in crane:
                opts.append({"source": "crane", **s.opt(c)})
                vals.append(("crane", c))
        src, card = yield from ask(p, "support", f"Pick support for {s.name(work)}.", opts, vals)
        if src == "hand":
            hand.append(card)
        elif src == "task":
            task.append(card)
        elif src == "bench":
            bench += 1
        else:
            crane.append(card)
    for c in hand:
        s.emit({"type": "reveal", "seat": p, "card": s.name(c), "reason": "support"})
    if task:
        s.emit(
            {
                "type": "effect",
                "seat": p,
                "effect": "Brick",
                "card": "Brick",
                "support": [s.name(c) for c in task],
            }
        )
    if crane:
        s.emit({"type": "effect", "seat": p, "effect": "Crane", "card": "Crane"})
        for c in crane:
            s.players[p].bench.remove(c)
            s.to_bottom(c)
            s.emit(
                {"type": "move", "card": s.name(c), "src": "bench", "dst": "deck_bottom", "seat": p}
            )


def choose_wing(s: MottainaiState, p: int, work: int) -> Flow:
    wing = yield from ask(
        p,
        "wing",
        f"Which wing for {s.name(work)}?",
        [{"wing": w, **s.opt(work)} for w in WINGS],
        list(WINGS),
    )
    return wing


def place(s: MottainaiState, p: int, work: int, wing: str, how: str) -> None:
    """Put a completed work in a wing and run the end checks (RULES 6.5)."""
    s.add_work(p, work, wing)
    s.emit({"type": "complete", "seat": p, "card": s.name(work), "wing": wing, "how": how})
    s.check_end()


def complete_from_hand(s: MottainaiState, p: int, work: int, sup: Support, how: str) -> Flow:
    """Smith or Craft: support picks, then the wing, then placement."""
    yield from pick_support(s, p, work, sup)
    wing = yield from choose_wing(s, p, work)
    s.players[p].hand.remove(work)
    place(s, p, work, wing, how)


def free_complete(
    s: MottainaiState, p: int, work: int, how: str, ctx: ActionCtx, take: Callable[[], object]
) -> Flow:
    """Poem / Dice / Cloak: no support, the wing, placement, then the work's own pool (6.4).

    ``take`` removes the work from where it lies once the wing is chosen, so the card is
    always in exactly one zone while the choice is pending.
    """
    wing = yield from choose_wing(s, p, work)
    take()
    place(s, p, work, wing, how)
    yield from after_pool(s, p, ActionCtx("free", work=work, poem_left=ctx.poem_left))


def after_pool(s: MottainaiState, p: int, ctx: ActionCtx) -> Flow:
    """Form the pool of after-effects for an action or completion and resolve it (RULES 6.6)."""
    pool: list[tuple[int, str]] = []
    works = s.players[p].works()
    if ctx.work is not None:
        own = s.eff(ctx.work)
        if C.CATEGORY_OF[own] == "after_complete_this":
            pool.append((ctx.work, own))
    for w in works:
        name = s.eff(w)
        category = C.CATEGORY_OF[name]
        if category == "after_complete_work" and ctx.work is None:
            continue
        if category in ("after_complete_work", "after_action"):
            fits = REGISTRY[name].fits
            if fits is None or fits(s, ctx):
                pool.append((w, name))
    if not pool:
        return
    used: list[tuple[int, str]] = []
    while True:
        wings = s.players[p].works()
        avail = [
            e
            for e in pool
            if e not in used and e[0] in wings and REGISTRY[e[1]].usable(s, p, e[0], ctx)
        ]
        if not avail:
            return
        opts: list[dict[str, Any]] = [{"choice": "stop"}]
        opts += [{"choice": "use", "effect": name, "card": s.name(w)} for w, name in avail]
        entry = yield from ask(p, "after_effect", "Use an after-effect?", opts, [None, *avail])
        if entry is None:
            return
        used.append(entry)
        src, name = entry
        s.emit({"type": "effect", "seat": p, "effect": name, "card": s.name(src)})
        yield from REGISTRY[name].run(s, p, src, ctx)
        if name in RETURNS_WORK:
            return  # E-AFT-2: Poem / Cloak end the pool


RETURNS_WORK = ("Poem", "Cloak")
