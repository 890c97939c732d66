"""The turn (RULES 4): Morning, Noon, Night, then the next turn, until the game ends."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .effects import after, morning, night, tailor  # noqa: F401  (registers the hooks)
from .effects.registry import effect_loop, inline
from .model import Flow, GameOver, ask
from .scoring import finish
from .tasks import lone_prayer, perform_task

if TYPE_CHECKING:
    from .state import MottainaiState

inline("flow", "Handkerchief", "Chopsticks", "Sketch", "Doll")

HAND_LIMIT = 5


def run_game(s: MottainaiState) -> Flow:
    """Play turns from the checkpoint until an end condition raises GameOver, then score
    (RULES 10.3, 11). Each turn starts with a new checkpoint."""
    try:
        s.check_end()
        entry, extra = s.mark.entry, s.mark.extra
        while True:
            yield from play_turn(s, extra, entry)
            extra = end_turn(s)
            entry = "morning"
            s.checkpoint(entry, extra)
    except GameOver as over:
        s.end_reason = over.reason
        s.turtle_winner = over.winner
    finish(s)


def end_turn(s: MottainaiState) -> bool:
    """Clear per-turn state; the same player goes again if a Frog turn is pending (RULES 4.4)."""
    s.set_kite(-1, None)
    s.doll_card = None
    s.turn_no += 1
    if s.extra_turns:
        s.extra_turns -= 1
        return True
    s.current = (s.current + 1) % s.n
    return False


def play_turn(s: MottainaiState, extra: bool, entry: str) -> Flow:
    """One turn, entered at its Morning (a position may enter it at Noon or Night)."""
    p = s.current
    if entry == "morning":
        s.emit({"type": "turn", "seat": p, "turn": s.turn_no, "extra": extra})
        s.phase = "morning"
        yield from hand_limit(s, p)
        s.step = "morning_effects"
        yield from effect_loop(s, p, "morning", "morning_effect", "Use a morning effect?", None)
        yield from new_task(s, p)
    if entry != "night":
        s.phase = "noon"
        s.step = "tasks"
        for q in s.others(p):
            pl = s.players[q]
            if pl.task is not None and not pl.task_down:
                yield from perform_task(s, p, q)
        if s.players[p].task is not None:
            yield from perform_task(s, p, p)
        else:
            yield from lone_prayer(s, p)
    s.phase = "night"
    s.step = "night_effects"
    yield from effect_loop(s, p, "night", "night_effect", "Use a night effect?", None)
    pick_up(s, p)


def hand_limit(s: MottainaiState, p: int) -> Flow:
    """Morning step 1, or Handkerchief instead (E-MOR-1, E-MOR-2)."""
    pl = s.players[p]
    s.step = "hand_limit"
    if s.owns(p, "Handkerchief") and pl.hand:
        opts = [{"choice": "decline"}] + [s.opt(c) for c in pl.hand]
        card = yield from ask(
            p, "handkerchief", "Handkerchief: put a hand card on the floor?", opts, [None, *pl.hand]
        )
        if card is not None:
            pl.hand.remove(card)
            s.floor.append(card)
            s.emit({"type": "effect", "seat": p, "effect": "Handkerchief", "card": "Handkerchief"})
            s.emit({"type": "move", "card": s.name(card), "src": "hand", "dst": "floor", "seat": p})
            return
    while len(pl.hand) > HAND_LIMIT:
        card = yield from ask(
            p,
            "hand_limit",
            "Return a hand card (hand limit 5).",
            [s.opt(c) for c in pl.hand],
            list(pl.hand),
        )
        return_from_hand(s, p, card, "hand_limit")


def return_from_hand(s: MottainaiState, p: int, card: int, reason: str) -> None:
    """Return one hand card beneath the deck; only its owner learns which (RULES 14)."""
    s.players[p].hand.remove(card)
    s.to_bottom(card)
    s.emit({"type": "return", "seat": p, "reason": reason}, private={p: {"card": s.name(card)}})


def move_old_task(s: MottainaiState, p: int, to_sales: bool) -> None:
    pl = s.players[p]
    card = pl.task
    assert card is not None
    if pl.task_down:
        s.show(card)
    pl.task = None
    pl.task_down = False
    (pl.sales if to_sales else s.floor).append(card)
    s.emit(
        {
            "type": "move",
            "card": s.name(card),
            "src": "task",
            "dst": "sales" if to_sales else "floor",
            "seat": p,
        }
    )


def new_task(s: MottainaiState, p: int) -> Flow:
    """Morning steps 3 and 4: discard (or Chopsticks), then a new task (or Sketch / Doll)."""
    pl = s.players[p]
    s.step = "discard_task"
    if pl.task is not None:
        to_sales = False
        if not pl.task_down and s.owns(p, "Chopsticks"):
            to_sales = yield from ask(
                p,
                "chopsticks",
                "Chopsticks: move your old task to your sales?",
                [{"choice": "floor"}, {"choice": "sales"}],
                [False, True],
            )
            if to_sales:
                s.emit({"type": "effect", "seat": p, "effect": "Chopsticks", "card": "Chopsticks"})
        move_old_task(s, p, to_sales)
    s.step = "new_task"
    opts: list[dict] = [{"choice": "none"}]
    vals: list = [None]
    for c in pl.hand:
        opts.append({"choice": "hand", **s.opt(c)})
        vals.append(c)
    if s.owns(p, "Sketch") and pl.helpers:
        opts.append({"choice": "sketch"})
        vals.append("sketch")
    doll_targets = [
        q for q in s.opponents(p) if s.players[q].task is not None and not s.players[q].task_down
    ]
    if s.owns(p, "Doll") and doll_targets:
        opts.append({"choice": "doll"})
        vals.append("doll")
    pick = yield from ask(p, "new_task", "Choose your new task.", opts, vals)
    if pick is None:
        s.emit({"type": "no_task", "seat": p})
        return
    if pick == "sketch":
        card = yield from ask(
            p,
            "sketch_helper",
            "Sketch: which helper becomes your task?",
            [s.opt(c) for c in pl.helpers],
            list(pl.helpers),
        )
        pl.helpers.remove(card)
        s.emit({"type": "effect", "seat": p, "effect": "Sketch", "card": "Sketch"})
        src = "helpers"
    elif pick == "doll":
        q = yield from ask(
            p,
            "doll_task",
            "Doll: whose task do you take?",
            [
                {"seat": q, **s.opt(task)}
                for q in doll_targets
                if (task := s.players[q].task) is not None
            ],
            doll_targets,
        )
        card = s.players[q].task
        s.players[q].task = None
        s.doll_card = card
        s.emit({"type": "effect", "seat": p, "effect": "Doll", "card": "Doll"})
        src = "task"
    else:
        card = pick
        pl.hand.remove(card)
        src = "hand"
    pl.task = card
    pl.task_down = False
    event = {"type": "new_task", "seat": p, "card": s.name(card), "src": src}
    if pick == "doll":
        event["src_seat"] = q
    s.emit(event)


def pick_up(s: MottainaiState, p: int) -> None:
    """Night step 2: the waiting area joins the hand; only the owner learns the cards."""
    pl = s.players[p]
    s.step = "pick_up"
    cards = pl.waiting
    pl.hand.extend(cards)
    pl.waiting = []
    pl.waiting_known = []
    s.emit(
        {"type": "pick_up", "seat": p, "count": len(cards)},
        private={p: {"cards": [s.name(c) for c in cards]}},
    )
