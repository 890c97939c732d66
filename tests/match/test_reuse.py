"""Reusable bot processes (hello.reuse, arena.match.pool) through the real referee.

Real subprocess bots in the sandbox, real sockets. A process is recognised by what it prints
at each welcome (``match K process X``, see tests/bots/protocol/reusable.py): its seat's log is
kept with the process, so the last line of a seat's log names the process that played and how
many matches it has played.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from arena.games import load_game
from arena.match.bots import BotSpec, parse_bot
from arena.match.pool import BotPool
from arena.match.referee import play_match
from arena.match.replay import read, strip_timing, verify
from arena.match.results import Limits, MatchResult
from arena.sandbox import workdirs
from tests.ladder.helpers import ARENA, arena, stored_count, write_ladder
from tests.procs import leftovers

ROOT = Path(__file__).resolve().parents[2]
GAME = load_game("happy_mochi")
SHORT = {"max_rounds": 1, "max_turns_per_round": 2}
LIMITS = Limits(init_ms=5000, move_ms=500, bank_ms=1000)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A private copy of the bots, so that leftover processes can be found by their path."""
    here = tmp_path / f"reuse-{uuid.uuid4().hex[:8]}"
    shutil.copytree(ROOT / "tests/bots/protocol", here, ignore=shutil.ignore_patterns("__py*"))
    shutil.copy(ROOT / "sample_bots/python/random_bot.py", here / "random_bot.py")
    return here


@pytest.fixture
def pool(folder: Path) -> Iterator[BotPool]:
    kept = BotPool()
    yield kept
    kept.close()
    assert leftovers(folder) == [], "closing the pool kills every kept process"


def reusable(
    folder: Path, name: str, mode: str = "fine", number: int = 0, transport: str = "zmq"
) -> BotSpec:
    return parse_bot(f"{name}={transport}:python {folder}/reusable.py {mode} {number}")


TRANSPORTS = pytest.mark.parametrize("transport", ["zmq", "pipe"])


def played(result: MatchResult, seat: int) -> tuple[int, str]:
    """(matches its process has played, the process's own id) from the seat's log."""
    lines = [line.split() for line in result.seats[seat].log_tail.splitlines()]
    counts = [words for words in lines if words[:1] == ["match"]]
    assert counts, result.seats[seat].log_tail
    return int(counts[-1][1]), counts[-1][3]


def series(bots: list[BotSpec], pool: BotPool, count: int) -> list[MatchResult]:
    return [
        play_match(GAME, bots, seed, SHORT, LIMITS, pool=pool, ask_forced=True)
        for seed in range(count)
    ]


def assert_clean(result: MatchResult) -> None:
    assert result.void is None, result.void
    for seat in result.seats:
        assert (seat.status, seat.incidents) == ("ok", []), (seat.detail, seat.log_tail)


@TRANSPORTS
def test_many_matches_through_one_process(folder: Path, pool: BotPool, transport: str) -> None:
    bots = [reusable(folder, "a", transport=transport), reusable(folder, "b", transport=transport)]
    results = series(bots, pool, 8)
    for number, result in enumerate(results, 1):
        assert_clean(result)
        assert result.seats[0].decisions + result.seats[1].decisions > 0
        assert [played(result, seat)[0] for seat in (0, 1)] == [number, number]
    assert len({played(r, 0)[1] for r in results}) == 1  # one process for seat a throughout
    assert len(pool) == 2


@TRANSPORTS
def test_only_a_match_with_a_process_that_is_not_kept_makes_a_match_folder(
    folder: Path, pool: BotPool, transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that may be kept has its socket and log in the pool's folder, so a match of
    such processes makes no folder of its own; one that may not be kept gets a folder, removed
    with the match."""
    made: list[Path] = []
    real = workdirs.match_directory

    @contextlib.contextmanager
    def counted() -> Iterator[Path]:
        with real() as path:
            made.append(path)
            yield path

    monkeypatch.setattr(workdirs, "match_directory", counted)
    bots = [reusable(folder, "a", transport=transport), reusable(folder, "b", transport=transport)]
    for result in series(bots, pool, 2):
        assert_clean(result)
    assert made == []
    bots[1] = replace(bots[1], reuse=False)
    assert_clean(play_match(GAME, bots, 5, SHORT, LIMITS, pool=pool, ask_forced=True))
    assert len(made) == 1 and not made[0].exists()


@pytest.mark.parametrize("transport", ["zmq", "pipe", "stdio"])
def test_a_reused_process_plays_the_same_games_as_fresh_ones(
    folder: Path, pool: BotPool, tmp_path: Path, transport: str
) -> None:
    """Same seeds, same games: the random bot reseeds at every welcome; replays verify."""
    bots = [
        parse_bot(f"r{i}={transport}:python {folder}/random_bot.py --seed {i}") for i in range(2)
    ]
    for seed in range(4):
        paths = {kind: tmp_path / f"{kind}-{seed}.json" for kind in ("fresh", "kept")}
        play_match(GAME, bots, seed, SHORT, replay_path=paths["fresh"])
        play_match(GAME, bots, seed, SHORT, replay_path=paths["kept"], pool=pool)
        fresh, kept = (strip_timing(read(paths[k])) for k in ("fresh", "kept"))
        assert [d["choice"] for d in kept["decisions"]] == [d["choice"] for d in fresh["decisions"]]
        assert kept["outcome"] == fresh["outcome"]
        assert verify(read(paths["kept"])).ok
    assert len(pool) == 2


@TRANSPORTS
def test_a_crash_in_the_third_match_is_ruled_and_a_fresh_process_plays_the_fourth(
    folder: Path, pool: BotPool, transport: str
) -> None:
    bots = [
        reusable(folder, "crashy", "crash", 3, transport),
        reusable(folder, "steady", transport=transport),
    ]
    results = series(bots, pool, 5)
    for result in results[:2]:
        assert_clean(result)
    third = results[2].seats
    assert third[0].status == "crashed" and third[0].exit_code == 7, third[0].detail
    assert (third[1].status, third[1].incidents) == ("ok", [])
    assert results[2].ranks == [1, 0]
    first = played(results[0], 0)[1]
    assert played(results[2], 0) == (3, first)
    for number, result in enumerate(results[3:], 1):  # restarted: a new process, counting anew
        assert_clean(result)
        count, pid = played(result, 0)
        assert (count, pid != first) == (number, True)
    assert [played(r, 1)[0] for r in results] == [1, 2, 3, 4, 5]  # the other seat was unaffected


@TRANSPORTS
def test_a_bot_that_refuses_a_second_welcome_forfeits_that_match_only(
    folder: Path, pool: BotPool, transport: str
) -> None:
    bots = [
        reusable(folder, "once", "refuse", 2, transport),
        reusable(folder, "steady", transport=transport),
    ]
    first, second, third = series(bots, pool, 3)
    assert_clean(first)
    seat = second.seats[0]
    assert seat.status == "crashed" and "during the match" in seat.detail, seat.detail
    assert second.seats[1].status == "ok" and second.ranks == [1, 0]
    assert_clean(third)
    assert played(third, 0)[0] == 1 and played(third, 0)[1] != played(first, 0)[1]


@TRANSPORTS
def test_a_bot_that_speaks_between_matches_is_replaced_or_ruled_and_spoils_nothing(
    folder: Path, pool: BotPool, transport: str
) -> None:
    """It sends a stray action after its game_over. Seen before it is stopped (kept processes
    wait stopped), it is replaced; sent once it runs again, it is read in its next match and
    ruled there as any stray message, on its own seat. The other seat never notices."""
    bots = [
        reusable(folder, "chatty", "chatter", 1, transport),
        reusable(folder, "steady", transport=transport),
    ]
    first, second = series(bots, pool, 2)
    assert_clean(first)
    chatty = second.seats[0]
    if played(second, 0)[0] == 1:  # replaced: a fresh process, clean
        assert (chatty.status, chatty.incidents) == ("ok", []), chatty.incidents
        assert played(second, 0)[1] != played(first, 0)[1]
    else:
        assert (chatty.status, chatty.warnings) == ("ok", {"unexpected": 1}), chatty.incidents
    assert (second.seats[1].status, second.seats[1].incidents) == ("ok", [])
    assert played(second, 1)[0] == 2


def test_the_organiser_can_turn_reuse_off_for_one_bot(folder: Path, pool: BotPool) -> None:
    bots = [replace(reusable(folder, "fresh"), reuse=False), reusable(folder, "kept")]
    results = series(bots, pool, 3)
    for result in results:
        assert_clean(result)
    assert [played(r, 0)[0] for r in results] == [1, 1, 1]  # told no reuse: it leaves
    assert len({played(r, 0)[1] for r in results}) == 3
    assert [played(r, 1)[0] for r in results] == [1, 2, 3]
    assert len(pool) == 1


def test_without_a_pool_a_bot_that_offers_reuse_plays_one_match(folder: Path) -> None:
    bots = [reusable(folder, "a"), reusable(folder, "b")]
    result = play_match(GAME, bots, 0, SHORT, LIMITS)
    assert_clean(result)
    assert leftovers(folder) == []


def test_a_ladder_killed_mid_run_leaves_no_kept_process_and_resumes(tmp_path: Path) -> None:
    """SIGKILL of the runner while its worker keeps bot processes: its worker takes every kept
    process along, and the same command plays the rest."""
    path = write_ladder(tmp_path, rounds=4, own_bot_copy=True)  # 3 tables x 2 rotations x 4
    bots = path.parent / "bots"
    runner = subprocess.Popen(
        [ARENA, "ladder", "run", str(path), "--workers", "1", "--quiet"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    db = path.with_suffix(".db")
    deadline = time.monotonic() + 120
    while stored_count(db) < 8 and runner.poll() is None:  # past the first uses of each lane
        assert time.monotonic() < deadline, "the ladder stored too few matches"
        time.sleep(0.02)
    assert leftovers(bots), "kept processes wait between matches"
    runner.kill()
    runner.wait()
    deadline = time.monotonic() + 15
    while leftovers(bots) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert leftovers(bots) == [], "no kept process may outlive its runner"
    stored = stored_count(db)
    assert 8 <= stored < 24, "the run must be stopped half-way"
    out = arena("ladder", "run", str(path), "--workers", "1", "--quiet")
    assert out.returncode == 0, out.stderr
    assert stored_count(db) == 24


def test_a_worker_keeps_a_bounded_number_of_idle_processes(
    folder: Path, pool: BotPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bots come and go in a following ladder: the one idle longest is let go."""
    monkeypatch.setattr("arena.match.pool.MAX_IDLE", 2)
    first = [reusable(folder, "a"), reusable(folder, "b")]
    second = [reusable(folder, "c"), reusable(folder, "b")]
    series(first, pool, 1)
    (result,) = series(second, pool, 1)
    assert_clean(result)
    assert len(pool) == 2  # b and c kept; a, idle longest, was killed
    assert played(result, 1)[0] == 2
    again = play_match(GAME, first, 0, SHORT, LIMITS, pool=pool, ask_forced=True)
    assert_clean(again)
    assert played(again, 0)[0] == 1  # a started afresh


# -- kept processes obey the same rules as fresh ones (issue 24 item 2) ----------------------


def kept(folder: Path, name: str, mode: str, number: int, amount: int = 0) -> BotSpec:
    return parse_bot(f"{name}=python {folder}/kept.py {mode} {number} {amount or ''}".rstrip())


def children(result: MatchResult, seat: int) -> int:
    """How many processes it left earlier were alive at its welcome (``children C``)."""
    lines = [line.split() for line in result.seats[seat].log_tail.splitlines()]
    return int([words for words in lines if words[:1] == ["match"]][-1][5])


@pytest.mark.parametrize(
    ("mode", "status", "detail"),
    [
        ("connections", "too_many_connections", "more than 4 connections"),
        ("messages", "flood", "more than 32 messages since its last turn"),
    ],
)
def test_a_kept_process_is_held_to_every_per_match_limit_in_its_third_match(
    folder: Path, pool: BotPool, mode: str, status: str, detail: str
) -> None:
    bots = [kept(folder, "sly", mode, 3), reusable(folder, "steady")]
    results = series(bots, pool, 4)
    for result in results[:2]:
        assert_clean(result)
    third = results[2].seats[0]
    assert (third.status, played(results[2], 0)) == (status, (3, played(results[0], 0)[1]))
    assert detail in third.detail
    assert results[2].seats[1].status == "ok" and results[2].ranks == [1, 0]
    assert played(results[3], 0)[0] == 1  # a fresh process plays on


def test_extra_connections_allowed_in_a_match_are_not_carried_into_the_next(
    folder: Path, pool: BotPool
) -> None:
    """Three silent extra connections are within a match's cap, but a process holding them is
    not kept: the next match starts with a fresh process."""
    bots = [kept(folder, "hoarder", "connections", 1, 3), reusable(folder, "steady")]
    first, second = series(bots, pool, 2)
    assert_clean(first)
    assert_clean(second)
    assert played(second, 0)[0] == 1 and played(second, 1)[0] == 2


@pytest.mark.parametrize("match", [1, 2])
def test_children_left_by_a_kept_process_do_not_live_into_its_next_match(
    folder: Path, pool: BotPool, match: int
) -> None:
    """It forks in its first match, or in its second, when the pool already knows which
    processes are the bot itself (and reads nothing more of them while they stay the same):
    found and killed all the same."""
    bots = [kept(folder, "forker", "fork", match), reusable(folder, "steady")]
    results = series(bots, pool, 3)
    assert "left children" in results[match - 1].seats[0].log_tail  # a child and a daemon
    for result in results:
        assert_clean(result)
    assert [played(r, 0)[0] for r in results] == [1, 2, 3]  # the same process, kept
    assert [children(r, 0) for r in results] == [0, 0, 0]
    pool.close()
    assert leftovers(folder) == []


def test_idle_processes_are_bounded_by_the_memory_they_hold(
    folder: Path, pool: BotPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("arena.match.pool.IDLE_MEMORY_MB", 100)
    roomy = Limits(init_ms=5000, move_ms=5000, bank_ms=5000)
    bots = [kept(folder, "hog", "hog", 1, 150), reusable(folder, "steady")]
    first, second = (
        play_match(GAME, bots, seed, SHORT, roomy, pool=pool, ask_forced=True) for seed in (0, 1)
    )
    assert_clean(first)
    assert len(pool) == 1 and pool.memory_kb() < 100 << 10  # the hog went, the small one stays
    assert_clean(second)
    assert played(second, 0)[0] == 1 and played(second, 1)[0] == 2


def test_a_kept_process_flooding_its_idle_socket_costs_the_others_nothing(
    folder: Path, pool: BotPool
) -> None:
    """It floods its socket with connections as soon as its match is over (it is stopped
    while it waits, so only until then): the worker's other matches play on time, and its own
    next match has a fresh process or rules it, as it would a fresh one."""
    flooder = [kept(folder, "flooder", "flood", 1), reusable(folder, "steady")]
    others = [reusable(folder, "a"), reusable(folder, "b")]
    assert_clean(play_match(GAME, flooder, 0, SHORT, LIMITS, pool=pool, ask_forced=True))
    for seed in range(3):
        result = play_match(GAME, others, seed, SHORT, LIMITS, pool=pool, ask_forced=True, lane=1)
        assert_clean(result)
    again = play_match(GAME, flooder, 1, SHORT, LIMITS, pool=pool, ask_forced=True)
    seat = again.seats[0]
    fresh = played(again, 0)[0] == 1
    assert fresh or seat.status == "too_many_connections", (seat.status, seat.detail)
    assert again.seats[1].status == "ok"


def test_a_ladder_with_reuse_holds_kept_hostile_bots_to_the_rules_and_finishes(
    tmp_path: Path,
) -> None:
    """A real ladder, one worker, reuse on: a bot that opens 6 connections in its process's
    third match and one that floods its idle socket after every match beside a random bot.
    The run ends, nothing is void, the random bot is never hurt, the connections are ruled."""
    folder = tmp_path / "ladder"
    bots = folder / "bots"
    shutil.copytree(ROOT / "tests/bots/protocol", bots, ignore=shutil.ignore_patterns("__py*"))
    shutil.copy(ROOT / "sample_bots/python/random_bot.py", bots / "random_bot.py")
    for path in (tmp_path, folder, bots, *bots.iterdir()):
        path.chmod(0o755)
    commands = {
        "sly": f"python {bots}/kept.py connections 3",
        "flooder": f"python {bots}/kept.py flood 1",
        "honest": f"python {bots}/random_bot.py --seed 1",
    }
    lines = ['name = "kept"', 'game = "happy_mochi"', "seats = 2", "rounds = 3", "seed = 7"]
    lines += ["[options]", *(f"{k} = {v}" for k, v in SHORT.items())]
    for name, command in commands.items():
        lines += ["[[bots]]", f'name = "{name}"', f'command = "{command}"']
    path = folder / "kept.toml"
    path.write_text("\n".join(lines) + "\n")
    out = arena("ladder", "run", str(path), "--workers", "1", "--quiet", timeout=240)
    assert out.returncode == 0, out.stderr
    db = path.with_suffix(".db")
    assert stored_count(db) == 18  # 3 pairs x 2 rotations x 3 rounds
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT bot, status FROM results").fetchall()
        voids = conn.execute("SELECT COUNT(*) FROM voids").fetchone()[0]
    assert voids == 0
    statuses = {name: [s for bot, s in rows if bot == name] for name in commands}
    assert set(statuses["honest"]) == {"ok"}
    assert "too_many_connections" in statuses["sly"]
    assert set(statuses["flooder"]) <= {"ok", "too_many_connections"}
    assert leftovers(bots) == []
