"""A Motora search bot: ISMCTS (sample_bots/python/ismcts.py) guarded by a rule of thumb.

Usage: python sample_bots/python/motora_search.py [--fraction F] [--seed N] [--horizon H]

Each decision it samples states its seat cannot tell from the real one (the engine's
``determinize``: the table and the flow's stack from the view, other tribes' face-down cards and
the deck orders dealt at random), searches them for ``fraction`` of ``move_ms`` to the end of the
next turn, trying the few options the rule of thumb (:data:`PREFER`) likes best, and plays the
searched option when it clearly beats the rule of thumb's. See arena/games/motora/README.md,
"A search bot".
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cached_property
from typing import Any

from ismcts import Search, SearchBot, arguments, rank_rewards

from arena.games.base import Decision, State
from arena.games.motora.board import BOARD
from arena.games.motora.cards import CARDS
from arena.games.motora.model import INJURED, NEXT_INJURED, NEXT_SERIOUS, PLACED, SERIOUS
from arena.games.motora.state import MotoraState
from protocol.bot import Turn, Welcome, run

EXPLORE = 0.03  # share of playout decisions taken at random
HORIZON = 1  # more turns a playout plays after this one before it is scored
IDOL = 4.0  # an idol on a shrine is worth this many living members
NEAR = 8  # an idol on the board counts more the closer it lies to a village, none this far
STOCK = 0.25  # a unit of food, water or shelter, up to two turns of needs, in living members
SHORTLIST = 3  # options the tree may try at a decision: the best ones by :data:`PREFER`
SPREAD = 0.1  # reward per unit of margin gained during a sample (see ShortlistSearch)
TRUST = 0.03  # mean reward by which the searched option must beat the rule of thumb's
HARMFUL = ("npe", "placed_member", "consumption", "destroy_tile")  # event kinds worth cancelling
HURT = (SERIOUS, NEXT_SERIOUS, INJURED, NEXT_INJURED)  # shortage victims, first choice first
BLIND = ("restrict_chosen_tile", "destroy_chosen_tile")  # tile attacks that may hurt us too

RESOURCES = ("food", "water", "shelter")


def want(s: MotoraState, seat: int, resource: str) -> float:
    """What one more unit of ``resource`` is worth to the tribe now (scarcer = more)."""
    tribe = s.tribes[seat]
    need = 2 if resource == "shelter" else max(1, len(s.own(seat)))
    stock = getattr(tribe, resource)
    return 3.0 if stock < need else 1.5 if stock < 2 * need else 0.4


class Table:
    """What the scorers of one decision share, each computed once, when first needed."""

    def __init__(self, s: MotoraState, seat: int) -> None:
        self.s = s
        self.seat = seat
        self.tribe = s.tribes[seat]

    @cached_property
    def wants(self) -> dict[str, float]:
        return {r: want(self.s, self.seat, r) for r in RESOURCES}

    @cached_property
    def here(self) -> dict[str, list[int]]:
        """Per position: [own members placed there, other tribes' members]."""
        out: dict[str, list[int]] = {}
        for m in self.s.members:
            if m.state == PLACED and m.pos is not None:
                out.setdefault(m.pos, [0, 0])[0 if m.tribe == self.seat else 1] += 1
        return out

    @cached_property
    def idols(self) -> set[str]:
        return {i.pos for i in self.s.idols if i.pos is not None and not i.moved}


Score = Callable[[Table, dict[str, Any]], float]


def _village(t: Table, o: dict[str, Any]) -> float:
    return o["water"] + 0.5 * o["shelter"]


def _gear(t: Table, o: dict[str, Any]) -> float:
    return 0.0 if o["gear"] is None else 1.0


def _place(t: Table, o: dict[str, Any]) -> float:
    pos, cost = o["position"], o["cost"]
    s = t.s
    score = -3.0 * cost if t.tribe.shelter - cost < 3 else -1.0 * cost
    mine, others = t.here.get(pos, (0, 0))
    score -= 4.0 * others
    if pos == t.tribe.village:
        return score + (8.0 if mine == 0 else 0.5)
    if pos in s.owner:
        return score - 6.0
    if mine < 2 and pos in t.idols:
        score += 7.0 - 2.0 * cost
    if mine == 0 and not s.destroyed[pos]:
        gather = s.tile(pos).gather
        score += max((g["amount"] * t.wants[g["resource"]] for g in gather), default=0)
    return score + 1.2 * len(BOARD.fishing_near[pos]) * t.wants["food"] / (1 + mine)


def _action(t: Table, o: dict[str, Any]) -> float:
    kind = o["action"]
    if kind == "transport":
        return 20.0
    if kind == "gather":
        if "draw" in o:
            return 2.5
        return o["amount"] * t.wants[o["resource"]] - (2.0 if o["risky"] else 0.0)
    if kind == "fish":
        return o["amount"] * t.wants["food"]
    if kind == "recruit":
        return 4.0 if min(t.tribe.food, t.tribe.water) > 2 * len(t.s.own(t.seat)) else -1.0
    return 0.0


def _idol_step(t: Table, o: dict[str, Any]) -> float:
    pos = o["position"]
    if pos is None:
        return -50.0
    owner = t.s.owner.get(pos)
    if owner is not None and owner != t.seat:
        return -100.0
    village = t.tribe.village
    return -float(BOARD.land_dist[village].get(pos, 99)) if village else 0.0


def _life(t: Table, o: dict[str, Any]) -> float:
    return 1.0 if o["shrine"] == "life" else 0.0


def _victim(t: Table, o: dict[str, Any]) -> float:
    return float(len(HURT) - HURT.index(o["state"])) if o["state"] in HURT else 0.0


def _sufferer(t: Table, o: dict[str, Any]) -> float:
    return -(2.0 if o["gear"] else 0.0) - (1.0 if o["home_first"] else 0.0)


def _raid(t: Table, o: dict[str, Any]) -> float:
    values = {"idol": 10.0, "rescue": 6.0, "steal_gear": 2.0, "decline": -1.0}
    if o["option"] in values:
        return values[o["option"]]
    if o["option"] == "destroy_shelter":
        return 0.5
    return min(3.5, o["available"]) * t.wants[o["option"][len("steal_") :]]


def _reroll(t: Table, o: dict[str, Any]) -> float:
    if o["action"] == "dart":
        return 3.0
    if o["action"] == "reroll":
        return 3.5 - o["value"]
    return 0.0


def _appease(t: Table, o: dict[str, Any]) -> float:
    harmful = t.s.event is not None and CARDS[t.s.event].kind in HARMFUL
    return 1.0 if o["play"] == harmful else 0.0


def _window(t: Table, o: dict[str, Any]) -> float:
    action = o["action"]
    if action == "cannibalise":
        return 1.0 if t.wants["food"] > 1 else -1.0
    if action == "sacrifice":
        return 2.0
    if action == "play":
        return -1.0 if CARDS[o["card"]].effect in BLIND else 2.0
    return 0.0


PREFER: dict[str, Score] = {
    "village": _village,
    "gear": _gear,
    "place": _place,
    "action": _action,
    "idol_step": _idol_step,
    "idol_shrine": _life,
    "dead_shrine": _life,
    "victim": _victim,
    "sufferer": _sufferer,
    "raid": _raid,
    "reroll": _reroll,
    "appease": _appease,
    "start_of_turn": _window,
    "before_consumption": _window,
}


def scores(state: State, decision: Decision) -> list[float] | None:
    """Each option's value by :data:`PREFER`, or None for a kind it does not know."""
    score = PREFER.get(decision.kind)
    if score is None:
        return None
    assert isinstance(state, MotoraState)
    table = Table(state, decision.seat)
    return [score(table, o) for o in decision.options]


def playout(state: State, decision: Decision, rng: random.Random) -> int:
    """The best option by :data:`PREFER` (ties and ``EXPLORE`` of the time: at random)."""
    if len(decision.options) == 1:
        return 0
    values = scores(state, decision) if rng.random() >= EXPLORE else None
    if values is None:
        return rng.randrange(len(decision.options))
    best = max(values)
    return rng.choice([i for i, v in enumerate(values) if v == best])


def value(s: MotoraState, seat: int) -> float:
    """How well a tribe stands, in living members: idols on its shrines, idols on their way home,
    its members, and stocks up to two turns of needs (more does not help)."""
    tribe = s.tribes[seat]
    if tribe.eliminated or tribe.village is None:
        return 0.0
    home = BOARD.land_dist[tribe.village]
    coming = sum(max(0.0, 1.0 - home.get(i.pos, 99) / NEAR) for i in s.idols if i.pos is not None)
    members = len(s.own(seat))
    stock = min(tribe.food, 2 * members) + min(tribe.water, 2 * members) + min(tribe.shelter, 3)
    return IDOL * (s.idols_of(seat) + coming) + members + STOCK * stock


def margins(s: MotoraState) -> list[float]:
    """Per seat: its :func:`value` minus the best other tribe's."""
    values = [value(s, seat) for seat in range(len(s.tribes))]
    return [v - max(values[:k] + values[k + 1 :], default=0.0) for k, v in enumerate(values)]


class ShortlistSearch(Search):
    """ISMCTS that only tries the ``SHORTLIST`` options :data:`PREFER` likes best at each
    decision (a placement offers some 30 positions, more than the samples a move can afford),
    and scores a sample that reached the horizon by how much each tribe's margin over the best
    other tribe grew since the sample was drawn: 0.5 for no change, ``SPREAD`` for each member's
    worth gained or lost. A finished game scores its ranks."""

    state: State | None = None
    start: tuple[float, ...] = ()

    def _iterate(self, root: Any, state: State) -> None:
        assert isinstance(state, MotoraState)
        self.state = state  # the sample the tree walks down; _select sees its decisions
        self.start = tuple(margins(state))
        self.reward = self.gain
        super()._iterate(root, state)

    def gain(self, state: State) -> list[float]:
        assert isinstance(state, MotoraState)
        outcome = state.outcome()
        if outcome.details["reason"] != "turn_limit" or len(state.tribes) < 2:
            return rank_rewards(outcome)
        now = margins(state)
        return [
            min(1.0, max(0.0, 0.5 + SPREAD * (b - a))) for a, b in zip(self.start, now, strict=True)
        ]

    def _select(self, parent: Any, decision: Decision) -> tuple[int, Any, bool]:
        values = scores(self.state, decision) if len(decision.options) > SHORTLIST else None
        if values is None:
            return super()._select(parent, decision)
        keep = sorted(range(len(values)), key=lambda i: (-values[i], i))[:SHORTLIST]
        keep.sort()
        short = Decision(
            decision.seat, decision.kind, tuple(decision.options[i] for i in keep), decision.prompt
        )
        index, edge, expanded = super()._select(parent, short)
        return keep[index], edge, expanded


class MotoraSearch(SearchBot):
    """ISMCTS whose samples end ``horizon`` turns ahead (a full Motora game lasts hundreds of
    decisions) through the ``turn_limit`` option, scored by :class:`ShortlistSearch`."""

    def __init__(self, fraction: float, seed: int, horizon: int = HORIZON) -> None:
        super().__init__("motora", playout=playout, fraction=fraction, seed=seed)
        self.horizon = horizon
        self.rng = random.Random(seed)

    def on_welcome(self, welcome: Welcome) -> None:
        super().on_welcome(welcome)
        assert self.search is not None
        base = self.search
        self.search = ShortlistSearch(
            self.game_id,
            base.players,
            base.options,
            base.seat,
            base.rng,
            playout,
        )

    def choose(self, turn: Turn) -> int:
        assert self.search is not None and self.welcome is not None
        limit = self.welcome.game["options"].get("turn_limit") or 0
        ahead = max(1, turn.view["turn"]) + self.horizon
        self.search.options["turn_limit"] = min(limit, ahead) if limit else ahead
        choice = super().choose(turn)
        sample = self.search.game.determinize(
            self.search.players, self.search.options, self.seat, turn.view, self.events, self.rng
        )
        values = scores(sample, sample.pending()[0])
        if values is None:
            return choice
        prior = max(range(len(values)), key=lambda i: (values[i], -i))
        stats = self.search.statistics(turn.options)
        if stats[choice][1] < stats[prior][1] + TRUST or not stats[prior][0]:
            return prior  # the search must clearly beat the rule of thumb to overrule it
        return choice


def main() -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=HORIZON, help="turns a playout looks ahead")
    args = parser.parse_args()
    run(MotoraSearch(args.fraction, args.seed, args.horizon))


if __name__ == "__main__":
    main()
