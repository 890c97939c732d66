"""The match clocks on a fake time line: moments are plain numbers, no process, no sleep."""

from __future__ import annotations

import pytest

from arena.games.base import Decision
from arena.match.clock import MatchClock, SeatClock
from arena.match.results import Limits

LIMITS = Limits(init_ms=3000, move_ms=1000, bank_ms=2000, grace_ms=50, match_ms=60_000)
TURN = Decision(0, "turn", ({"a": 1}, {"a": 2}), "play")


def test_a_deadline_is_move_ms_plus_bank_plus_grace_after_the_turn_was_sent() -> None:
    clock = SeatClock(LIMITS)
    ask = clock.ask(1, TURN, now=100.0)
    assert ask.deadline == pytest.approx(100.0 + (1000 + 2000 + 50) / 1000)
    assert ask.bank_full and not ask.overdue(103.049) and ask.overdue(103.05)


def test_an_answer_within_move_ms_leaves_the_bank_whole() -> None:
    clock = SeatClock(LIMITS)
    timing = clock.answer(clock.ask(1, TURN, now=10.0), received=10.4)
    assert timing is not None
    assert (timing.elapsed_ms, timing.over_ms) == (pytest.approx(400), 0.0)
    assert clock.bank_ms == 2000 and clock.time_ms == pytest.approx(400)


def test_a_slow_answer_draws_on_the_bank_and_shortens_the_next_deadline() -> None:
    clock = SeatClock(LIMITS)
    timing = clock.answer(clock.ask(1, TURN, now=0.0), received=1.5)
    assert timing is not None and timing.over_ms == pytest.approx(500)
    assert clock.bank_ms == pytest.approx(1500)
    assert clock.told() == {"move_ms": 1000, "bank_ms": 1500}
    ask = clock.ask(2, TURN, now=10.0)
    assert not ask.bank_full  # missing this one is bank_exhausted, not timeout
    assert ask.deadline == pytest.approx(10.0 + (1000 + 1500 + 50) / 1000)
    assert clock.max_ms == pytest.approx(1500) and clock.time_ms == pytest.approx(1500)


def test_grace_is_never_drawn_from_the_bank_below_zero() -> None:
    clock = SeatClock(LIMITS)
    timing = clock.answer(clock.ask(1, TURN, now=0.0), received=3.04)  # inside the grace
    assert timing is not None
    assert clock.bank_ms == 0.0


def test_an_answer_read_at_or_after_its_deadline_is_late_and_charges_nothing() -> None:
    clock = SeatClock(LIMITS)
    ask = clock.ask(1, TURN, now=0.0)
    assert clock.answer(ask, received=ask.deadline) is None
    assert (clock.time_ms, clock.bank_ms) == (0.0, 2000)
    clock.expire()
    assert clock.bank_ms == 0.0 and clock.told()["bank_ms"] == 0


def test_the_hello_deadline_is_init_ms_plus_grace() -> None:
    clock = MatchClock(LIMITS, started=5.0)
    assert clock.hello_deadline(5.0) == pytest.approx(5.0 + 3.05)


def test_the_match_cap_is_reached_once_then_disarmed() -> None:
    clock = MatchClock(LIMITS, started=0.0)
    assert clock.ends_at == 60.0
    assert not clock.reached(59.999)
    assert clock.reached(60.0)
    assert not clock.reached(1e9) and clock.ends_at == float("inf")


def test_a_finished_match_disarms_its_cap() -> None:
    clock = MatchClock(LIMITS, started=0.0)
    clock.disarm()
    assert not clock.reached(61.0)
