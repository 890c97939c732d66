"""A replay is written from the plain record of a match, without a referee or a process."""

from __future__ import annotations

import random
from pathlib import Path

from arena.games import load_game
from arena.match.replay import MatchRecord, build, read, verify, write
from arena.match.results import Limits, MatchResult, SeatResult

GAME = load_game("happy_mochi")


def test_a_record_of_a_match_played_in_memory_writes_a_replay_that_verifies(
    tmp_path: Path,
) -> None:
    options = GAME.resolve_options({"max_rounds": 1}, 2)
    state = GAME.new(2, 17, options)
    rng, decisions = random.Random(1), []
    while pending := state.pending():
        decision = pending[0]
        choice = rng.randrange(len(decision.options))
        decisions.append(
            {
                "seat": decision.seat,
                "kind": decision.kind,
                "choice": choice,
                "option": decision.options[choice],
                "by": "bot",
                "ms": 1.0,
                "events": state.event_count(),
            }
        )
        state.act(decision.seat, choice)
    outcome = state.outcome().as_dict()
    seats = [SeatResult(seat=i, name=f"b{i}", score=0.0, rank=outcome["ranks"][i]) for i in (0, 1)]
    result = MatchResult("m1", GAME.id, GAME.version, 17, options, seats, outcome, 0, 5.0, "none")
    record = MatchRecord(
        match_id="m1",
        game={"id": GAME.id, "version": GAME.version, "options": options},
        seed=17,
        players=[{"seat": i, "name": f"b{i}", "command": ["x"]} for i in (0, 1)],
        limits=Limits().as_dict(),
        position=None,
        decisions=decisions,
        events=state.event_log(),
        outcome=outcome,
        result=result,
    )
    write(tmp_path / "r.json.gz", build(record))
    data = read(tmp_path / "r.json.gz")
    assert verify(data).ok
    assert "position" not in data and data["timing"] == {"duration_ms": 5.0}
    assert [r["rank"] for r in data["result"]] == outcome["ranks"]
    assert "name" not in data["result"][0] and "score" not in data["result"][0]
