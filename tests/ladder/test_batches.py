"""Batched dispatch: several short matches in one job, with the same results as one a job.

Real ladders on real local workers, bots and SQLite files, with the batch size forced (the
``Dispatcher.batch_size`` hook): a ladder played in large batches stores exactly what one
played a match at a time stores; a worker SIGKILLed with a batch in flight loses no match,
plays none twice and blames no bot; a host failure inside a batch stops it, and the rest of
the batch is neither stored nor counted as a void. The sizing itself is checked on a
synthetic executor (no processes).
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import signal
import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena import sandbox
from arena.ladder import run as ladder
from arena.ladder.config import load_ladder
from arena.ladder.executor import (
    AHEAD,
    BATCH_MS,
    MOST_MATCHES,
    STEAL_JOBS,
    Dispatcher,
    Executor,
    Job,
    LocalExecutor,
    _recent,
    kept_bots,
    run_match,
)
from arena.ladder.jobs import MatchJob, Returned
from arena.ladder.loop import HostFailure
from tests.broken_hosts import taken_uids

from .helpers import bare_job, show_json, write_ladder

ROUNDS = 4
SCHEDULED = 3 * 2 * ROUNDS  # 3 tables (3 bots, 2 seats) x 2 rotations x 4 rounds


class Recording(LocalExecutor):
    """Real local workers that note how many matches each job held."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.sizes: list[int] = []

    def submit_to(self, jobs: list[MatchJob], home: int) -> Any:
        self.sizes.append(len(jobs))
        return super().submit_to(jobs, home)


def rows(db: Path, query: str) -> list[tuple]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute(query).fetchall()


def results(db: Path) -> list[tuple]:
    """Every stored seat result, by match and seat: what a match produced, not how it ran."""
    return rows(
        db,
        "SELECT match_id, seat, bot, score, rank, status FROM results ORDER BY match_id, seat",
    )


def run_batched(
    folder: Path, size: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, ladder.RunSummary, list[int]]:
    """The tiny ladder in ``folder`` on 2 workers, ``size`` matches a job at most."""
    cfg = load_ladder(write_ladder(folder, rounds=ROUNDS))
    monkeypatch.setattr(Dispatcher, "batch_size", lambda self: size)
    with Recording(2) as executor:
        summary = ladder.run_ladder(cfg, executor)
    return cfg.path, summary, executor.sizes


@pytest.fixture(scope="module")
def one_at_a_time(tmp_path_factory: pytest.TempPathFactory) -> dict:
    with pytest.MonkeyPatch.context() as monkeypatch:
        path, summary, sizes = run_batched(tmp_path_factory.mktemp("single"), 1, monkeypatch)
    assert summary.played == SCHEDULED and set(sizes) == {1}
    db = path.with_suffix(".db")
    return {"table": show_json(path), "results": results(db)}


def test_large_batches_store_exactly_what_single_matches_store(
    one_at_a_time: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, summary, sizes = run_batched(tmp_path, MOST_MATCHES, monkeypatch)
    assert (summary.played, summary.failed, summary.retries) == (SCHEDULED, 0, 0)
    # each worker gets its lane's 12 matches, a fair share of them per slot (2 each): 6 to
    # each, then 3 to each while the rest waits
    assert sizes[:4] == [6, 6, 3, 3] and sum(sizes) == SCHEDULED
    assert results(path.with_suffix(".db")) == one_at_a_time["results"]
    assert show_json(path) == one_at_a_time["table"]


def test_a_worker_killed_mid_batch_loses_no_match_and_blames_no_bot(
    one_at_a_time: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = load_ladder(write_ladder(tmp_path, rounds=ROUNDS))
    db = cfg.path.with_suffix(".db")
    monkeypatch.setattr(Dispatcher, "batch_size", lambda self: MOST_MATCHES)
    victims: list[int] = []

    def kill_a_worker(done: int, _total: int, _faults: int, _pace: str) -> None:
        """At the first stored match, SIGKILL the worker that played it: the batch it took
        next (queued beside it) is in flight, and so are the other worker's."""
        if done == 1:
            worker = rows(db, "SELECT worker FROM matches")[0][0]
            victims.append(int(worker.rpartition(":")[2]))
            os.kill(victims[0], signal.SIGKILL)

    with Recording(2) as executor:
        summary = ladder.run_ladder(cfg, executor, progress=kill_a_worker)
    assert victims and (summary.played, summary.failed) == (SCHEDULED, 0)
    voids = rows(db, "SELECT match_id, attempt, blame FROM voids ORDER BY 1")
    assert len(voids) >= 2 and {b for _, _, b in voids} == {"shared"}  # never a bot's
    assert len({m for m, _, _ in voids}) == len(voids)  # each lost match voided once...
    attempts = dict(rows(db, "SELECT id, attempts FROM matches"))
    assert all(attempts[m] == 2 for m, _, _ in voids)  # ...then played alone, once
    assert len(attempts) == SCHEDULED
    assert results(db) == one_at_a_time["results"]
    assert show_json(cfg.path) == one_at_a_time["table"]


def test_a_job_handed_out_after_a_worker_died_goes_to_a_fresh_pool(tmp_path: Path) -> None:
    """The runner may hand out a job after a worker died and before it saw any of that
    worker's results: the job must start on a fresh pool, not fail the run."""
    cfg = load_ladder(write_ladder(tmp_path, rounds=ROUNDS))
    jobs = [MatchJob.of(cfg, spec, bytes(32)) for spec in ladder.schedule_of(cfg)]
    with LocalExecutor(1) as executor:
        [first] = executor.outcome(executor.submit(jobs[:1]))
        lost = executor.submit(jobs[1:6])
        assert first.result is not None
        os.kill(int(first.result["worker"].rpartition(":")[2]), signal.SIGKILL)
        assert executor.wait([lost]) == [lost]  # the pool knows it is broken
        after = executor.submit(jobs[6:8])
        played = executor.outcome(after)
        voids = executor.outcome(lost)
    assert first.result is not None
    assert [r.result["seats"][0]["status"] for r in played if r.result] == ["ok", "ok"]
    assert first.result["worker"] not in {r.result["worker"] for r in played if r.result}
    assert len(voids) == 5 and all(v.worker_died for v in voids)


def test_jobs_carry_the_runners_level_and_a_worker_without_it_voids_the_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ``auto`` ladder's jobs name the level the runner settled on. A worker that cannot give
    it (here bwrap is not on its PATH) voids the match as the host's: it never plays it at a
    weaker level."""
    cfg = load_ladder(write_ladder(tmp_path, rounds=1))
    job = MatchJob.of(cfg, ladder.schedule_of(cfg)[0], bytes(32))
    assert cfg.sandbox is None and job.sandbox == sandbox.choose(None)
    if job.sandbox != "bwrap":
        pytest.skip(f"the strongest level here is {job.sandbox}, not bwrap")
    monkeypatch.setenv("PATH", str(tmp_path))
    sandbox.probe.cache_clear()  # this worker probes anew, with no bwrap to find
    try:
        returned = run_match(job.as_dict())
    finally:
        sandbox.probe.cache_clear()
        kept_bots().close()  # a worker's pool, made here by this test: its folder goes too
        kept_bots.cache_clear()
    assert returned.result is None and returned.host_void, returned
    assert "sandbox level 'bwrap' is not available here: bwrap: not installed" in str(
        returned.void
    ), returned


def test_a_host_failure_stops_its_batch_and_the_rest_is_not_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not sandbox.probe().has("uid") or sandbox.choose(None) == "rlimits":
        pytest.skip("no bot uids here")
    cfg = load_ladder(write_ladder(tmp_path, rounds=ROUNDS))
    db = cfg.path.with_suffix(".db")
    monkeypatch.setattr(Dispatcher, "batch_size", lambda self: MOST_MATCHES)
    with taken_uids(tmp_path, only_workers=True) as env:
        monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])  # read by the spawned workers
        with Recording(2) as executor, pytest.raises(HostFailure) as failure:
            ladder.run_ladder(cfg, executor)
    assert "no free bot uid" in str(failure.value)
    assert rows(db, "SELECT COUNT(*) FROM matches") == [(0,)]
    voids = rows(db, "SELECT blame FROM voids")
    assert executor.sizes[:4] == [6, 6, 3, 3] and len(executor.sizes) == 4  # then stopped
    assert [b for (b,) in voids] == ["host"] * 4  # each batch stopped at its first match


class Timed(Executor):
    """No processes: every match comes back at once, taking ``match_ms`` by its result."""

    slots = 4

    def __init__(self, match_ms: float) -> None:
        self.match_ms = match_ms
        self.sizes: list[int] = []

    def submit(self, jobs: list[MatchJob]) -> Any:
        self.sizes.append(len(jobs))
        future: cf.Future = cf.Future()
        future.set_result([Returned({"duration_ms": self.match_ms, "seats": []}) for _ in jobs])
        return future

    def wait(self, futures: list[Any]) -> list[Any]:
        return futures[:1]

    def outcome(self, future: Any) -> list[Returned]:
        return future.result()

    def close(self, abort: bool = False) -> None:
        pass


def jobs(count: int, solo: frozenset[int] = frozenset()) -> list[Job]:
    return [Job(bare_job(f"m{i}"), solo=i in solo) for i in range(count)]


# the time a match takes, and the size its batches reach
SIZES = [(0.1, MOST_MATCHES), (1.0, int(BATCH_MS)), (BATCH_MS / 10, 10), (BATCH_MS, 1),
         (60_000.0, 1)]  # fmt: skip


@pytest.mark.parametrize(("match_ms", "most"), SIZES)
def test_batches_hold_about_batch_ms_of_measured_matches(match_ms: float, most: int) -> None:
    executor = Timed(match_ms)
    played = [job.key for job, _ in Dispatcher(executor, jobs(1000))]
    assert played == [f"m{i}" for i in range(1000)]  # each once, in order here
    assert executor.sizes[:4] == [1, 1, 1, 1]  # nothing measured yet: one match a job
    assert max(executor.sizes) == most
    assert executor.sizes[-3:] == [1, 1, 1]  # near the end: a fair share per slot


def test_the_time_per_match_forgets_bot_starts_fast_and_one_long_match_slowly() -> None:
    """A lane's first matches start its kept bots (tens of ms each): once matches of 0.5 ms
    come, batches are full within a few matches; one long match among them does not bring
    them down to one match."""
    estimate = None
    for ms in (58.0, 48.0, 23.0, 18.0, 16.0):  # bot starts, as measured on 2 cores
        estimate = _recent(estimate, ms)
    sizes = []
    for _ in range(8):
        estimate = _recent(estimate, 0.5)
        sizes.append(min(MOST_MATCHES, int(BATCH_MS / estimate)))
    assert sizes[-1] == MOST_MATCHES and sizes.index(MOST_MATCHES) <= 7
    assert estimate is not None and estimate < 1.0
    after_long = _recent(estimate, 40.0)
    assert min(MOST_MATCHES, int(BATCH_MS / after_long)) >= 8  # not one match a job


def test_jobs_are_made_as_the_queues_run_low_not_all_before_the_first() -> None:
    """A long ladder's first match starts without every match made into a job first."""
    made: list[int] = []

    def source() -> Iterator[Job]:
        for i in range(10_000):
            made.append(i)
            yield Job(bare_job(f"m{i}"))

    dispatcher = Dispatcher(Timed(1.0), source())
    played = iter(dispatcher)
    assert next(played)[0].key == "m0"
    assert len(made) < 2 * AHEAD * MOST_MATCHES  # what waits, and the jobs in flight
    assert [job.key for job, _ in played] == [f"m{i}" for i in range(1, 10_000)]


def test_a_solo_job_runs_alone_and_cuts_a_batch() -> None:
    executor = Timed(1.0)
    dispatcher = Dispatcher(executor, jobs(40, solo=frozenset({30})))
    seen = []
    for job, _ in dispatcher:
        seen.append(job.key)
        if job.key == "m5" and job.attempt == 1:
            dispatcher.again(job, solo=True)
    assert sorted(seen) == sorted([f"m{i}" for i in range(40)] + ["m5"])
    running_alone = [i for i, n in enumerate(executor.sizes) if n == 1]
    assert len(running_alone) >= 2  # m5's retry and m30, each a job of its own
    assert seen.count("m30") == 1


class Homed(Timed):
    """Two workers that keep bots of their own: notes each job's worker, its matches' lanes,
    and whether that worker's own queue was empty when it got them (it took another's)."""

    homes = 2

    def __init__(self, match_ms: float) -> None:
        super().__init__(match_ms)
        self.dispatcher: Dispatcher | None = None
        self.handed: list[tuple[int, set[int], bool]] = []
        self.in_flight: list[int] = []

    def submit_to(self, jobs: list[MatchJob], home: int) -> Any:
        assert self.dispatcher is not None
        own_left = bool(self.dispatcher.queues[home])
        self.handed.append((home, {job.lane for job in jobs}, own_left))
        self.in_flight.append(sum(h == home for h in self.dispatcher.home_of.values()))
        return self.submit(jobs)


def test_each_worker_plays_its_own_lanes_until_it_has_none_left() -> None:
    """Matches go to the worker of their lane, so each kept process is started by one worker;
    a worker takes another's matches only once its own are all handed out (the run's end),
    and neither has more than its share of the slots in flight."""
    executor = Homed(1.0)
    dispatcher = Dispatcher(executor, [Job(replace(bare_job(f"m{i}"), lane=i % 2))
                                       for i in range(1000)])  # fmt: skip
    executor.dispatcher = dispatcher
    played = [job.key for job, _ in dispatcher]
    assert sorted(played) == sorted(f"m{i}" for i in range(1000))
    assert all(len(lanes) == 1 for _, lanes, _ in executor.handed)  # one lane a job
    taken = [(home, own_left) for home, lanes, own_left in executor.handed if lanes != {home}]
    assert not any(own_left for _, own_left in taken)  # another's only with none of its own
    assert len(taken) <= 2 and len(executor.handed) > 20  # that is, near the end
    assert max(executor.in_flight) < executor.slots // 2  # each worker: 2 slots


def test_a_slot_short_of_one_per_worker_goes_to_the_worker_with_most_left() -> None:
    """Jobs in flight cut to an odd number (a busy machine): the slot one worker gets more
    goes to the worker with the most of its own left, not always to the first, so the lanes
    finish together rather than one worker ending idle while the other plays on."""
    executor = Homed(1.0)
    lanes = [1] * 300 + [0] * 100  # the second worker's lane is the longer
    dispatcher = Dispatcher(executor, [Job(replace(bare_job(f"m{i}"), lane=lane))
                                       for i, lane in enumerate(lanes)])  # fmt: skip
    dispatcher.concurrency.limit = 3
    executor.dispatcher = dispatcher
    dispatcher._fill()
    first = Counter(home for home, _, _ in executor.handed)
    assert first == {1: 2, 0: 1}


@pytest.mark.parametrize(("left", "taken"), [(2 * 10 - 1, False), (4 * 10, True)])
def test_a_worker_takes_another_lane_only_when_it_pays_for_starting_its_bots(
    left: int, taken: bool
) -> None:
    """A worker whose own lane is done takes matches of another lane only when they make
    ``STEAL_JOBS`` full jobs or more: fewer, and their own worker plays them before this one
    has started that lane's kept bots."""
    executor = Homed(BATCH_MS / 10)
    dispatcher = Dispatcher(executor, [Job(replace(bare_job(f"m{i}"), lane=1))
                                       for i in range(left)])  # fmt: skip
    dispatcher.match_ms = BATCH_MS / 10  # measured: 10 matches a job
    assert STEAL_JOBS == 2 and dispatcher._top_up() and not dispatcher.queues[0]
    assert bool(dispatcher._next_batch(0)) == taken
    assert bool(dispatcher._next_batch(1))  # its own worker takes them either way
