"""A result as plain data: what a worker sends back and what a welcome and a replay carry."""

from __future__ import annotations

import dataclasses
import pickle

from arena.match.results import Limits, MatchResult, SeatResult


def _played() -> MatchResult:
    incident = {"code": "late", "detail": "answered after 1000 ms", "seq": 3}
    seats = [
        SeatResult(0, "a", 1.0, 1, decisions=4, warnings={"unexpected": 1}, cpu_ms=1.5),
        SeatResult(1, "b", 0.0, 2, status="late", strikes=1, incidents=[incident]),
    ]
    outcome = {"scores": [1.0, 0.0], "ranks": [1, 2]}
    sched = {"wait_ms": 0.1, "timed_wakes": 2}
    return MatchResult("m1", "happy_mochi", "1", 7, {"max_rounds": 1}, seats, outcome, 4,
                       12.5, "bwrap", sched=sched)  # fmt: skip


def test_a_result_as_plain_data_is_what_asdict_gives_and_pickles_the_same() -> None:
    result = _played()
    plain = result.as_dict()
    assert plain == dataclasses.asdict(result)
    assert all(type(seat) is dict for seat in plain["seats"])
    assert pickle.loads(pickle.dumps(plain)) == dataclasses.asdict(result)
    plain["worker"] = "host:1"  # what the worker adds: the result itself is untouched
    assert "worker" not in result.as_dict()


def test_limits_as_plain_data_are_every_field() -> None:
    limits = Limits(move_ms=5, clock="cpu")
    assert limits.as_dict() == dataclasses.asdict(limits)
    assert Limits(**limits.as_dict()) == limits
