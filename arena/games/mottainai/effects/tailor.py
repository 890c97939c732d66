"""Before-Tailor effects (RULES 5.4 Tailor, E-TAI-*): Dice, Fan, Puppet."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import cards as C
from ..model import ActionCtx, Flow, ask
from .registry import hook

if TYPE_CHECKING:
    from ..state import MottainaiState

FAN_CARDS = 3


@hook("Dice")
def dice(s: MottainaiState, p: int, src: int, ctx: Any) -> Flow:
    """Reveal the top card; if its value equals your hand size you may complete it (E-TAI-1)."""
    from ..completion import free_complete

    top = s.deck[-1]
    s.top_known = True
    s.show(top)
    s.emit({"type": "deck_reveal", "seat": p, "cards": [s.name(top)], "reason": "Dice"})
    if C.VALUES[s.base_mat(top)] != len(s.players[p].hand):
        return
    take = yield from ask(
        p,
        "dice_complete",
        f"Dice: complete {s.name(top)} for free?",
        [{"choice": "decline"}, {"choice": "complete", **s.opt(top)}],
        [False, True],
    )
    if take:
        yield from free_complete(s, p, top, "Dice", ActionCtx("free"), s.take_top)


@hook("Fan")
def fan(s: MottainaiState, p: int, src: int, ctx: Any) -> Flow:
    """Reveal the top three; keep one on top, the others to the bottom in your order (E-TAI-2)."""
    k = min(FAN_CARDS, len(s.deck))
    shown = s.deck[-k:][::-1]  # top first
    s.emit({"type": "deck_reveal", "seat": p, "cards": [s.name(c) for c in shown], "reason": "Fan"})
    s.top_known = True
    s.show(*shown)
    if k == 1:
        return
    keep = yield from ask(
        p, "fan_keep", "Fan: which card stays on top?", [s.opt(c) for c in shown], shown
    )
    rest = [c for c in shown if c != keep]
    if len(rest) == 2:
        first = yield from ask(
            p,
            "fan_bottom",
            "Fan: which card goes to the bottom first?",
            [s.opt(c) for c in rest],
            rest,
        )
        rest = [first] + [c for c in rest if c != first]
    for c in shown:
        s.deck.remove(c)
    for c in rest:
        s.to_bottom(c)
    s.deck.append(keep)
    s.emit({"type": "fan", "seat": p, "top": s.name(keep), "bottom": [s.name(c) for c in rest]})


@hook("Puppet")
def puppet(s: MottainaiState, p: int, src: int, ctx: Any) -> Flow:
    """Return Puppet, then trade hands with an opponent (E-TAI-3, E-HID-3)."""
    s.leave_wing(src, p)
    s.to_bottom(src)
    s.emit({"type": "move", "card": s.name(src), "src": "wing", "dst": "deck_bottom", "seat": p})
    opps = s.opponents(p)
    q = yield from ask(
        p,
        "puppet_opponent",
        "Puppet: trade hands with which opponent?",
        [{"seat": q, "hand_count": len(s.players[q].hand)} for q in opps],
        opps,
    )
    mine, theirs = s.players[p], s.players[q]
    given, taken = mine.hand, theirs.hand
    theirs.hand = given
    mine.hand = []
    mine.waiting.extend(taken)
    s.emit(
        {"type": "puppet", "seat": p, "target": q, "given": len(given), "taken": len(taken)},
        private={q: {"received": [s.name(c) for c in given]}},
    )
