"""A Happy Mochi search bot: ISMCTS (sample_bots/python/ismcts.py) over the round being played.

Each decision samples states this seat cannot tell from the real one (``Game.determinize``: the
other hands, reserves and the draw pile dealt at random among the unseen cards, keeping every
card it saw go into a hand at its place), searches them for half of ``move_ms`` and plays the
most visited option. Two choices make the search useful within a second:

* the horizon is the end of the current round (the sampled game's ``max_rounds`` is set to it),
  and a playout is worth the seat's own round score (:func:`round_rewards`): minus points are
  what the game is about, and a whole game is far too long to play out;
* playouts follow :func:`playout`, a few rules of thumb read from the engine state (shed the
  most points, draw the cheapest known card, keep equal numbers side by side) with some noise.

See the game's README, "Search bot", for figures and what to change first.

Usage: python sample_bots/python/happy_mochi_search.py [--fraction F] [--seed N]
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from arena.games.base import Decision, State
from arena.games.happy_mochi.cards import COLOUR, NUMBER
from protocol.bot import Turn, Welcome, run

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ismcts import SearchBot, arguments  # a sibling script, found through the line above

NOISE = 0.1  # share of playout answers picked at random, so playouts vary
PILE_COST = 4.5  # what an unknown card from the pile costs on average
SCALE = 40.0  # round points that make the worst reward
MIN_VISITS = 10  # visits of the search's choice below which it is not trusted
MARGIN = 0.05  # mean reward (2 round points) the search's choice must gain over the policy's


def round_rewards(state: State) -> list[float]:
    """Per seat in [0, 1]: 1 for going out, less the more points its hand held at the round's end.

    Only the seat's own score: the others' scores barely depend on its choices and would only
    add noise to every playout's verdict.
    """
    scores = state.outcome().details["round_scores"]
    if not scores:
        return [0.5] * state.n  # type: ignore[attr-defined]
    return [max(0.0, 1.0 - score / SCALE) for score in scores[-1]]


def _draw_cost(hand: list[int], option: dict) -> float:
    if option["source"] == "pile":
        return PILE_COST
    number = NUMBER[option["card"]]
    return number - 6 if any(NUMBER[c] == number for c in hand) else number


def _turn(state: State, seat: int, options: tuple[dict, ...]) -> int:
    """Shed the most points (all of them when the hand empties), else draw the cheapest card."""
    hand = state.hands[seat]  # type: ignore[attr-defined]
    best, best_value = 0, float("-inf")
    for i, option in enumerate(options):
        if option["action"] == "play":
            k = option["index"]
            value = 100.0 + NUMBER[hand[k]] + NUMBER[hand[k + 1]]
            value += 100.0 if len(hand) == 2 else 0.0
        else:
            value = -_draw_cost(hand, option)
        if value > best_value:
            best, best_value = i, value
    return best


def _insert(state: State, seat: int, options: tuple[dict, ...]) -> int:
    """Beside a card of the same number (a future Happy Mochi), else of the same colour."""
    hand = state.hands[seat]  # type: ignore[attr-defined]
    card = state.holding[seat]  # type: ignore[attr-defined]

    def worth(neighbour: int) -> int:
        return (
            10
            if NUMBER[neighbour] == NUMBER[card]
            else 2
            if COLOUR[neighbour] == COLOUR[card]
            else 0
        )

    best, best_value = len(options) - 1, -1
    for i in range(len(options)):
        value = (worth(hand[i - 1]) if i else 0) + (worth(hand[i]) if i < len(hand) else 0)
        if value > best_value:
            best, best_value = i, value
    return best


def playout(state: State, decision: Decision, rng: random.Random) -> int:
    """The playout policy: :func:`policy`, except a share ``NOISE`` of answers at random."""
    if rng.random() < NOISE:
        return rng.randrange(len(decision.options))
    return policy(state, decision)


def policy(state: State, decision: Decision) -> int:
    """One rule of thumb per decision kind, read from the engine state."""
    options, seat, kind = decision.options, decision.seat, decision.kind
    if kind in ("turn", "force_draw_source"):
        return _turn(state, seat, options)
    if kind in ("insert", "insert_received"):
        return _insert(state, seat, options)
    if kind == "force_draw_target":
        sizes = [len(h) for h in state.hands]  # type: ignore[attr-defined]
        others = [i for i, o in enumerate(options) if o["seat"] != seat]
        return min(others, key=lambda i: sizes[options[i]["seat"]])
    if kind in ("pass_card", "reserve_card"):
        return max(range(len(options)), key=lambda i: NUMBER[options[i]["card"]])
    if kind == "round_reserve":
        return min(range(len(options)), key=lambda i: NUMBER[options[i]["card"]])
    return 0  # use_pass_left, use_reserve: yes; effect_order: the left card first


class MochiSearch(SearchBot):
    """ISMCTS whose sampled games end with the round being played, trusted only when sure.

    The search overrules :func:`policy` only when its most visited option has ``MIN_VISITS``
    visits and a mean reward at least ``MARGIN`` above the policy's option: with a small clock or
    a crowded machine, a few dozen samples are mostly noise, and the policy is the better bet.
    """

    def on_welcome(self, welcome: Welcome) -> None:
        super().on_welcome(welcome)
        self.last_round = welcome.game["options"].get("max_rounds", 100)

    def choose(self, turn: Turn) -> int:
        assert self.search is not None
        view = turn.view
        horizon = view["round"] + (1 if view["phase"] == "round_reserve" else 0)
        self.search.options["max_rounds"] = min(horizon, self.last_round)
        best = super().choose(turn)
        search = self.search
        state = search.game.determinize(
            search.players, search.options, search.seat, view, self.events, search.rng
        )
        mine = next(d for d in state.pending() if d.seat == search.seat)
        usual = policy(state, mine)  # reads only what this seat knows, so any sample will do
        stats = search.statistics(turn.options)
        (visits, mean), (_, usual_mean) = stats[best], stats[usual]
        return best if visits >= MIN_VISITS and mean >= usual_mean + MARGIN else usual


def main() -> None:
    parser = arguments(__doc__.splitlines()[0])
    args = parser.parse_args()
    run(MochiSearch("happy_mochi", playout, args.fraction, args.seed, reward=round_rewards))


if __name__ == "__main__":
    main()
