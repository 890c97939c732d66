"""Information-set Monte Carlo tree search over Arena's own engines: a search bot for any game.

A starting point for strong bots. Each iteration of single-observer ISMCTS (Cowling, Powley and
Whitehouse, 2012):

1. samples one state this seat cannot tell from the real one (``Game.determinize``: its view, the
   events it was sent, the unseen cards dealt at random among those unaccounted for);
2. walks a tree whose edges are options keyed by their content, so the same option met in
   different samples is the same edge; among the edges available in this sample it picks by UCB,
   where an edge's count of "was available" replaces its parent's visits;
3. adds one edge, plays the game out with a fast policy (random unless the game's bot gives a
   better one), and credits every edge on the path with the result for the seat that chose it.

The move is the most visited option at the root. What to change first: the playout policy (a
greedy playout is much stronger than a random one), ``exploration``, and the sampler's hidden-card
model (uniform among the unseen cards here; a bot that infers hands from opponents' choices
samples better). Time: a fraction of ``move_ms`` per decision, never the bank.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.games import load_game
from arena.games.base import Decision, Outcome, State
from protocol.bot import Bot, Turn, Welcome

Playout = Callable[[State, Decision, random.Random], int]
Reward = Callable[[State], list[float]]  # per seat in [0, 1], from a finished playout
MIN_ITERATIONS = 8  # even on a tiny clock a few samples beat a blind choice


def random_playout(state: State, decision: Decision, rng: random.Random) -> int:
    return rng.randrange(len(decision.options))


def rank_rewards(outcome: Outcome) -> list[float]:
    """Per seat in [0, 1]: the share of the other seats it beat, a tie counting half."""
    ranks = outcome.ranks
    if len(ranks) < 2:
        return [1.0] * len(ranks)
    beaten = [sum(1.0 if r < o else 0.5 if r == o else 0.0 for o in ranks) - 0.5 for r in ranks]
    return [b / (len(ranks) - 1) for b in beaten]


def outcome_rewards(state: State) -> list[float]:
    """The default reward: :func:`rank_rewards` of the playout's outcome."""
    return rank_rewards(state.outcome())


class _Edge:
    __slots__ = ("available", "children", "reward", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.available = 0
        self.reward = 0.0
        self.children: dict[tuple[int, str], _Edge] = {}


def _key(seat: int, option: Mapping[str, Any]) -> tuple[int, str]:
    return seat, json.dumps(option, sort_keys=True, separators=(",", ":"))


class Search:
    """ISMCTS for one seat of one game; :meth:`choose` searches until a deadline."""

    def __init__(
        self,
        game_id: str,
        players: int,
        options: Mapping[str, Any],
        seat: int,
        rng: random.Random,
        playout: Playout = random_playout,
        exploration: float = 0.7,
        reward: Reward = outcome_rewards,
    ) -> None:
        self.game = load_game(game_id)
        self.players = players
        self.options = dict(options)
        self.seat = seat
        self.rng = rng
        self.playout = playout
        self.exploration = exploration
        self.reward = reward
        self.iterations = 0
        self.root = _Edge()  # the last search's tree

    def choose(
        self,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        offered: Sequence[Mapping[str, Any]],
        deadline: float,
    ) -> int:
        """The index into ``offered`` (this seat's options now) that the search likes best."""
        root = self.root = _Edge()
        done = 0
        while done < MIN_ITERATIONS or time.monotonic() < deadline:
            state = self.game.determinize(
                self.players, self.options, self.seat, view, events, self.rng
            )
            self._iterate(root, state)
            done += 1
        self.iterations = done
        visits = [
            root.children[k].visits if (k := _key(self.seat, o)) in root.children else -1
            for o in offered
        ]
        return max(range(len(offered)), key=visits.__getitem__)

    def statistics(self, offered: Sequence[Mapping[str, Any]]) -> list[tuple[int, float]]:
        """(visits, mean reward) of each of this seat's options at the last search's root."""
        edges = [self.root.children.get(_key(self.seat, o)) for o in offered]
        return [(e.visits, e.reward / e.visits) if e and e.visits else (0, 0.0) for e in edges]

    def _iterate(self, root: _Edge, state: State) -> None:
        edge, path = root, []
        expanded = False
        while not expanded and (pending := state.pending()):
            # Own decision first: simultaneous answers are buffered, so the order is free, and
            # the root must hold this seat's options.
            decision = min(pending, key=lambda d: d.seat != self.seat)
            if len(decision.options) == 1:
                state.act(decision.seat, 0)
                continue
            index, edge, expanded = self._select(edge, decision)
            state.act(decision.seat, index)
            path.append((edge, decision.seat))
        while pending := state.pending():
            decision = pending[0]
            state.act(decision.seat, self.playout(state, decision, self.rng))
        rewards = self.reward(state)
        for edge, seat in path:
            edge.visits += 1
            edge.reward += rewards[seat]

    def _select(self, parent: _Edge, decision: Decision) -> tuple[int, _Edge, bool]:
        """UCB over the edges available here; a new edge first, if there is one."""
        keys = [_key(decision.seat, o) for o in decision.options]
        untried = [i for i, k in enumerate(keys) if k not in parent.children]
        for k in keys:
            if k in parent.children:
                parent.children[k].available += 1
        if untried:
            index = self.rng.choice(untried)
            child = parent.children[keys[index]] = _Edge()
            child.available = 1
            return index, child, True
        c = self.exploration

        def ucb(i: int) -> float:
            e = parent.children[keys[i]]
            return e.reward / e.visits + c * math.sqrt(math.log(e.available) / e.visits)

        index = max(range(len(keys)), key=ucb)
        return index, parent.children[keys[index]], False


class SearchBot(Bot):
    """Plays ``game_id`` by ISMCTS, spending ``fraction`` of ``move_ms`` on each decision."""

    def __init__(
        self,
        game_id: str,
        playout: Playout = random_playout,
        fraction: float = 0.5,
        seed: int = 0,
        reward: Reward = outcome_rewards,
    ) -> None:
        self.game_id = game_id
        self.playout = playout
        self.reward = reward
        self.fraction = fraction
        self.seed = seed
        self.events: list[dict[str, Any]] = []
        self.search: Search | None = None

    def on_welcome(self, welcome: Welcome) -> None:
        super().on_welcome(welcome)
        rng = random.Random(f"{self.seed}/{welcome.match}/{welcome.seat}")
        game = welcome.game
        self.search = Search(
            game["id"],
            welcome.players,
            game["options"],
            welcome.seat,
            rng,
            self.playout,
            reward=self.reward,
        )
        self.events = []

    def choose(self, turn: Turn) -> int:
        started = time.monotonic()
        self.events += turn.events
        assert self.search is not None
        budget = turn.clock.get("move_ms", 1000) * self.fraction / 1000
        return self.search.choose(turn.view, self.events, turn.options, started + budget)


def arguments(description: str) -> argparse.ArgumentParser:
    """The options every search bot takes (``--fraction``, ``--seed``); a bot may add its own."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--fraction", type=float, default=0.5, help="share of move_ms to spend")
    parser.add_argument("--seed", type=int, default=0)
    return parser
