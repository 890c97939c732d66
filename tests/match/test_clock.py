"""The match clocks on a fake time line: moments are plain numbers, no process, no sleep."""

from __future__ import annotations

import pytest

from arena.games.base import Decision
from arena.match.clock import (
    LOAD_CEILING,
    MEASURE_AFTER_MS,
    MIN_STEP_MS,
    Ask,
    MatchClock,
    SeatClock,
    Spent,
    Verdict,
)
from arena.match.results import Limits
from arena.sandbox import Reading

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
    window = SeatClock(LIMITS).hello(5.0, referee_wait_ms=None)
    assert window.deadline == pytest.approx(5.0 + 3.05)
    assert window.ceiling == pytest.approx(5.0 + LOAD_CEILING * 3.05)


# -- the host's load: what a seat is charged, and its deadline judged -----------------------

BUDGET_MS = 1000 + 2000 + 50


def spent_at(clock: SeatClock, ask: Ask, now: float, cpu_ms: float, wait_ms: float) -> Spent:
    """What the seat had by ``now``: its bot's CPU time and waits since the ask (the
    referee's own waits none)."""
    return Spent.of(ask, now, Reading(ask.start.cpu_ms + cpu_ms, wait_ms), referee_wait_ms=0.0)


def asked(limits: Limits = LIMITS) -> tuple[SeatClock, Ask]:
    clock = SeatClock(limits)
    return clock, clock.ask(1, TURN, now=0.0, reading=Reading(500.0, 0.0), referee_wait_ms=0.0)


def test_a_bot_that_sleeps_is_late_at_its_first_deadline_loaded_host_or_not() -> None:
    clock, ask = asked()
    spent = spent_at(clock, ask, ask.deadline, cpu_ms=1.0, wait_ms=0.0)
    assert spent.own_ms == pytest.approx(BUDGET_MS)
    assert clock.judge(ask, spent, ask.deadline) is Verdict.FAULT


def test_a_starved_bot_has_its_deadline_moved_by_what_it_waited_then_answers_in_time() -> None:
    clock, ask = asked()
    now = ask.deadline
    spent = spent_at(clock, ask, now, cpu_ms=100.0, wait_ms=2000.0)
    assert spent.own_ms == pytest.approx(BUDGET_MS - 2000)
    assert clock.judge(ask, spent, now) is Verdict.EXTEND
    assert ask.deadline == pytest.approx(now + 2.0)
    # It answers a second later, having waited more: charged its own time, not the wall's.
    later = now + 1.0
    timing = clock.answer(ask, later, spent_at(clock, ask, later, cpu_ms=150.0, wait_ms=3100.0))
    assert timing is not None
    assert timing.elapsed_ms == pytest.approx(BUDGET_MS + 1000 - 3100)
    assert clock.bank_ms == 2000  # its own time was within move_ms


def test_a_bot_the_host_starves_up_to_the_ceiling_voids_the_match() -> None:
    clock, ask = asked()
    now = ask.deadline
    while (verdict := clock.judge(ask, spent_at(clock, ask, now, 10.0, now * 990), now)) is (
        Verdict.EXTEND
    ):
        assert ask.deadline <= ask.ceiling
        now = ask.deadline
    assert verdict is Verdict.VOID and now == pytest.approx(ask.ceiling)


def test_a_bot_that_burns_cpu_on_a_starved_host_is_late_once_it_had_its_budget() -> None:
    """A fifth of a core: its own time never falls below its CPU time."""
    clock, ask = asked()
    now, verdict = ask.deadline, Verdict.EXTEND
    while verdict is Verdict.EXTEND:
        spent = spent_at(clock, ask, now, cpu_ms=now * 200, wait_ms=now * 800)
        verdict = clock.judge(ask, spent, now)
        now = ask.deadline
    assert verdict is Verdict.FAULT
    assert spent.cpu_ms == pytest.approx(BUDGET_MS, rel=0.05) and now < ask.ceiling


def test_the_referees_own_waits_count_as_the_hosts() -> None:
    clock, ask = asked()
    now = ask.deadline
    spent = Spent.of(ask, now, Reading(510.0, 400.0), referee_wait_ms=1500.0)
    assert spent.wait_ms == 1900.0 and clock.judge(ask, spent, now) is Verdict.EXTEND


def test_unmeasured_seats_are_judged_on_the_wall_clock() -> None:
    clock = SeatClock(LIMITS)
    ask = clock.ask(1, TURN, now=0.0)
    spent = Spent.of(ask, ask.deadline, Reading(), referee_wait_ms=None)
    assert spent.own_ms == pytest.approx(BUDGET_MS)
    assert clock.judge(ask, spent, ask.deadline) is Verdict.FAULT


CPU = Limits(init_ms=3000, move_ms=1000, bank_ms=2000, grace_ms=50, clock="cpu", wall_factor=3)


def test_on_the_cpu_clock_a_seat_is_charged_its_cpu_time() -> None:
    clock, ask = asked(CPU)
    assert ask.ceiling == pytest.approx(3 * BUDGET_MS / 1000)
    assert clock.measures(ask, 0.001)  # every answer is measured
    timing = clock.answer(ask, 2.0, spent_at(clock, ask, 2.0, cpu_ms=400.0, wait_ms=0.0))
    assert timing is not None and timing.elapsed_ms == pytest.approx(400)
    assert clock.bank_ms == 2000


def test_on_the_cpu_clock_a_bot_that_idles_is_late_at_the_wall_ceiling() -> None:
    clock, ask = asked(CPU)
    spent = spent_at(clock, ask, ask.deadline, cpu_ms=5.0, wait_ms=0.0)
    assert clock.judge(ask, spent, ask.deadline) is Verdict.EXTEND  # it may still think
    spent = spent_at(clock, ask, ask.ceiling, cpu_ms=8.0, wait_ms=0.0)
    assert clock.judge(ask, spent, ask.ceiling) is Verdict.FAULT


def test_on_the_cpu_clock_a_starved_bot_at_the_ceiling_voids_the_match() -> None:
    clock, ask = asked(CPU)
    spent = spent_at(clock, ask, ask.ceiling, cpu_ms=300.0, wait_ms=8000.0)
    assert clock.judge(ask, spent, ask.ceiling) is Verdict.VOID


def test_on_the_cpu_clock_an_answer_after_its_budget_of_cpu_is_late() -> None:
    """Several cores: the CPU budget is used up before the wall deadline."""
    clock, ask = asked(CPU)
    spent = spent_at(clock, ask, 2.0, cpu_ms=BUDGET_MS + 1, wait_ms=0.0)
    assert clock.answer(ask, 2.0, spent) is None


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


# -- counters read a moment after the turn was sent ---------------------------------------


def deferred(limits: Limits = LIMITS) -> tuple[SeatClock, Ask]:
    clock = SeatClock(limits)
    return clock, clock.ask(1, TURN, now=0.0, measured=False)


def test_a_turn_on_the_wall_clock_reads_its_counters_after_measure_after_ms() -> None:
    clock, ask = deferred()
    assert clock.defers and ask.measured_at is None
    assert ask.wake_at == pytest.approx(MEASURE_AFTER_MS / 1000)  # the referee wakes for it
    soon, due = MEASURE_AFTER_MS / 2000, MEASURE_AFTER_MS / 1000
    assert not ask.unmeasured(soon) and ask.unmeasured(due)
    # An answer within move_ms is charged its wall time without any counter.
    assert not clock.measures(ask, soon)
    timing = clock.answer(ask, soon)
    assert timing is not None and timing.elapsed_ms == pytest.approx(MEASURE_AFTER_MS / 2)
    ask.measure(due, Reading(500.0, 0.0), referee_wait_ms=0.0)
    assert ask.wake_at == ask.deadline and not ask.unmeasured(1.0)


def test_the_moments_before_the_counters_were_read_are_the_referees_waits() -> None:
    """Read 3 ms late (the referee could not run): those 3 ms are the host's, not the bot's."""
    _, ask = deferred()
    ask.measure(0.003, Reading(500.0, 0.0), referee_wait_ms=10.0)
    spent = Spent.of(ask, 2.0, Reading(501.0, 100.0), referee_wait_ms=12.0)
    assert spent.wait_ms == pytest.approx(100.0 + 2.0 + 3.0)
    assert spent.own_ms == pytest.approx(2000 - 105)


def test_a_seat_that_flooded_has_no_moments_credited() -> None:
    """Its referee waits are not counted (None): neither are the moments before the read."""
    _, ask = deferred()
    ask.measure(0.003, Reading(500.0, 0.0), referee_wait_ms=10.0)
    spent = Spent.of(ask, 2.0, Reading(501.0, 100.0), referee_wait_ms=None)
    assert spent.wait_ms == pytest.approx(100.0) and spent.own_ms == pytest.approx(1900)


def test_a_bot_that_sleeps_is_still_late_when_its_counters_were_read_late() -> None:
    """Its deadline moves on once, by the moments before the read, then it is late."""
    clock, ask = deferred()
    ask.measure(0.002, Reading(500.0, 0.0), referee_wait_ms=0.0)
    now = ask.deadline
    spent = Spent.of(ask, now, Reading(501.0, 0.0), referee_wait_ms=0.0)
    assert clock.judge(ask, spent, now) is Verdict.EXTEND
    now = ask.deadline
    spent = Spent.of(ask, now, Reading(501.0, 0.0), referee_wait_ms=0.0)
    assert clock.judge(ask, spent, now) is Verdict.FAULT
    assert now - BUDGET_MS / 1000 == pytest.approx(MIN_STEP_MS / 1000)


def test_the_cpu_clock_and_tiny_move_ms_read_the_counters_at_once() -> None:
    assert not SeatClock(CPU).defers  # every answer is charged its CPU time
    _, ask = deferred(Limits(move_ms=0))
    assert ask.measure_by == 0.0 and ask.unmeasured(0.0)  # read at the referee's next look
