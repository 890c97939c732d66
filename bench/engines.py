"""Engine speed: random games per second and microseconds per decision, per game and seat count.

Plays seeded random games in-process (no referee) and reports the engine's own cost: every
``pending()``, ``act()`` and the ``view()`` + ``events_since()`` a bot would be sent. The aim
is a cost per decision far below one ZeroMQ round trip (about 70 us here), so that a match
waits on its bots, never on the rules.

    python bench/engines.py [--games N] [--repeat R] [--game ID ...]

It also times ``clone()`` (what a search bot does thousands of times per decision) at the start,
the middle and the last decision of the first ``CLONE_GAMES`` games: a position copy, whose cost
must not grow with the length of the game.

Each configuration is played ``R`` times (the same seeded games) and the fastest run is kept:
on a shared machine, noise only ever adds time, so the minimum is the steadiest estimate.
Prints a table and saves bench/results/engines.json.

The engines deal from ``KeyedRandom`` (keyed BLAKE2b, docs/seeds.md), so each configuration is
also played with Python's Mersenne Twister in its place (what 1.x engines dealt from, a C
generator: the floor): ``keyed/twister`` is the cost of secret deals on a whole game, per
decision (other deals make other games, of other lengths). A second
table times the generators alone: shuffling 70 cards, and making a generator from a 128-bit
seed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import sys
import time
import timeit
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

from tabulate import tabulate

from arena.games import available_games
from arena.games.base import Game
from arena.games.rng import KeyedRandom

RESULTS = Path(__file__).parent / "results" / "engines.json"
CLONE_GAMES = 5  # games whose states are cloned, per seat count
CLONES = 200  # clones timed per state
STAGES = ("start", "middle", "end")


class Twister(KeyedRandom):
    """Python's Mersenne Twister behind ``KeyedRandom``'s type, so an engine can be timed with
    the generator 1.x engines dealt from; every drawing method is the Twister's own (C) one.
    For timing only: its state is not what ``getstate`` says."""

    def seed(self, a: Any = None, version: int = 2) -> None:
        super().seed(a)
        twister = random.Random(a)
        for name in ("random", "getrandbits", "shuffle", "randrange", "randint", "choice"):
            setattr(self, name, getattr(twister, name))
        self.sample = twister.sample


@contextlib.contextmanager
def dealing_from(kind: type[KeyedRandom]) -> Iterator[None]:
    """Every engine module's ``KeyedRandom`` replaced by ``kind`` meanwhile."""
    with contextlib.ExitStack() as stack:
        for name, module in list(sys.modules.items()):
            engine = name.startswith("arena.games.") and name != "arena.games.rng"
            if engine and getattr(module, "KeyedRandom", None) is KeyedRandom:
                stack.enter_context(mock.patch.object(module, "KeyedRandom", kind))
        yield


def per_decision(figures: dict[str, float]) -> float:
    return figures["seconds"] / figures["decisions"]


def generator_costs(repeat: int) -> dict[str, float]:
    """Microseconds to shuffle 70 cards and to make a generator, Twister and keyed."""
    out = {}
    for label, kind in (("twister", random.Random), ("keyed", KeyedRandom)):
        rng = kind(2**127 + 1)
        shuffle = timeit.repeat(
            "rng.shuffle(deck)", "deck = list(range(70))", number=2000, repeat=repeat,
            globals={"rng": rng},
        )  # fmt: skip
        make = timeit.repeat(lambda kind=kind: kind(2**127 + 1), number=2000, repeat=repeat)
        out[f"us_shuffle_70_{label}"] = round(min(shuffle) / 2000 * 1e6, 2)
        out[f"us_new_{label}"] = round(min(make) / 2000 * 1e6, 2)
    return out


def run(game: Game, players: int, games: int) -> dict[str, float]:
    """Totals over seeded random games; the view + events part is also timed on its own."""
    decisions = 0
    seeing = 0.0
    clock = time.perf_counter
    started = clock()
    for seed in range(games):
        state = game.new(players, seed)
        rng = random.Random(seed)
        cursors = [0] * players
        while pending := state.pending():
            decision = pending[rng.randrange(len(pending))]
            seat = decision.seat
            before = clock()
            state.view(seat)
            _, cursors[seat] = state.events_since(seat, cursors[seat])
            seeing += clock() - before
            state.act(seat, rng.randrange(len(decision.options)))
            decisions += 1
    elapsed = clock() - started
    return {
        "games": games,
        "decisions": decisions,
        "seconds": round(elapsed, 4),
        "games_per_s": round(games / elapsed, 2),
        "us_per_decision": round(elapsed / decisions * 1e6, 2),
        "us_view_and_events": round(seeing / decisions * 1e6, 2),
        "decisions_per_game": round(decisions / games, 1),
    }


def random_answers(game: Game, players: int, seed: int) -> list[tuple[int, int]]:
    """The answers of the seeded random game :func:`run` plays."""
    state = game.new(players, seed)
    rng = random.Random(seed)
    answers = []
    while pending := state.pending():
        decision = pending[rng.randrange(len(pending))]
        answers.append((decision.seat, rng.randrange(len(decision.options))))
        state.act(*answers[-1])
    return answers


def clone_costs(game: Game, players: int, games: int) -> dict[str, float]:
    """Microseconds per ``clone()`` before the first, the middle and the last decision."""
    clock = time.perf_counter
    spent = dict.fromkeys(STAGES, 0.0)
    for seed in range(games):
        answers = random_answers(game, players, seed)
        cuts = (0, len(answers) // 2, len(answers) - 1)
        for stage, cut in zip(STAGES, cuts, strict=True):
            state = game.new(players, seed)
            for seat, choice in answers[:cut]:
                state.act(seat, choice)
            before = clock()
            for _ in range(CLONES):
                state.clone()
            spent[stage] += clock() - before
    return {f"us_clone_{stage}": round(spent[stage] / games / CLONES * 1e6, 2) for stage in STAGES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="games per seat count")
    parser.add_argument("--repeat", type=int, default=3, help="runs per seat count; best kept")
    parser.add_argument("--game", action="append", help="only these game ids")
    args = parser.parse_args()
    rows, results = [], []
    for game in available_games().values():
        if args.game and game.id not in args.game:
            continue
        for players in range(game.min_players, game.max_players + 1):
            runs = [run(game, players, args.games) for _ in range(max(1, args.repeat))]
            figures = min(runs, key=lambda r: r["seconds"])
            clones = min(
                (clone_costs(game, players, min(args.games, CLONE_GAMES)) for _ in runs),
                key=lambda c: c["us_clone_end"],
            )
            figures.update(clones)
            with dealing_from(Twister):  # other deals: other games, so compare per decision
                twister = min((run(game, players, args.games) for _ in runs), key=per_decision)
            figures["us_per_decision_twister"] = twister["us_per_decision"]
            figures["keyed_over_twister"] = round(per_decision(figures) / per_decision(twister), 3)
            results.append({"game": game.id, "players": players, **figures})
            rows.append(
                [
                    game.id,
                    players,
                    figures["games_per_s"],
                    figures["us_per_decision"],
                    figures["us_per_decision_twister"],
                    figures["keyed_over_twister"],
                    figures["us_view_and_events"],
                    figures["decisions_per_game"],
                    *(figures[f"us_clone_{stage}"] for stage in STAGES),
                ]
            )
    headers = [
        "game",
        "players",
        "games/s",
        "us/decision",
        "us/decision twister",
        "keyed/twister",
        "of which view+events",
        "decisions/game",
        *(f"us/clone {stage}" for stage in STAGES),
    ]
    print(tabulate(rows, headers=headers))
    generator = generator_costs(max(1, args.repeat))
    print()
    print(
        tabulate(
            [
                [what, generator[f"us_{key}_twister"], generator[f"us_{key}_keyed"],
                 round(generator[f"us_{key}_keyed"] / generator[f"us_{key}_twister"], 2)]
                for what, key in (("shuffle 70 cards", "shuffle_70"), ("new generator", "new"))
            ],
            headers=["us per", "twister", "keyed", "keyed/twister"],
        )
    )  # fmt: skip
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "repeat": args.repeat,
        "load_average": os.getloadavg()[0],
    }
    data = {"meta": meta, "generator": generator, "results": results}
    RESULTS.write_text(json.dumps(data, indent=2) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
