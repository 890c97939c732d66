"""Engine speed: random games per second and microseconds per decision, per game and seat count.

Plays seeded random games in-process (no referee) and reports the engine's own cost: every
``pending()``, ``act()`` and the ``view()`` + ``events_since()`` a bot would be sent. The aim
(DESIGN.md) is a cost per decision far below one ZeroMQ round trip (about 70 us here).

    python bench/engines.py [--games N] [--repeat R] [--game ID ...]

It also times ``clone()`` (what a search bot does thousands of times per decision) at the start,
the middle and the last decision of the first ``CLONE_GAMES`` games: a position copy, whose cost
must not grow with the length of the game.

Each configuration is played ``R`` times (the same seeded games) and the fastest run is kept:
on a shared machine, noise only ever adds time, so the minimum is the steadiest estimate.
Prints a table and saves bench/results/engines.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from pathlib import Path

from tabulate import tabulate

from arena.games import available_games
from arena.games.base import Game

RESULTS = Path(__file__).parent / "results" / "engines.json"
CLONE_GAMES = 5  # games whose states are cloned, per seat count
CLONES = 200  # clones timed per state
STAGES = ("start", "middle", "end")


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
            results.append({"game": game.id, "players": players, **figures})
            rows.append(
                [
                    game.id,
                    players,
                    figures["games_per_s"],
                    figures["us_per_decision"],
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
        "of which view+events",
        "decisions/game",
        *(f"us/clone {stage}" for stage in STAGES),
    ]
    print(tabulate(rows, headers=headers))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "repeat": args.repeat,
        "load_average": os.getloadavg()[0],
    }
    RESULTS.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
