"""Effect registry: card name (from cards.json) -> the code that carries out its effect.

Effects with a decision flow of their own (morning, night, before-Tailor and after-effects)
register a :class:`Hook`. Effects that only modify a rule at one point (boosters, obstructions,
instead-of, continuous, before-task, scoring) are declared with :func:`inline` by the module
that checks them. :func:`missing` lists cards of ``cards.json`` that nothing handles.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import cards as C
from ..model import ActionCtx, Flow, ask

if TYPE_CHECKING:
    from ..state import MottainaiState

Run = Callable[["MottainaiState", int, int, Any], Flow]
Usable = Callable[["MottainaiState", int, int, Any], bool]
Fits = Callable[["MottainaiState", ActionCtx], bool]


def _always(s: MottainaiState, p: int, src: int, ctx: Any) -> bool:
    return True


@dataclass(frozen=True)
class Hook:
    """An effect with its own flow: ``run(state, player, source_uid, ctx)``.

    ``usable`` says whether using it now can do something (only usable effects are offered);
    ``fits`` (after-effects) says whether an action or completion triggers it.
    """

    name: str
    category: str
    run: Run
    usable: Usable
    fits: Fits | None


REGISTRY: dict[str, Hook] = {}
INLINE: dict[str, str] = {}


def _category(name: str) -> str:
    if name not in C.CATEGORY_OF:
        raise ValueError(f"effect registered for unknown card {name!r}")
    return C.CATEGORY_OF[name]


def hook(name: str, *, usable: Usable = _always, fits: Fits | None = None) -> Callable[[Run], Run]:
    def register(run: Run) -> Run:
        REGISTRY[name] = Hook(name, _category(name), run, usable, fits)
        return run

    return register


def inline(where: str, *names: str) -> None:
    """Declare effects applied inline by the module ``where``."""
    for name in names:
        _category(name)
        INLINE[name] = where


def missing() -> list[str]:
    return [d.name for d in C.DEFS if d.name not in REGISTRY and d.name not in INLINE]


def effect_loop(s: MottainaiState, p: int, category: str, kind: str, prompt: str, ctx: Any) -> Flow:
    """Offer ``p``'s unused effects of one timing class, one at a time, until stop (RULES 15)."""
    used: list[int] = []
    while True:
        avail = []
        for w in s.players[p].works():
            name = s.eff(w)
            if w in used or C.CATEGORY_OF[name] != category:
                continue
            if REGISTRY[name].usable(s, p, w, ctx):
                avail.append(w)
        if not avail:
            return
        opts: list[dict[str, Any]] = [{"choice": "stop"}]
        opts += [{"choice": "use", "effect": s.eff(w), "card": s.name(w)} for w in avail]
        src = yield from ask(p, kind, prompt, opts, [None, *avail])
        if src is None:
            return
        used.append(src)
        name = s.eff(src)
        s.emit({"type": "effect", "seat": p, "effect": name, "card": s.name(src)})
        yield from REGISTRY[name].run(s, p, src, ctx)
