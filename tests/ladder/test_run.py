"""Real runs: subprocess bots, SQLite files and the `arena ladder` command.

One uninterrupted 2-worker run of a tiny ladder is the reference; every other way of running
the same file (1 worker, killed and resumed, interrupted and resumed, a Dask cluster, with void
matches retried) must end with exactly the same table.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import json
import os
import re
import signal
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from arena.ladder import run as ladder
from arena.ladder.config import load_ladder
from arena.ladder.executor import Executor, LocalExecutor
from arena.ladder.jobs import MatchJob, Returned
from arena.ladder.store import Store

from .helpers import ARENA, ROOT, arena, show_json, stored_count, write_ladder

SCHEDULED = 3 * 2 * 3  # 3 tables (3 bots, 2 seats) x 2 rotations x 3 rounds


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = write_ladder(tmp_path_factory.mktemp("reference"))
    out = arena("ladder", "run", str(path), "--workers", "2", "--quiet")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].split()[:3] == ["#", "bot", "mu-3σ"]
    table = show_json(path)
    assert table["matches_stored"] == table["matches_scheduled"] == SCHEDULED
    return {"path": path, "table": table}


def test_one_worker_gives_the_identical_table(reference: dict, tmp_path: Path) -> None:
    path = write_ladder(tmp_path)
    out = arena("ladder", "run", str(path), "--workers", "1", "--quiet", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == reference["table"]


def _processes(tag: str, folder: Path) -> list[str]:
    """Live processes of one ladder run: the runner's workers carry ``tag`` in their
    environment, its bots run a script inside ``folder``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
            environ = (proc / "environ").read_bytes()
        except OSError:
            continue
        if cmdline and (str(folder).encode() in cmdline or tag.encode() in environ):
            found.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return found


def _gone(tag: str, folder: Path, within_s: float = 15) -> list[str]:
    deadline = time.monotonic() + within_s
    while (left := _processes(tag, folder)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def _slow_down(script: Path) -> None:
    """The ladder's bot copy takes 30 ms a decision (choices unchanged): its matches then last
    long enough that a signal sent once 3 are stored always lands before the last is stored,
    however fast the host plays them and however many a worker stores at once."""
    text = script.read_text().replace("import random\n", "import random\nimport time\n", 1)
    choose = "    def choose(self, turn: Turn) -> int:\n"
    assert choose in text
    script.write_text(text.replace(choose, choose + "        time.sleep(0.03)\n", 1))


def _interrupt(path: Path, sig: int) -> tuple[int, str]:
    """Start a 2-worker run, send ``sig`` once a few matches are stored; its exit status and
    everything it and its helpers (the resource tracker) printed on stderr."""
    _slow_down(path.parent / "bots" / "random_bot.py")
    tag = uuid.uuid4().hex
    env = {**os.environ, "ARENA_TEST_RUN": tag}
    runner = subprocess.Popen(
        [ARENA, "ladder", "run", str(path), "--workers", "2", "--quiet"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As in a terminal: a test runner started in the background may ignore SIGINT.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    db = path.with_suffix(".db")
    deadline = time.monotonic() + 120
    while stored_count(db) < 3 and time.monotonic() < deadline and runner.poll() is None:
        time.sleep(0.02)
    runner.send_signal(sig)
    _, err = runner.communicate(timeout=60)
    stored = stored_count(db)
    assert 3 <= stored < SCHEDULED, "the run must be stopped half-way"
    assert _gone(tag, path.parent) == [], "no worker or bot may outlive the runner"
    return runner.returncode, err


def _check_complete(path: Path, reference: dict) -> None:
    out = arena("ladder", "run", str(path), "--workers", "2", "--quiet")
    assert out.returncode == 0, out.stderr
    with sqlite3.connect(path.with_suffix(".db")) as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM matches")]
        seats = conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    assert len(ids) == len(set(ids)) == SCHEDULED
    assert seats == 2 * SCHEDULED
    assert show_json(path) == reference["table"]


def test_sigkill_mid_run_then_resume_matches_the_uninterrupted_table(
    reference: dict, tmp_path: Path
) -> None:
    path = write_ladder(tmp_path, own_bot_copy=True)
    code, err = _interrupt(path, signal.SIGKILL)
    assert code == -signal.SIGKILL
    assert "leaked" not in err, err  # the resource tracker cleans up without a warning
    _check_complete(path, reference)


def test_ctrl_c_stops_cleanly_and_resumes(reference: dict, tmp_path: Path) -> None:
    path = write_ladder(tmp_path, own_bot_copy=True)
    code, err = _interrupt(path, signal.SIGINT)
    assert code == 130
    last = err.strip().splitlines()[-1]
    assert re.fullmatch(
        rf"arena: error: interrupted: \d+ of {SCHEDULED} matches stored \(those in flight are "
        r"lost\); "
        r"run the same command again to resume",
        last,
    ), err  # all of it: a helper process may have printed after the runner
    _check_complete(path, reference)


def test_dask_cluster_gives_the_same_table(reference: dict, tmp_path: Path) -> None:
    from distributed import LocalCluster

    path = write_ladder(tmp_path)
    with LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        out = arena("ladder", "run", str(path), "--cluster", address, "--quiet")
    assert out.returncode == 0, out.stderr
    assert show_json(path) == reference["table"]
    with sqlite3.connect(path.with_suffix(".db")) as conn:
        workers = {r[0] for r in conn.execute("SELECT worker FROM matches")}
    assert len(workers) == 2  # both Dask workers played


class _Flaky(Executor):
    """Real local workers, except that chosen matches come back void (their worker fails)."""

    def __init__(self, once: set[str], always: set[str]) -> None:
        self.inner = LocalExecutor(2)
        self.slots = self.inner.slots
        self.once = once
        self.always = always
        self.submitted: list[MatchJob] = []

    def submit(self, jobs: list[MatchJob]) -> Any:
        self.submitted += jobs
        return self.inner.submit([self._spoiled(job) for job in jobs])

    def _spoiled(self, job: MatchJob) -> MatchJob:
        """``job``, or for a chosen match one that its worker cannot play (no such game)."""
        if job.match_id in self.always or job.match_id in self.once:
            self.once.discard(job.match_id)
            return dataclasses.replace(job, game="injected-failure")
        return job

    def wait(self, futures: list[Any]) -> list[Any]:
        return list(cf.wait(futures, return_when=cf.FIRST_COMPLETED).done)

    def outcome(self, future: Any) -> list[Returned]:
        return self.inner.outcome(future)

    def close(self, abort: bool = False) -> None:
        self.inner.close(abort)


def test_void_matches_are_retried_and_never_counted(reference: dict, tmp_path: Path) -> None:
    cfg = load_ladder(write_ladder(tmp_path))
    schedule = ladder.schedule_of(cfg)
    once = {schedule[1].match_id, schedule[7].match_id}
    always = {schedule[4].match_id}
    with _Flaky(set(once), always) as executor:
        summary = ladder.run_ladder(cfg, executor)
    assert (summary.played, summary.failed) == (SCHEDULED - 1, 1)
    assert summary.retries == len(once) + 2 * len(always)
    with sqlite3.connect(cfg.database) as conn:
        voids = conn.execute("SELECT match_id, attempt FROM voids ORDER BY 1, 2").fetchall()
        stored = {r[0] for r in conn.execute("SELECT id FROM matches")}
        attempts = dict(conn.execute("SELECT id, attempts FROM matches").fetchall())
    assert sorted(voids) == sorted(
        [(m, 1) for m in once] + [(m, a) for m in always for a in (1, 2, 3)]
    )
    assert always.isdisjoint(stored) and all(attempts[m] == 2 for m in once)
    out = arena("ladder", "run", str(cfg.path), "--quiet")  # the void match is played now
    assert out.returncode == 0, out.stderr
    assert show_json(cfg.path) == reference["table"]


def test_adding_a_bot_plays_only_its_tables(tmp_path: Path) -> None:
    cfg = load_ladder(write_ladder(tmp_path, rounds=1))
    with LocalExecutor(2) as executor:
        first = ladder.run_ladder(cfg, executor)
    assert first.played == 6
    before = json.loads(arena("ladder", "matches", str(cfg.path), "--format", "json").stdout)
    bigger = load_ladder(write_ladder(tmp_path, bots=4, rounds=1))
    with _Flaky(set(), set()) as executor:
        second = ladder.run_ladder(bigger, executor)
    assert (second.already, second.played) == (6, 6)
    assert all("r4" in [b.name for b in job.bots] for job in executor.submitted)
    after = json.loads(arena("ladder", "matches", str(cfg.path), "--format", "json").stdout)
    kept = {m["id"]: m for m in after}
    for match in before:  # stored results untouched; only schedule positions moved
        assert kept[match["id"]] | {"position": None} == match | {"position": None}


def test_store_and_reports(reference: dict) -> None:
    path: Path = reference["path"]
    db = path.with_suffix(".db")
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        history = conn.execute("SELECT COUNT(*) FROM rating_history").fetchone()[0]
        ratings = dict(conn.execute("SELECT bot, conservative FROM ratings").fetchall())
    assert history == 2 * SCHEDULED
    table = reference["table"]
    assert {b["bot"]: b["conservative"] for b in table["bots"]} == pytest.approx(ratings)
    assert [b["conservative"] for b in table["bots"]] == sorted(
        (b["conservative"] for b in table["bots"]), reverse=True
    )
    assert all(b["games"] == 2 * 2 * 3 and b["sets"] == 2 * 3 for b in table["bots"])
    rerated = arena("ladder", "rerate", str(path), "--format", "json")
    assert rerated.returncode == 0 and json.loads(rerated.stdout) == table
    md = arena("ladder", "show", str(path), "--format", "markdown").stdout
    assert md.splitlines()[0].startswith("|")
    csv_out = arena("ladder", "show", str(path), "--format", "csv").stdout.splitlines()
    assert csv_out[0].startswith("bot,conservative,mu,sigma") and len(csv_out) == 4
    listing = json.loads(arena("ladder", "matches", str(path), "--format", "json").stdout)
    assert [m["position"] for m in listing] == list(range(SCHEDULED))
    only = arena("ladder", "matches", str(path), "--bot", "r1").stdout.splitlines()
    assert len(only) == 2 + 2 * 2 * 3
    h2h = json.loads(arena("ladder", "h2h", str(path), "--format", "json").stdout)
    for a in ("r1", "r2", "r3"):
        for b in ("r1", "r2", "r3"):
            if a != b:
                assert h2h[a][b]["met"] == 2 * 3
                assert h2h[a][b]["ahead"] + h2h[b][a]["ahead"] <= 6
    cmp = json.loads(arena("ladder", "compare", str(path), "r1", "r2", "--format", "json").stdout)
    assert cmp["sets"] == 3 and cmp["matches"] == 6
    assert cmp["a_ahead"] == h2h["r1"]["r2"]["ahead"]
    assert cmp["ci"][0] <= cmp["mean_relative_difference"] <= cmp["ci"][1]
    text = arena("ladder", "compare", str(path), "r1", "r2").stdout
    assert "95% anytime (valid at every look)" in text and "matches r1 ranked ahead" in text
    bad = arena("ladder", "compare", str(path), "r1", "zed")
    assert bad.returncode == 2 and "no bot named 'zed'" in bad.stderr
    seats = json.loads(arena("ladder", "seats", str(path), "--format", "json").stdout)
    assert [(s["seat"], s["matches"], s["sets"]) for s in seats] == [
        (0, SCHEDULED, 9),
        (1, SCHEDULED, 9),
    ]
    assert sum(s["relative_score"] for s in seats) == pytest.approx(0)
    assert sum(s["wins"] for s in seats) >= SCHEDULED  # every match has a winner (ties: more)


def test_a_second_runner_is_refused_while_one_holds_the_database(tmp_path: Path) -> None:
    cfg = load_ladder(write_ladder(tmp_path))
    holder = Store.create(cfg.database, cfg.game.id)
    try:
        out = arena("ladder", "run", str(cfg.path), "--quiet")
    finally:
        holder.close()
    assert out.returncode == 2
    assert out.stderr == f"arena: error: {cfg.database}: in use by another `arena ladder` run\n"
    assert stored_count(cfg.database) == 0
