"""Matches on a machine loaded on purpose: CPU hogs outside the bots (``tests/hogs.py``), short
clocks. The host's load is never ruled against a bot: an honest bot is never ruled ``timeout``
(its deadline moves on while the host keeps it from running, or the match is void as ``load:``),
and a bot that burns CPU or sleeps itself is still ruled. Nothing here depends on how loaded the
machine turns out to be, only on what each ruling is allowed to be."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.match.referee import play_match
from arena.match.results import OK, Limits, MatchResult
from tests.hogs import hogs
from tests.match.test_referee import GAME, ONE_ROUND, bot_dir, misbehaving, randoms
from tests.procs import leftovers

__all__ = ["bot_dir"]  # the fixture, used by name

# Budgets a Python bot meets on an idle machine (it starts in about 200 ms of CPU, answers in a
# few), and misses on a core it shares with a few busy processes, unless its waits are its host's.
SHORT = Limits(init_ms=600, move_ms=60, bank_ms=1000, grace_ms=10)
HOGS = 8  # four busy processes per core on a 2-core machine


def loaded(folder: Path, bots: list, seeds: range) -> list[MatchResult]:
    with hogs(HOGS):
        results = [
            play_match(GAME, bots, seed, ONE_ROUND, SHORT, ask_forced=True) for seed in seeds
        ]
    assert leftovers(folder) == []
    return results


@pytest.mark.timeout(600)
def test_honest_bots_on_a_loaded_machine_are_never_ruled_timeout(bot_dir: Path) -> None:
    results = loaded(bot_dir, randoms(bot_dir, 3), range(3))
    for result in results:
        assert result.void is None or result.void.startswith("load: "), result.void
        if result.void is None:
            assert [s.status for s in result.seats] == [OK] * 3, [s.detail for s in result.seats]
        assert result.sched["wait_ms"] is not None  # the referee measured its own waits
    played = [r for r in results if r.void is None]
    print(
        f"{len(played)} played, {len(results) - len(played)} void (load); deadlines moved: "
        f"{[r.sched['deadlines_moved'] for r in results]}; referee wait shares: "
        f"{[r.sched['wait_share'] for r in results]}"
    )


@pytest.mark.timeout(600)
@pytest.mark.parametrize("mode", ["spin", "hang"])
def test_a_bot_that_burns_cpu_or_sleeps_on_a_loaded_machine_is_still_ruled(
    bot_dir: Path, mode: str
) -> None:
    """Spinning, it has its budget of CPU sooner or later; sleeping, it waits for nothing."""
    bots = [*randoms(bot_dir, 2), misbehaving(bot_dir, mode, after=1)]
    for result in loaded(bot_dir, bots, range(1)):
        if result.void is not None:  # the honest seats starved past the ceiling: never a ruling
            assert result.void.startswith("load: ") and "(misbehave" not in result.void
            continue
        culprit = result.seats[2]
        assert culprit.status == "timeout", culprit.detail
        assert "ms of CPU" in culprit.detail  # what it had is shown to its author
        assert [s.status for s in result.seats[:2]] == [OK, OK]


def test_on_the_cpu_clock_a_bot_that_sleeps_within_its_wall_ceiling_draws_nothing(
    bot_dir: Path,
) -> None:
    """``slow`` sleeps 1.5 move_ms before every answer: on the wall clock each answer draws on
    its bank; on the CPU clock it costs the millisecond or so of CPU it used."""
    bots = [*randoms(bot_dir, 1), misbehaving(bot_dir, "slow")]
    wall = Limits(init_ms=5000, move_ms=20, bank_ms=9000, grace_ms=50)
    cpu = Limits(init_ms=5000, move_ms=20, bank_ms=9000, grace_ms=50, clock="cpu")
    on_wall, on_cpu = (play_match(GAME, bots, 3, ONE_ROUND, lim).seats[1] for lim in (wall, cpu))
    assert on_wall.status == on_cpu.status == OK
    # On the wall clock it is charged the 30 ms it slept (less what the host made it wait).
    assert 0 < on_wall.warnings.get("slow", 0) <= on_wall.decisions
    assert on_wall.bank_left_ms < 9000
    assert "slow" not in on_cpu.warnings and on_cpu.bank_left_ms == 9000
    assert on_cpu.time_ms < on_wall.time_ms  # charged its CPU time, not its sleep
