"""A Mai-Star search bot: ISMCTS (sample_bots/python/ismcts.py) that checks the greedy bot.

On each decision with a choice it takes the greedy bot's three favourite options
(``CANDIDATES``) and searches them for half of ``move_ms``:

* every iteration samples a state this seat cannot tell from the real one
  (``Game.determinize``: the other hands and the deck dealt at random among the unseen cards,
  keeping the cards it saw with a Sumo Wrestler or an Exchange) whose decision offers only the
  candidates, and cut at the end of the current round (:class:`ToRoundEnd`: rounds are dealt
  afresh, so later rounds only add noise);
* playouts follow the greedy bot's scores (:func:`playout`; its main-action score is read from
  the engine state, :func:`action_values`, which is much cheaper than a view), with a little
  noise;
* the reward is the seat's VP lead over the best other seat once the round is scored
  (:func:`round_rewards`).

The greedy bot's favourite stands unless another candidate's mean reward beats it by more than
the playouts' noise (``SPREAD``): with a few dozen samples a search cannot tell close options
apart, but it sees the big mistakes. See the game's README, "Search bot", for figures and what
to change first.

Usage: python sample_bots/python/mai_star_search.py [--fraction F] [--seed N]
"""

from __future__ import annotations

import math
import random
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena.games.base import Decision, State
from arena.games.mai_star import GAME, MaiStarState
from arena.games.mai_star.data import CARD_INDEX, CARDS, PUBLIC_CARDS
from protocol.bot import Turn, Welcome, run

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ismcts import SearchBot, arguments
from mai_star_greedy import EFFECT_BONUS, MaiStarGreedy

NOISE = 0.2  # random spread added to the greedy bot's scores, which often tie
CANDIDATES = 3  # options compared at the root, the greedy bot's best
SPREAD = 0.15  # a playout reward's usual spread: a change must beat the noise
LEAD_RANGE = 60.0  # VP: a lead of half this is the full reward


def greedy_bot() -> MaiStarGreedy:
    """The sample greedy bot, given the card data the referee would send it."""
    bot = MaiStarGreedy()
    bot.cards = {c["id"]: c for c in PUBLIC_CARDS["customers"]}
    return bot


GREEDY = greedy_bot()


def action_values(state: MaiStarState, decision: Decision) -> list[float]:
    """The greedy bot's scores of a main action, read from the engine state instead of a view
    (a view per playout step would cost half the search's time)."""
    seat = decision.seat
    rep = state.reputation(seat)
    hand = state.seats[seat].hand
    playable = {c for c in hand if state.can_play(c, rep)}
    values = []
    for option in decision.options:
        action = option["action"]
        if action == "guest":
            card = CARDS[CARD_INDEX[option["card"]]]
            values.append(2 + card.income + EFFECT_BONUS.get(card.effect_id, 0))
        elif action == "advertise":
            card = CARDS[CARD_INDEX[option["card"]]]
            after = [r + a for r, a in zip(rep, card.advertisement, strict=True)]
            rest = list(hand)
            rest.remove(card.index)
            unlocked = sum(
                CARDS[c].income for c in set(rest) if c not in playable and state.can_play(c, after)
            )
            values.append(1 + 0.6 * unlocked - 0.5 * card.income)
        else:
            values.append(-1.0)
    return values


def playout(state: State, decision: Decision, rng: random.Random) -> int:
    """Mostly the greedy bot's choice (by its scores on the sampled state's view), noise added."""
    if decision.kind == "action":
        values = action_values(state, decision)  # type: ignore[arg-type]
    else:
        score = getattr(GREEDY, f"_{decision.kind}", None)
        if score is None:
            return 0  # as the greedy bot does: the first option
        view = state.view(decision.seat)
        values = [score(view, option) for option in decision.options]
    noisy = [v + NOISE * rng.random() for v in values]
    return max(range(len(noisy)), key=noisy.__getitem__)


def greedy_order(turn: Turn) -> list[int]:
    """Option indices from the greedy bot's favourite down (ties: offered order, as it does)."""
    score = getattr(GREEDY, f"_{turn.kind}", None)
    if score is None:
        return list(range(len(turn.options)))
    values = [score(turn.view, option) for option in turn.options]
    return sorted(range(len(values)), key=lambda i: -values[i])


class ToRoundEnd(MaiStarState):
    """A sampled state whose playouts stop when its round is scored: rounds are dealt afresh,
    so later rounds add noise to a playout and nothing to judge this round's choices by."""

    horizon: int

    def pending(self) -> tuple[Decision, ...]:
        return () if self.round != self.horizon else super().pending()


class RoundSampler:
    """The engine as ``Search`` uses it: samples cut at the round's end (:class:`ToRoundEnd`),
    whose decision offers only the candidates the bot chose to compare. One sample serves as
    many iterations in a row as there are candidates, so they are mostly compared on the same
    deals (common random numbers: the deal's luck cancels out of the comparison)."""

    def __init__(self) -> None:
        self.horizon = 0
        self.candidates: tuple[dict[str, Any], ...] = ()
        self.sample: State | None = None
        self.uses = 0

    def start(self, horizon: int, candidates: tuple[dict[str, Any], ...]) -> None:
        self.horizon, self.candidates = horizon, candidates
        self.sample, self.uses = None, 0

    def determinize(self, *args: Any) -> State:
        if self.sample is None or self.uses == len(self.candidates):
            self.sample, self.uses = GAME.determinize(*args), 0
        self.uses += 1
        state = self.sample.clone()
        limited = ToRoundEnd.__new__(ToRoundEnd)
        limited.__dict__ = state.__dict__
        limited.horizon = self.horizon
        # answers are applied by content, so a sample may offer any subset of its options
        limited.decision = replace(state.decision, options=self.candidates)
        return limited


def round_rewards(state: State) -> list[float]:
    """Per seat in [0, 1], once the sampled round is scored: 0.5 plus its lead on total VP over
    the best other seat, scaled by ``LEAD_RANGE`` (linear, so a big lead still tells choices
    apart, where ranks would all say 1)."""
    assert isinstance(state, ToRoundEnd)
    totals = [sum(area.round_vp[: state.horizon]) for area in state.seats]
    rewards = []
    for seat, mine in enumerate(totals):
        lead = mine - max(totals[:seat] + totals[seat + 1 :])
        rewards.append(min(1.0, max(0.0, 0.5 + lead / LEAD_RANGE)))
    return rewards


class MaiStarSearch(SearchBot):
    """ISMCTS over samples cut at the end of the current round."""

    sampler: RoundSampler
    deviations = 0  # decisions where the search overruled the greedy bot

    def on_welcome(self, welcome: Welcome) -> None:
        super().on_welcome(welcome)
        assert self.search is not None
        self.sampler = RoundSampler()
        self.search.game = self.sampler  # type: ignore[assignment]

    def choose(self, turn: Turn) -> int:
        """The greedy bot's choice, unless the search finds another candidate clearly better."""
        if len(turn.options) == 1:
            self.events += turn.events
            return 0
        order = greedy_order(turn)
        candidates = tuple(turn.options[i] for i in sorted(order[:CANDIDATES]))
        self.sampler.start(turn.view["round"], candidates)
        super().choose(turn)
        assert self.search is not None
        stats = self.search.statistics(turn.options)
        best = favourite = order[0]
        for i in order[1:CANDIDATES]:
            (n, mean), (m, top) = stats[i], stats[best]
            if n and m and mean - top > SPREAD * math.sqrt(1 / n + 1 / m):
                best = i
        self.deviations += best != favourite
        return best


def main() -> None:
    parser = arguments(__doc__.splitlines()[0])
    args = parser.parse_args()
    bot = MaiStarSearch(
        "mai_star", playout=playout, fraction=args.fraction, seed=args.seed, reward=round_rewards
    )
    run(bot)


if __name__ == "__main__":
    main()
