"""The referee against real bot processes over real ZeroMQ sockets (Happy Mochi matches)."""

from __future__ import annotations

import gc
import shutil
import uuid
from pathlib import Path

import pytest

from arena import sandbox
from arena.games import load_game
from arena.match import heap
from arena.match.bots import BotSpec, parse_bot
from arena.match.faults import FaultPolicy
from arena.match.referee import play_match
from arena.match.replay import read, strip_timing, verify
from arena.match.results import Limits, MatchResult
from tests.procs import leftovers

ROOT = Path(__file__).resolve().parents[2]
GAME = load_game("happy_mochi")
FAST = Limits(init_ms=5000, move_ms=2000, bank_ms=2000, grace_ms=50)
ONE_ROUND = {"max_rounds": 1}


@pytest.fixture
def bot_dir(tmp_path: Path) -> Path:
    """A private copy of the bot programs, so leftover processes can be found by path."""
    folder = tmp_path / f"bots-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    shutil.copy(ROOT / "sample_bots/python/random_bot.py", folder / "random_bot.py")
    shutil.copy(ROOT / "tests/bots/misbehave.py", folder / "misbehave.py")
    return folder


def randoms(folder: Path, n: int) -> list[BotSpec]:
    return [parse_bot(f"r{i}=python {folder}/random_bot.py --seed {i}") for i in range(n)]


def misbehaving(folder: Path, mode: str, after: int = 4) -> BotSpec:
    return parse_bot(f"{mode}=python {folder}/misbehave.py {mode} --after {after}")


def play(
    folder: Path,
    bots: list[BotSpec],
    tmp_path: Path,
    limits: Limits = FAST,
    options: dict | None = ONE_ROUND,
) -> MatchResult:
    """Play with the Happy Mochi round cap at 1 (short games), check no process is left."""
    path = tmp_path / "r.json"
    result = play_match(GAME, bots, seed=11, options=options, limits=limits, replay_path=path)
    assert result.void is None
    assert leftovers(folder) == []
    return result


def test_full_match_of_random_bots(bot_dir: Path, tmp_path: Path) -> None:
    result = play(bot_dir, randoms(bot_dir, 3), tmp_path, options=None)
    assert [s.status for s in result.seats] == ["ok"] * 3
    assert max(result.outcome["details"]["totals"]) >= 30  # played to the real end
    assert result.ranks == list(result.outcome["ranks"])
    assert all(s.decisions > 0 for s in result.seats)
    data = read(tmp_path / "r.json")
    assert verify(data).ok
    assert [p["name"] for p in data["players"]] == ["r0", "r1", "r2"]
    assert sum(d["by"] == "bot" for d in data["decisions"]) == sum(
        s.decisions for s in result.seats
    )


def test_same_seed_gives_identical_replays_apart_from_timings(
    bot_dir: Path, tmp_path: Path
) -> None:
    """The match id is an input as the seed is (a match not given one gets a random id)."""
    same = {"limits": FAST, "match_id": "m1"}
    first = play_match(GAME, randoms(bot_dir, 2), 5, replay_path=tmp_path / "a.json", **same)
    second = play_match(GAME, randoms(bot_dir, 2), 5, replay_path=tmp_path / "b.json", **same)
    assert first.outcome == second.outcome
    assert strip_timing(read(tmp_path / "a.json")) == strip_timing(read(tmp_path / "b.json"))


def test_a_match_without_a_replay_counts_the_same_decisions_and_hands_the_heap_back(
    bot_dir: Path, tmp_path: Path
) -> None:
    """Decisions are recorded only for a replay, and the heap is frozen only while the game
    is played: the result is the same, and what the caller froze stays frozen."""
    same = {"limits": FAST, "match_id": "m1", "options": ONE_ROUND}
    replayed = play_match(GAME, randoms(bot_dir, 2), 5, replay_path=tmp_path / "a.json", **same)
    assert gc.get_freeze_count() == 0
    gc.freeze()  # a caller that froze its heap (say, before forking) keeps it frozen
    try:
        frozen = gc.get_freeze_count()
        bare = play_match(GAME, randoms(bot_dir, 2), 5, **same)
        assert gc.get_freeze_count() >= frozen > 0
    finally:
        gc.unfreeze()
    assert bare.replay_path is None and bare.outcome == replayed.outcome
    assert bare.decisions == replayed.decisions == len(read(tmp_path / "a.json")["decisions"])
    assert [s.decisions for s in bare.seats] == [s.decisions for s in replayed.seats]


def test_a_process_that_only_plays_matches_still_makes_full_collections(
    bot_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Freezing the heap for each game sets the collector's counts back to zero, so the
    referee makes a full pass itself between games, once enough decisions were played."""
    monkeypatch.setattr(heap, "FULL_PASS_DECISIONS", 1)
    full: list[str] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if info["generation"] == 2:
            full.append(phase)

    gc.callbacks.append(watch)
    try:
        result = play_match(GAME, randoms(bot_dir, 2), 5, limits=FAST, options=ONE_ROUND)
    finally:
        gc.callbacks.remove(watch)
    assert result.void is None and result.decisions > 0
    assert full[-2:] == ["start", "stop"]


@pytest.mark.parametrize(
    ("mode", "status", "detail"),
    [
        ("crash", "crashed", "exited with code 3"),
        ("abort", "crashed", "SIGABRT"),
        ("garbage", "malformed", "not a valid msgpack message"),
        ("bad_field", "bad_field", "action.choice must be an integer"),
        ("illegal", "illegal_action", "choice"),
    ],
)
def test_faulty_bot_is_forfeited_and_the_match_goes_on(
    bot_dir: Path, tmp_path: Path, mode: str, status: str, detail: str
) -> None:
    # A long clock: these faults must be seen when they happen, not at a deadline.
    patient = Limits(init_ms=5000, move_ms=60_000, bank_ms=0, grace_ms=50)
    bots = [*randoms(bot_dir, 2), misbehaving(bot_dir, mode)]
    result = play(bot_dir, bots, tmp_path, patient)
    faulty = result.seats[2]
    assert faulty.status == status
    assert detail in faulty.detail
    assert faulty.decisions == 4  # it was asked, and answered, four times before
    assert result.duration_ms < patient.move_ms
    assert [s.status for s in result.seats[:2]] == ["ok", "ok"]
    assert faulty.rank == 2 and sorted(s.rank for s in result.seats[:2]) in ([0, 1], [0, 0])
    data = read(tmp_path / "r.json")
    assert verify(data).ok
    assert any(d["by"] == "substitute" and d["seat"] == 2 for d in data["decisions"])


def test_crash_keeps_the_bots_last_words(bot_dir: Path, tmp_path: Path) -> None:
    result = play(bot_dir, [*randoms(bot_dir, 1), misbehaving(bot_dir, "crash", 0)], tmp_path)
    assert result.seats[1].exit_code == 3
    assert "crashing on purpose" in result.seats[1].log_tail


def test_hanging_bot_times_out_and_is_killed(bot_dir: Path, tmp_path: Path) -> None:
    limits = Limits(init_ms=5000, move_ms=200, bank_ms=100, grace_ms=50)
    result = play(
        bot_dir, [*randoms(bot_dir, 1), misbehaving(bot_dir, "hang", 2)], tmp_path, limits
    )
    assert result.seats[1].status == "timeout"
    assert result.seats[1].exit_code == -9
    assert result.seats[0].status == "ok"
    assert result.ranks == [0, 1]


def test_bot_that_never_says_hello_times_out_at_init(bot_dir: Path, tmp_path: Path) -> None:
    limits = Limits(init_ms=300, move_ms=1000, bank_ms=0, grace_ms=50)
    result = play(bot_dir, [*randoms(bot_dir, 1), misbehaving(bot_dir, "silent")], tmp_path, limits)
    assert result.seats[1].status == "timeout"
    assert "no hello" in result.seats[1].detail
    assert result.seats[1].decisions == 0


def test_stale_answers_are_counted_not_fatal(bot_dir: Path, tmp_path: Path) -> None:
    result = play(bot_dir, [*randoms(bot_dir, 1), misbehaving(bot_dir, "stale", 3)], tmp_path)
    assert result.seats[1].status == "ok"
    assert result.seats[1].warnings == {"stale_seq": 1}


def test_slow_bot_spends_its_bank(bot_dir: Path, tmp_path: Path) -> None:
    """move_ms 20: the slow bot takes 30 ms a turn; at least 10 ms each comes off its bank."""
    limits = Limits(init_ms=5000, move_ms=20, bank_ms=60_000, grace_ms=50)
    bots = [*randoms(bot_dir, 1), misbehaving(bot_dir, "slow", 10_000)]
    result = play(bot_dir, bots, tmp_path, limits)
    slow = result.seats[1]
    assert slow.status == "ok"
    assert slow.decisions > 0
    # Charged its own time: the 30 ms it sleeps, less what a busy host made it wait.
    assert slow.bank_left_ms < limits.bank_ms
    assert 0 < slow.time_ms <= slow.decisions * slow.max_ms


def test_slow_bot_runs_its_bank_dry(bot_dir: Path, tmp_path: Path) -> None:
    """A 500 ms bank lasts about ten 50 ms overruns; then the deadline passes: bank_exhausted.

    The first answer has 605 ms before it would be a plain timeout, room for a loaded machine.
    How many overruns it lasts depends on the host: the time a busy host made the bot wait for
    a CPU is not drawn from its bank (docs/clocks.md), so only the outcome is asserted.
    """
    limits = Limits(init_ms=5000, move_ms=100, bank_ms=500, grace_ms=5)
    bots = [*randoms(bot_dir, 1), misbehaving(bot_dir, "slow", 10_000)]
    result = play(bot_dir, bots, tmp_path, limits, options=None)
    slow = result.seats[1]
    assert slow.status == "bank_exhausted"
    assert "time bank of 500 ms used up" in slow.detail
    assert slow.decisions >= 1
    assert result.ranks == [0, 1]


def test_every_fault_ranks_below_every_clean_seat(bot_dir: Path, tmp_path: Path) -> None:
    bots = [
        misbehaving(bot_dir, "crash", 1),
        *randoms(bot_dir, 1),
        misbehaving(bot_dir, "illegal", 2),
    ]
    result = play(bot_dir, bots, tmp_path)
    assert [s.status for s in result.seats] == ["crashed", "ok", "illegal_action"]
    assert result.ranks == [1, 0, 1]


def test_substitute_policy_counts_strikes_then_forfeits(bot_dir: Path, tmp_path: Path) -> None:
    """illegal_action=substitute, 2 strikes allowed: the third illegal answer forfeits."""
    policy = FaultPolicy(illegal_action="substitute", max_strikes=2)
    bots = [*randoms(bot_dir, 1), misbehaving(bot_dir, "illegal_always", 1)]
    result = play_match(GAME, bots, 11, ONE_ROUND, FAST, tmp_path / "r.json", policy=policy)
    faulty = result.seats[1]
    assert (faulty.status, faulty.strikes) == ("illegal_action", 3)
    assert "strike 3, over the limit of 2" in faulty.detail
    assert [i["fatal"] for i in faulty.incidents] == [False, False, True]
    data = read(tmp_path / "r.json")
    substituted = [d for d in data["decisions"] if d["seat"] == 1 and d["by"] == "substitute"]
    assert len(substituted) >= 3
    assert verify(data).ok


def test_substituted_crash_plays_on_with_one_strike(bot_dir: Path, tmp_path: Path) -> None:
    policy = FaultPolicy(crash="substitute")
    bots = [*randoms(bot_dir, 1), misbehaving(bot_dir, "crash", 2)]
    result = play(bot_dir, bots, tmp_path)  # default policy: forfeit
    assert result.seats[1].status == "crashed"
    result = play_match(GAME, bots, 11, ONE_ROUND, FAST, policy=policy)
    crashed = result.seats[1]
    assert (crashed.status, crashed.strikes, crashed.exit_code) == ("ok", 1, 3)
    assert crashed.incidents[0]["code"] == "crashed" and not crashed.incidents[0]["fatal"]
    assert leftovers(bot_dir) == []


def test_incidents_name_the_offending_message(bot_dir: Path, tmp_path: Path) -> None:
    result = play(bot_dir, [*randoms(bot_dir, 1), misbehaving(bot_dir, "illegal", 2)], tmp_path)
    incident = result.seats[1].incidents[-1]
    assert incident["code"] == "illegal_action" and incident["fatal"]
    assert incident["kind"] == "turn" and isinstance(incident["seq"], int)
    assert '"type": "action"' in incident["message"] and '"choice":' in incident["message"]
    assert "were [{" in incident["detail"]  # the options it was offered
    stale = play(bot_dir, [*randoms(bot_dir, 1), misbehaving(bot_dir, "stale", 3)], tmp_path)
    (note,) = stale.seats[1].incidents
    assert (note["code"], note["fatal"]) == ("stale_seq", False)
    assert "is not awaited" in note["detail"] and '"seq":' in note["message"]


def test_slow_answers_are_incidents_with_the_bank_left(bot_dir: Path, tmp_path: Path) -> None:
    limits = Limits(init_ms=5000, move_ms=20, bank_ms=60_000, grace_ms=50)
    bots = [*randoms(bot_dir, 1), misbehaving(bot_dir, "slow", 10_000)]
    slow = play(bot_dir, bots, tmp_path, limits).seats[1]
    assert 0 < slow.warnings["slow"] <= slow.decisions  # a busy host's waits are not charged
    assert all(i["code"] == "slow" and "ms of bank left" in i["detail"] for i in slow.incidents)


def test_every_seat_records_what_its_bot_used(bot_dir: Path, tmp_path: Path) -> None:
    result = play(bot_dir, randoms(bot_dir, 2), tmp_path)
    for seat in result.seats:
        assert seat.sandbox in sandbox.LEVELS and seat.transport == "zmq"
        assert seat.exit_code == 0 and seat.signal is None
        if seat.sandbox != "rlimits" and sandbox.probe().has("cgroup"):
            assert seat.cpu_ms is not None and seat.cpu_ms > 0
            assert seat.peak_memory_kb is not None and seat.peak_memory_kb > 1024
    data = read(tmp_path / "r.json")
    assert data["result"][0]["sandbox"] == result.seats[0].sandbox
