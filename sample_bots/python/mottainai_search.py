"""A Mottainai search bot: ISMCTS (sample_bots/python/ismcts.py) with a cheap greedy playout.

Usage: python sample_bots/python/mottainai_search.py [--fraction F] [--seed N]

Each decision it samples states its seat cannot tell from the real one (the engine's
``determinize``: the turn's checkpoint from the view, unseen cards dealt at random), searches
them for ``fraction`` of ``move_ms`` and plays the most visited option. Playouts follow
:func:`playout`: one-step preferences per decision kind read straight from the engine state
(complete works, keep helpers and sales of the materials you build with, use effects), with a
little randomness so samples differ; a playout is worth half its rank and half its lead over the
best opponent (:func:`margin_rewards`). See arena/games/mottainai/README.md, "A search bot".
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ismcts import SearchBot, arguments, rank_rewards

from arena.games.base import Decision, State
from arena.games.mottainai import cards as C
from arena.games.mottainai.state import MottainaiState
from protocol.bot import run

EXPLORE = 0.1  # share of playout decisions taken at random
MARGIN = 20.0  # points: a lead this size over the best opponent earns the whole margin reward
RISKY = ("Cup", "Puppet")  # effects a playout never uses: they backfire more often than not

Score = Callable[[MottainaiState, int, dict[str, Any]], float]


def _count(s: MottainaiState, seat: int, zone: str, material: str) -> int:
    return sum(1 for c in getattr(s.players[seat], zone) if C.MATERIALS[s.base_mat(c)] == material)


def _action(s: MottainaiState, seat: int, o: dict[str, Any]) -> float:
    hand = len(s.players[seat].hand)
    if o["action"] == "craft":
        return 3
    if o["action"] == "task":
        return 1 if o["task"] == "Tailor" and hand >= 4 else 2
    return 1 if hand < 5 else 0


def _new_task(s: MottainaiState, seat: int, o: dict[str, Any]) -> float:
    if o.get("choice") != "hand":
        return 0.5 if o.get("choice") == "doll" else -1
    mat = o["material"]
    bonus = 2 if mat == "Metal" else 0
    return 2 * _count(s, seat, "helpers", mat) + _count(s, seat, "hand", mat) + bonus


def _wing(s: MottainaiState, seat: int, o: dict[str, Any]) -> float:
    mat = o["material"]
    gallery = _count(s, seat, "helpers", mat) >= _count(s, seat, "sales", mat)
    return 1 if (o["wing"] == "gallery") == gallery else 0


def _gather(s: MottainaiState, seat: int, o: dict[str, Any]) -> float:
    if "card" not in o:
        return 2
    return C.VALUES[C.MAT_INDEX[o["material"]]] + 2 * _count(s, seat, "hand", o["material"])


def _value(s: MottainaiState, seat: int, o: dict[str, Any]) -> float:
    return o.get("value", 0)


def _low(s: MottainaiState, seat: int, o: dict[str, Any]) -> float:
    return -o.get("value", 9)


def _use(s: MottainaiState, seat: int, o: dict[str, Any]) -> float:
    return 1 if o.get("choice") == "use" and o.get("effect") not in RISKY else 0


def _yes(s: MottainaiState, seat: int, o: dict[str, Any]) -> float:
    return 0 if o.get("choice") in ("decline", "stop") else 1


def _clerk(s: MottainaiState, seat: int, o: dict[str, Any]) -> float:
    return C.VALUES[C.MAT_INDEX[o["material"]]] if "material" in o else 2


def _keep(s: MottainaiState, seat: int, o: dict[str, Any]) -> float:
    return 1 if o.get("choice") == "stop" else 0


PREFER: dict[str, Score] = {
    "action": _action,
    "new_task": _new_task,
    "wing": _wing,
    "monk": _gather,
    "potter": _gather,
    "clerk": _clerk,
    "smith_work": _value,
    "craft_work": _value,
    "hand_limit": _low,
    "tailor_return": _keep,
    "morning_effect": _use,
    "after_effect": _use,
    "tailor_effect": _use,
    "night_effect": _use,
    "obstruction_reveal": _yes,
    "fountain_reveal": _yes,
    "figurine_reveal": _yes,
    "flag_reveal": _yes,
    "dice_complete": _yes,
    "statue_pick": _value,
    "vase_pick": _value,
    "amulet_card": _value,
    "ring_card": _value,
    "sword_card": _value,
    "shuriken_work": _value,
    "flute_target": _value,
    "cloak_work": _value,
}


def playout(state: State, decision: Decision, rng: random.Random) -> int:
    """The best option by :data:`PREFER` (ties and ``EXPLORE`` of the time: at random)."""
    score = PREFER.get(decision.kind)
    if score is None or rng.random() < EXPLORE:
        return rng.randrange(len(decision.options))
    assert isinstance(state, MottainaiState)
    values = [score(state, decision.seat, o) for o in decision.options]
    best = max(values)
    return rng.choice([i for i, v in enumerate(values) if v == best])


def margin_rewards(state: State) -> list[float]:
    """Half the rank reward, half the lead over the best opponent (team scores in the team game).

    Ranks alone reward a 1-point and a 15-point win alike; the margin tells the search which
    playouts went well, which matters when only a few dozen fit in a move.
    """
    assert isinstance(state, MottainaiState)
    outcome = state.outcome()
    scores = outcome.details.get("team_scores")
    totals = [scores[q % 2] for q in range(state.n)] if scores else list(outcome.scores)
    rewards = []
    for q, rank in enumerate(rank_rewards(outcome)):
        best = max(totals[o] for o in state.opponents(q))
        lead = min(1.0, max(0.0, 0.5 + (totals[q] - best) / (2 * MARGIN)))
        rewards.append((rank + lead) / 2)
    return rewards


def main() -> None:
    parser = arguments(__doc__.splitlines()[0])
    args = parser.parse_args()
    bot = SearchBot(
        "mottainai", playout=playout, fraction=args.fraction, seed=args.seed, reward=margin_rewards
    )
    run(bot)


if __name__ == "__main__":
    main()
