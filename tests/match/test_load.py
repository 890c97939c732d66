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
SHORT = Limits(init_ms=600, move_ms=60, bank_ms=100, grace_ms=10)
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
