"""Contract properties every rules engine must satisfy, shared by the per-game test modules.

Each game's tests call these with its own Game and, for the leak check, a function that permutes
the cards a given seat cannot see (the only game-specific knowledge the checks need).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from arena.games.base import Game, IllegalChoice, State
from arena.match.views import SeatViews

ROOT = Path(__file__).resolve().parents[2]

Answer = tuple[int, int]  # (seat, choice index)
Permute = Callable[[State, int, int, random.Random], State]


def random_answers(
    game: Game,
    players: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    policy_seed: int = 0,
    max_steps: int = 200_000,
    on_step: Callable[[State], None] | None = None,
) -> tuple[State, list[Answer]]:
    """Play one game with uniformly random answers; every offered option must be accepted.

    Picks a random pending decision each step (so simultaneous answers arrive in varied order).
    Fails if the game has not ended after ``max_steps`` answers. ``on_step`` sees the state after
    every answer (for invariant checks).
    """
    state = game.new(players, seed, options)
    rng = random.Random(policy_seed)
    answers: list[Answer] = []
    for _ in range(max_steps):
        pending = state.pending()
        if not pending:
            return state, answers
        decision = pending[rng.randrange(len(pending))]
        assert decision.options, f"decision {decision.kind} for seat {decision.seat} has no options"
        choice = rng.randrange(len(decision.options))
        state.act(decision.seat, choice)
        answers.append((decision.seat, choice))
        if on_step is not None:
            on_step(state)
    raise AssertionError(f"game did not end within {max_steps} answers (seed {seed})")


def replay(
    game: Game, players: int, seed: int, answers: list[Answer], options: Mapping[str, Any] | None
) -> State:
    state = game.new(players, seed, options)
    for seat, choice in answers:
        state.act(seat, choice)
    return state


def digest(state: State) -> str:
    """A hash of the full event log and the outcome: equal digests = identical games."""
    payload = {"events": state.event_log(), "outcome": state.outcome().as_dict()}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def check_outcome(state: State, players: int) -> None:
    """Outcome shape: one score and one rank per seat, ranks consistent with competition ranking."""
    assert state.is_over()
    outcome = state.outcome()
    assert len(outcome.scores) == players and len(outcome.ranks) == players
    assert min(outcome.ranks) == 0
    for seat, rank in enumerate(outcome.ranks):
        assert rank == sum(1 for r in outcome.ranks if r < rank), (seat, outcome.ranks)


def check_illegal_answers_rejected(state: State, players: int) -> None:
    """Out-of-range indices, and a seat with nothing pending, raise IllegalChoice."""
    pending = state.pending()
    if not pending:
        return
    decision = pending[0]
    for bad in (-1, len(decision.options)):
        probe = state.clone()
        try:
            probe.act(decision.seat, bad)
        except IllegalChoice:
            pass
        else:
            raise AssertionError(f"index {bad} accepted for {decision.kind}")
    waiting = {d.seat for d in pending}
    for seat in range(players):
        if seat not in waiting:
            probe = state.clone()
            try:
                probe.act(seat, 0)
            except IllegalChoice:
                pass
            else:
                raise AssertionError(f"seat {seat} answered without a pending decision")


_DIGEST_SCRIPT = """
import importlib, json, sys
from tests.games.engine_checks import random_answers, digest
module, _, cls = sys.argv[1].partition(":")
game = getattr(importlib.import_module(module), cls)()
players, seed, policy = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
options = json.loads(sys.argv[5])
state, _ = random_answers(game, players, seed, options, policy)
print(digest(state))
"""


def digest_in_subprocess(
    game: Game,
    players: int,
    seed: int,
    policy_seed: int,
    options: Mapping[str, Any] | None,
    hash_seed: str,
) -> str:
    """The same random game played in a fresh interpreter with another PYTHONHASHSEED."""
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    ref = f"{type(game).__module__}:{type(game).__name__}"
    args = [ref, str(players), str(seed), str(policy_seed), json.dumps(dict(options or {}))]
    out = subprocess.run(
        [sys.executable, "-c", _DIGEST_SCRIPT, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def check_cross_process_determinism(
    game: Game, players: int, seed: int, options: Mapping[str, Any] | None = None
) -> None:
    """Same seed and answers: identical digests here and in interpreters with other hash seeds."""
    state, answers = random_answers(game, players, seed, options, policy_seed=seed)
    local = digest(state)
    assert digest(replay(game, players, seed, answers, options)) == local
    for hash_seed in ("1", "4242"):
        assert digest_in_subprocess(game, players, seed, seed, options, hash_seed) == local


def check_no_leak(
    game: Game,
    players: int,
    seed: int,
    permute: Permute,
    options: Mapping[str, Any] | None = None,
    every: int = 1,
) -> int:
    """A seat's view and new events do not depend on cards hidden from it.

    At every ``every``-th answer of a random game, for each observer seat other than the one
    about to answer: clone the state, let ``permute(clone, observer, actor, rng)`` shuffle the
    cards hidden from the observer, then apply the same answer to both. The observer's view
    before and after, the delta a bot taking deltas is sent between them (PROTOCOL.md 8.5), and
    the events it receives for that answer, must be identical.

    ``permute`` must leave the actor's own private cards alone (so its options stay the same)
    and any hidden card that this answer could show the observer (for example the top of a deck
    an effect could deal to the observer). Returns the number of comparisons made.
    """
    state = game.new(players, seed, options)
    rng = random.Random(seed)
    compared = 0
    step = 0
    while state.pending():
        pending = state.pending()
        decision = pending[rng.randrange(len(pending))]
        choice = rng.randrange(len(decision.options))
        if step % every == 0:
            for observer in range(players):
                if observer == decision.seat:
                    continue
                twin = permute(state.clone(), observer, decision.seat, random.Random(step))
                assert twin.view(observer) == state.view(observer), (step, observer, "view")
                sent_a, sent_b = SeatViews(), SeatViews()
                sent_a.delta(state.view(observer))
                sent_b.delta(twin.view(observer))
                a = state.clone()
                _, cursor = a.events_since(observer, 0)
                a.act(decision.seat, choice)
                twin.act(decision.seat, choice)
                ev_a, _ = a.events_since(observer, cursor)
                ev_b, _ = twin.events_since(observer, cursor)
                assert ev_a == ev_b, (step, observer, decision.kind, ev_a, ev_b)
                assert a.view(observer) == twin.view(observer), (step, observer, "view after")
                delta_a, delta_b = sent_a.delta(a.view(observer)), sent_b.delta(twin.view(observer))
                assert delta_a == delta_b, (step, observer, "delta")
                compared += 1
        state.act(decision.seat, choice)
        step += 1
    return compared
