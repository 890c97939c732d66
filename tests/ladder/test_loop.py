"""The one ladder loop: typed jobs across the executor, never two rotations of an author's deal
at the same time, and the void limit in a following ladder (synthetic executors here; the same
with real workers and bots in test_follow.py and below)."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import json
import random
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.ladder import run as ladder
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.executor import Concurrency, Dispatcher, Executor, Job, LocalExecutor
from arena.ladder.follow import next_set
from arena.ladder.jobs import MatchJob, Returned
from arena.ladder.loop import MAX_VOIDS
from arena.ladder.store import Store
from tests.registry.helpers import arena as arena_cli
from tests.registry.helpers import bot_folder

from .helpers import SyntheticExecutor, bare_job, write_ladder


class Overlaps:
    """What a recording executor saw: the sets of the matches in flight, job by job."""

    def __init__(self) -> None:
        self.flying: dict[Any, list[str]] = {}  # future -> the set id of each of its matches
        self.together: Counter[str] = Counter()  # set id -> hand-outs while one was in flight
        self.batches: list[list[str]] = []  # every job's match ids, in hand-out order

    def submitted(self, future: Any, jobs: list[MatchJob], set_of: dict[str, str]) -> None:
        sets = [set_of[job.match_id] for job in jobs]
        in_flight = {s for others in self.flying.values() for s in others}
        self.together.update(s for s in set(sets) if s in in_flight)
        self.flying[future] = sets
        self.batches.append([job.match_id for job in jobs])

    def done(self, future: Any) -> None:
        del self.flying[future]


class Shuffled(Executor):
    """No processes: every job finishes at once, but the runner learns it in a seeded random
    order, so several jobs are in flight together and finish out of order."""

    slots = 4

    def __init__(self, set_of: dict[str, str], seed: int = 1) -> None:
        self.set_of = set_of
        self.random = random.Random(seed)
        self.seen = Overlaps()

    def submit(self, jobs: list[MatchJob]) -> Any:
        future: cf.Future = cf.Future()
        future.set_result([self.result(job) for job in jobs])
        self.seen.submitted(future, jobs, self.set_of)
        return future

    def result(self, job: MatchJob) -> Returned:
        return Returned({"duration_ms": 1.0, "seats": []})

    def wait(self, futures: list[Any]) -> list[Any]:
        return [self.random.choice(futures)]

    def outcome(self, future: Any) -> list[Returned]:
        self.seen.done(future)
        result: list[Returned] = future.result()
        return result

    def close(self, abort: bool = False) -> None:
        pass


class ShuffledLadder(Shuffled, SyntheticExecutor):
    """A :class:`Shuffled` executor whose matches have the synthetic executor's results."""

    def __init__(self, set_of: dict[str, str]) -> None:
        SyntheticExecutor.__init__(self)
        Shuffled.__init__(self, set_of)

    def result(self, job: MatchJob) -> Returned:
        return self._result(job)


@pytest.mark.parametrize("size", [1, 2])
def test_the_dispatcher_never_has_two_jobs_of_a_guarded_deal_in_flight(
    size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """20 deals of 3 rotations, every other one guarded; jobs of ``size`` matches."""
    monkeypatch.setattr(Dispatcher, "batch_size", lambda self: size)
    set_of = {f"d{d}r{r}": f"d{d}" for d in range(20) for r in range(3)}
    guarded = {f"d{d}" for d in range(0, 20, 2)}
    jobs = [Job(bare_job(m), deal=s if s in guarded else None) for m, s in set_of.items()]
    executor = Shuffled(set_of)
    played = [j.key for j, _ in Dispatcher(executor, jobs)]
    assert sorted(played) == sorted(set_of)  # each once
    together = executor.seen.together
    assert not guarded & set(together), "a guarded deal was in two jobs in flight at once"
    assert set(together) - guarded, "unguarded deals do fly together (the recorder sees it)"
    if size > 1:  # rotations of a deal may share one job, played one after another
        assert any(len({set_of[m] for m in b}) < len(b) for b in executor.seen.batches)


def _tiny(folder: Path) -> LadderConfig:
    """3 bots, 2 seats, 3 rounds: 9 sets; r1 declared an author's bot (as a registry bot is)."""
    cfg = load_ladder(write_ladder(folder))
    return dataclasses.replace(cfg, refs=(("r1", "r1"),))


def _results(cfg: LadderConfig) -> list[tuple[Any, ...]]:
    with sqlite3.connect(cfg.database) as conn:
        query = "SELECT match_id, seat, bot, score, rank FROM results ORDER BY 1, 2"
        return conn.execute(query).fetchall()


def test_the_loop_plays_the_rotations_of_a_table_with_an_authors_bot_one_after_another(
    tmp_path: Path,
) -> None:
    cfg = _tiny(tmp_path / "guarded")
    set_of = {s.match_id: s.set_id for s in ladder.schedule_of(cfg)}
    executor = ShuffledLadder(set_of)
    summary = ladder.run_ladder(cfg, executor)
    assert summary.played == len(set_of) == 18
    author = {s.set_id for s in ladder.schedule_of(cfg) if "r1" in s.table}
    together = executor.seen.together
    assert len(author) == 6 and not author & set(together)
    assert set(together) - author, "the organiser's own tables fly together"
    # the same results as a ladder with no author's bot: only the order of play differs
    plain = load_ladder(write_ladder(tmp_path / "plain"))
    ladder.run_ladder(plain, SyntheticExecutor())
    assert _results(cfg) == _results(plain)


class Recording(Executor):
    """Real local workers; records the sets of the matches in flight at every hand-out."""

    def __init__(self, set_of: dict[str, str]) -> None:
        self.inner = LocalExecutor(2)
        self.slots = self.inner.slots
        self.set_of = set_of
        self.seen = Overlaps()

    def submit(self, jobs: list[MatchJob]) -> Any:
        future = self.inner.submit(jobs)
        self.seen.submitted(future, jobs, self.set_of)
        return future

    def wait(self, futures: list[Any]) -> list[Any]:
        return self.inner.wait(futures)

    def outcome(self, future: Any) -> list[Returned]:
        self.seen.done(future)
        return self.inner.outcome(future)

    def close(self, abort: bool = False) -> None:
        self.inner.close(abort)


def test_a_real_ladder_never_plays_two_rotations_of_a_registry_bots_deal_at_once(
    tmp_path: Path,
) -> None:
    """A registry bot (an author's) and three of the organiser's, 2 seats, 2 rounds, on 2 real
    workers with real bot processes."""
    registry = tmp_path / "registry"
    out = arena_cli("bot", "submit", str(bot_folder(tmp_path / "alice")), "--check-games", "1",
                    "--registry", str(registry))  # fmt: skip
    assert out.returncode == 0, out.stderr
    path = write_ladder(tmp_path, bots=3, rounds=2, extra=f"registry = {json.dumps(str(registry))}")
    path.write_text(path.read_text() + '[[bots]]\nbot = "alice"\n')
    cfg = load_ladder(path, check_bots=True)
    assert cfg.refs == (("alice@1", "alice"),)
    schedule = ladder.schedule_of(cfg)
    set_of = {s.match_id: s.set_id for s in schedule}
    with Recording(set_of) as executor:
        summary = ladder.run_ladder(cfg, executor)
    assert summary.played == len(schedule) == 2 * 6 * 2
    authors = {s.set_id for s in schedule if "alice@1" in s.table}
    assert len(authors) == 2 * 3 and not authors & set(executor.seen.together)
    # The first four jobs go out before any result: the rotation 1 of alice's first set waits,
    # and the next sets' first rotations go in its place.
    first = [set_of[b[0]] for b in executor.seen.batches[:4]]
    assert len(set(first)) == 4 and first[0] == schedule[0].set_id
    assert executor.seen.batches[1] != [schedule[1].match_id]
    with sqlite3.connect(cfg.database) as conn:
        assert conn.execute("SELECT COUNT(*) FROM voids").fetchone()[0] == 0


def test_a_following_ladder_passes_over_a_match_that_keeps_voiding(tmp_path: Path) -> None:
    """Its set is left for the table's next one once its own voids reach MAX_VOIDS, and those
    voids are all it ever gets: a following ladder holds the same void limit as any run."""
    path = write_ladder(tmp_path, bots=3, rounds=1, extra="[follow]\npoll_s = 0.1")
    cfg = load_ladder(path, check_bots=True)
    store = Store.create(cfg.database, cfg.game.id)
    try:
        first = next_set(cfg, store)
    finally:
        store.close()
    stuck = first[1].match_id
    done: list[int] = []
    summary = ladder.run_ladder(
        cfg,
        SyntheticExecutor(void_always={stuck}),
        progress=lambda d, _total, _faults, _pace: done.append(d),
        stop=lambda: bool(done) and done[-1] >= 12,
    )
    assert summary.scheduled is None and summary.played >= 10
    assert [b.match_id for b in summary.blocked] == [stuck]
    with sqlite3.connect(cfg.database) as conn:
        voids = conn.execute("SELECT match_id, blame FROM voids").fetchall()
        stored = [r[0] for r in conn.execute("SELECT set_id FROM matches ORDER BY rowid")]
    assert voids == [(stuck, "match")] * MAX_VOIDS
    assert stored[0] == first[0].set_id and stored.count(first[0].set_id) == 1
    later = Counter(stored[1:])  # whole sets after it (the last one maybe cut by the stop)
    assert len(later) >= 5 and all(n == 2 for s, n in later.items() if s != stored[-1])


def test_a_job_crosses_to_a_worker_and_back_as_plain_data(tmp_path: Path) -> None:
    cfg = load_ladder(write_ladder(tmp_path, extra=f'replays = "{tmp_path}/replays"'))
    spec = ladder.schedule_of(cfg)[3]
    match = MatchJob.of(cfg, spec, bytes(32))
    plain = match.as_dict()
    assert json.loads(json.dumps(plain)) == plain  # nothing but plain data
    assert MatchJob.from_dict(plain) == match
    assert [b.name for b in match.bots] == list(spec.bots) and match.lane == spec.rotation
    assert match.replay == tmp_path / "replays" / f"{spec.match_id}.json.gz"
    played = SyntheticExecutor._play(match)
    for returned in (Returned(played), Returned(None, "worker: gone", worker_died=True)):
        assert Returned.from_dict(json.loads(json.dumps(returned.as_dict()))) == returned
    assert not Returned(None, "internal: x").host_void and Returned(None, "host: x").host_void


class Loaded(SyntheticExecutor):
    """Synthetic matches whose referees waited for a CPU ``share`` of each match; chosen ones
    come back void as ``load:`` once."""

    def __init__(self, share: float, load_once: set[str] | None = None) -> None:
        super().__init__()
        self.share, self.load_once = share, load_once or set()

    def _result(self, job: MatchJob) -> Returned:
        if job.match_id in self.load_once:
            self.load_once.discard(job.match_id)
            return Returned(None, "load: seat 0 (r1) was kept from running by this machine")
        result = self._play(job)
        result["duration_ms"] = 1000.0
        result["sched"] = {"wait_ms": 1000.0 * self.share}
        return Returned(result)


def test_a_load_void_is_played_again_blamed_on_nobody_and_the_run_goes_on(tmp_path: Path) -> None:
    cfg = load_ladder(write_ladder(tmp_path, bots=3, rounds=1), check_bots=True)
    first = ladder.schedule_of(cfg)[0].match_id
    summary = ladder.run_ladder(cfg, Loaded(0.0, load_once={first}))
    assert (summary.played, summary.failed, summary.retries) == (summary.scheduled, 0, 1)
    with sqlite3.connect(cfg.database) as conn:
        assert conn.execute("SELECT match_id, blame FROM voids").fetchall() == [(first, "load")]
        sched = conn.execute("SELECT sched FROM matches WHERE id = ?", (first,)).fetchone()[0]
    assert json.loads(sched) == {"wait_ms": 0.0}  # the referee's latency, stored
    store = Store.create(cfg.database, cfg.game.id)
    try:
        assert first not in store.match_voids()  # never towards MAX_VOIDS
    finally:
        store.close()


def test_the_dispatcher_keeps_fewer_jobs_in_flight_while_referees_wait_then_more() -> None:
    busy = Concurrency(4)
    for _ in range(2 * 4):  # four busy windows of 2 s of matches: down to one job, not below
        busy.observe(Loaded(0.5)._result(bare_job("a")))
    assert busy.limit == 1
    assert busy.shown() == "slowed: referees wait for a CPU, 1 of 4 jobs in flight"
    for _ in range(2 * Concurrency.CALM_WINDOWS):  # calm windows: one more at a time
        busy.observe(Loaded(0.01)._result(bare_job("d")))
    assert busy.limit == 2
    busy.observe(Returned(None, "load: seat 1 (x) was kept from running"))
    assert busy.limit == 1  # a load void at once
    for _ in range(6 * Concurrency.CALM_WINDOWS):
        busy.observe(Loaded(0.0)._result(bare_job("e")))
    assert busy.limit == 4 and busy.shown() == ""  # back to full speed, up to the slots


def test_a_busy_machine_slows_a_real_dispatch_down(tmp_path: Path) -> None:
    """With the referees waiting half of each match, the dispatcher soon holds one job."""
    jobs = [Job(bare_job(f"m{i}")) for i in range(40)]
    dispatcher = Dispatcher(Loaded(0.5), jobs)
    in_flight = []
    for _ in dispatcher:
        in_flight.append(dispatcher.concurrency.limit)
    assert in_flight[0] == 4 and in_flight[-1] == 1


class Counted(SyntheticExecutor):
    """Synthetic matches, counting the jobs handed out; chosen ones come back void."""

    def __init__(self, void_once: set[str] | None = None) -> None:
        super().__init__(void_once=void_once)
        self.submitted = 0

    def submit(self, jobs: list[MatchJob]) -> Any:
        self.submitted += 1
        return super().submit(jobs)


def test_a_worker_gets_its_next_job_before_the_runner_stores_its_last_results() -> None:
    """The slot a finished job frees is filled before its matches are stored, so the worker
    does not wait for the runner; after a void the runner decides first (it may stop)."""
    executor = Counted(void_once={"m5"})
    dispatcher = Dispatcher(executor, [Job(bare_job(f"m{i}")) for i in range(12)])
    seen = [(job.key, executor.submitted) for job, _ in dispatcher]
    assert seen[0][1] == executor.slots + 1  # the 5th job was handed out before the 1st was seen
    void = [key for key, _ in seen].index("m5")
    assert seen[void][1] == seen[void - 1][1]  # nothing more until the runner has seen the void
    assert sorted(key for key, _ in seen) == sorted(f"m{i}" for i in range(12))
