"""Performing a task (RULES 5.1-5.3): obstruction, before-task bonuses, action count, actions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import cards as C
from .actions import TASK_ACTIONS, craft, craft_possible, prayer, task_possible
from .completion import after_pool
from .cover import helpers_covered
from .effects.registry import inline
from .model import ActionCtx, Flow, ask

if TYPE_CHECKING:
    from .state import MottainaiState

inline("tasks", "Curtain", "Tower", "Mask", "Bangle", "Fountain", "Figurine", "Flag")

_CURTAIN = (C.CLOTH, C.METAL)
_TOWER = (C.PAPER, C.STONE, C.CLAY)


def obstructed(s: MottainaiState, p: int, q: int, mat: int) -> bool:
    """Curtain / Tower on an opponent's task (E-OBS-1, E-OBS-5)."""
    if not s.is_opp(p, q):
        return False
    return (mat in _CURTAIN and s.owns(q, "Curtain") > 0) or (
        mat in _TOWER and s.owns(q, "Tower") > 0
    )


def reveal(s: MottainaiState, p: int, card: int, reason: str) -> None:
    s.emit({"type": "reveal", "seat": p, "card": s.name(card), "reason": reason})


def perform_task(s: MottainaiState, p: int, q: int) -> Flow:
    """``p`` performs the task in ``q``'s slot (RULES 5.1)."""
    card = s.players[q].task
    assert card is not None
    mat = s.base_mat(card)
    hand = s.players[p].hand
    opp = s.is_opp(p, q)
    if obstructed(s, p, q, mat):
        matching = [c for c in hand if s.base_mat(c) == mat]
        shown = None
        if matching:
            shown = yield from ask(
                p,
                "obstruction_reveal",
                f"Reveal a {C.MATERIALS[mat]} card or skip this task.",
                [{"choice": "decline"}] + [s.opt(c) for c in matching],
                [None, *matching],
            )
        if shown is None:
            s.emit({"type": "task_skipped", "seat": p, "owner": q, "reason": "obstruction"})
            return
        reveal(s, p, shown, "obstruction")
    fountain = 0
    if mat == C.PAPER and s.owns(p, "Fountain"):
        fountain = yield from reveal_loop(s, p)
    bonus = 0
    bonus_card = "Figurine" if opp else ("Flag" if q == p else None)
    if bonus_card:
        bonus = yield from reveal_bonus(s, p, mat, bonus_card)
    helpers = sum(1 for c in s.players[p].helpers if s.base_mat(c) == mat) + fountain
    if opp and s.owns(q, "Bangle"):
        helper_bonus = 0
    elif helpers_covered(s, p, mat, helpers):
        helper_bonus = 2 * helpers
    else:
        helper_bonus = helpers
    doll = 1 if q == p and s.doll_card == card else 0
    actions = 1 + helper_bonus + bonus + doll
    s.fountain = (p, fountain) if fountain else None
    mask = opp and s.owns(q, "Mask") > 0
    s.emit(
        {
            "type": "task",
            "seat": p,
            "owner": q,
            "card": s.name(card),
            "task": C.TASKS[mat],
            "actions": actions,
        }
    )
    for i in range(actions):
        s.task_ctx = {
            "owner": q,
            "material": C.MATERIALS[mat],
            "task": C.TASKS[mat],
            "action": i + 1,
            "actions": actions,
        }
        yield from take_action(s, p, mat, mask)
    s.task_ctx = None
    s.fountain = None


def reveal_loop(s: MottainaiState, p: int) -> Flow:
    """Fountain: reveal Stone hand cards one at a time (E-TSK-3); returns how many."""
    shown: list[int] = []
    while True:
        stones = [c for c in s.players[p].hand if s.base_mat(c) == C.STONE and c not in shown]
        if not stones:
            break
        card = yield from ask(
            p,
            "fountain_reveal",
            "Fountain: reveal a Stone card as an extra Clerk helper?",
            [{"choice": "stop"}] + [s.opt(c) for c in stones],
            [None, *stones],
        )
        if card is None:
            break
        shown.append(card)
        reveal(s, p, card, "Fountain")
    return len(shown)


def reveal_bonus(s: MottainaiState, p: int, mat: int, effect: str) -> Flow:
    """Figurine / Flag: each copy needs its own revealed card (E-TSK-2, E-MISC-5)."""
    used: list[int] = []
    for _ in range(s.owns(p, effect)):
        cands = [c for c in s.players[p].hand if s.base_mat(c) == mat and c not in used]
        if not cands:
            break
        card = yield from ask(
            p,
            effect.lower() + "_reveal",
            f"{effect}: reveal a {C.MATERIALS[mat]} card for +1 action?",
            [{"choice": "decline"}] + [s.opt(c) for c in cands],
            [None, *cands],
        )
        if card is None:
            break
        used.append(card)
        reveal(s, p, card, effect)
    return len(used)


def take_action(s: MottainaiState, p: int, mat: int, mask: bool) -> Flow:
    """One action of a task: task action, Craft or Prayer (RULES 5.3; Mask E-OBS-3)."""
    opts: list[dict[str, Any]] = []
    vals: list[str] = []
    if task_possible(s, p, mat):
        opts.append({"action": "task", "task": C.TASKS[mat]})
        vals.append("task")
    if not mask:
        if craft_possible(s, p, mat):
            opts.append({"action": "craft", "material": C.MATERIALS[mat]})
            vals.append("craft")
        opts.append({"action": "prayer"})
        vals.append("prayer")
    if not opts:
        s.emit({"type": "action_lost", "seat": p, "reason": "Mask"})
        return
    kind = yield from ask(p, "action", f"Choose an action for the {C.TASKS[mat]} task.", opts, vals)
    s.emit({"type": "action", "seat": p, "action": kind, "task": C.TASKS[mat]})
    if kind == "task":
        ctx = ActionCtx(C.TASKS[mat].lower())
        yield from TASK_ACTIONS[mat](s, p, ctx)
    elif kind == "craft":
        ctx = ActionCtx("craft")
        yield from craft(s, p, mat, ctx)
    else:
        ctx = ActionCtx("prayer")
        prayer(s, p)
    yield from after_pool(s, p, ctx)


def lone_prayer(s: MottainaiState, p: int) -> Flow:
    """No own task: exactly one Prayer, which may trigger Gong and Cup (E-TSK-9)."""
    s.emit({"type": "action", "seat": p, "action": "prayer", "task": None})
    prayer(s, p)
    yield from after_pool(s, p, ActionCtx("prayer"))
