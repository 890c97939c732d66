"""Mutation check of the game engines: does a small change to a game's rules fail its tests?

    .venv/bin/python bench/mutate.py [-n 100] [--seed 29] [--game ID ...] [--jobs 2]
                                     [--mutant ID ...] [--list] [--out FILE]
    make mutate                       (all games, 100 mutants each: saved to bench/results/)

For each game (a package of ``arena/games`` with a ``RULES.md``), every mutant of its rule code
is listed (``bench/mutants.py``: operators, comparisons, constants, conditions, removed
statements, ``break`` and ``return``), N are sampled with a fixed seed, and that game's tests,
``tests/games/<game>/``, are run against each one. The run prints a line per mutant, then killed
and survived per game and every survivor's id, file, line and change. A run of every game's
sample saves the figures to ``bench/results/mutate.json``; other runs save only with ``--out``.
A survivor whose id starts a line ``- `<id>` ...`` of ``bench/results/mutate-survivors.md`` is
equivalent (no test can tell it from the real rules): it is shown as explained and left out of
the score, killed / (sampled - equivalent), the usual mutation score; ``killed_pc`` counts every
sampled mutant. The goal is a score of 97 % per game.

The rule code is the game's package less what is not a rule: the position formats
(``position.py``, ``positions.py``, ``short.py``, ``scenario.py``) and the determinization for
search bots (``sample.py``, ``sampling.py``).

How it runs:

* One copy of the project per job, in a temporary folder; the checkout is never edited. A mutant
  writes its module in the copy, the tests run, the module is restored. The copies are compiled
  with checked-hash bytecode, so an import always matches the source it finds.
* The tests run in a child interpreter: a copy of this script run with ``--child`` (editing
  bench/ during a run changes nothing in it). They run fastest first, by the durations of a run
  without mutant made first (the check stops if a test fails there), and stop at the first
  failure. Tests marked ``bots`` are left out: they play through the sandboxed referee, whose
  bots import Arena from the checkout, not from the copy.
* The child has a memory limit, each test a timeout (pytest-timeout) and the whole run another:
  a mutant that fails a test, times out, hangs, runs out of memory or crashes the interpreter is
  killed, and the reason is shown.
* The child's ``PYTHONPATH`` is the copy, so the subprocesses of a test (the cross-process
  determinism checks) run the mutant too.

Why not mutmut or cosmic-ray: neither samples a fixed-size subset of the mutants (both run all
of them: thousands per game here, days of test time on two cores); mutmut 3 first traces the
whole suite and rewrites every function into trampolines, and removes no statements;
cosmic-ray's local runs edit the checkout in place, and it removes no statements either.
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import json
import math
import os
import platform
import py_compile
import queue
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mutants import Mutant, apply, mutants  # this script's folder is first on sys.path
from tabulate import tabulate

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

RESULTS = ROOT / "bench" / "results" / "mutate.json"
EXPLAINED = ROOT / "bench" / "results" / "mutate-survivors.md"
NOT_RULES = {"position.py", "positions.py", "short.py", "scenario.py", "sample.py", "sampling.py"}
COPIED = ("arena", "tests", "sample_bots", "protocol", "pyproject.toml")
IGNORED = shutil.ignore_patterns("__pycache__", "node_modules", "build", "*.egg-info")
UNUSED_PLUGINS = ("cacheprovider", "hypothesispytest", "anyio", "xdist")  # slow to start, unused
PYTEST_ARGS = ("-x", "-q", "-m", "not bots", "-o", "addopts=")
PYTEST_ARGS += tuple(arg for name in UNUSED_PLUGINS for arg in ("-p", f"no:{name}"))
MEMORY = 2 << 30  # bytes of address space for the child
SEED = 29
BASELINE_TIMEOUT = 1800  # seconds for the run without mutant
GOAL = 97.0  # per cent of the sample killed


@dataclass(frozen=True)
class Baseline:
    """The game's tests without mutant: their durations order the mutant runs and set timeouts."""

    seconds: float
    order: dict[str, float]  # test id -> seconds
    test_timeout: int  # seconds per test (pytest-timeout)
    run_timeout: int  # seconds for the whole run

    @classmethod
    def measured(cls, seconds: float, order: dict[str, float]) -> Baseline:
        """Timeouts far above what the run took: a loaded machine is no reason to kill."""
        slowest = max(order.values(), default=1.0)
        return cls(
            seconds, order, max(30, math.ceil(5 * slowest)), max(120, math.ceil(3 * seconds))
        )


@dataclass(frozen=True)
class Verdict:
    killed: bool
    reason: str  # why it was killed, or "" for a survivor
    seconds: float


# ----- which mutants -------------------------------------------------------------------------


def games() -> list[str]:
    return sorted(p.parent.name for p in (ROOT / "arena" / "games").glob("*/RULES.md"))


def rule_modules(game: str) -> list[Path]:
    package = ROOT / "arena" / "games" / game
    return sorted(p for p in package.rglob("*.py") if p.name not in NOT_RULES)


def all_mutants(game: str) -> list[Mutant]:
    out: list[Mutant] = []
    for path in rule_modules(game):
        out += mutants(path.read_text(), path.relative_to(ROOT).as_posix())
    return out


def _in_package(game: str, path: Path) -> str:
    return path.relative_to(ROOT / "arena" / "games" / game).as_posix()


def sample(found: Sequence[Mutant], n: int, seed: int) -> list[Mutant]:
    """The ``n`` mutants whose hash with ``seed`` is lowest: a fixed sample, which keeps a mutant
    in it however other code changes (unless new mutants come before it), in source order."""
    rank = {m.id: hashlib.sha256(f"{seed}|{m.id}".encode()).hexdigest() for m in found}
    chosen = sorted(found, key=lambda m: rank[m.id])[:n]
    return sorted(chosen, key=lambda m: (m.path, m.start))


def explained() -> dict[str, str]:
    """Survivor id -> why it is equivalent, from ``mutate-survivors.md``."""
    if not EXPLAINED.exists():
        return {}
    found = re.findall(r"^- `([0-9a-f]+)`(.*)$", EXPLAINED.read_text(), flags=re.M)
    return {mid: why.strip() for mid, why in found}


# ----- running the tests in a copy -----------------------------------------------------------


def make_copy(folder: Path) -> Path:
    """A copy of what the game tests need, bytecode compiled with checked hashes."""
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=IGNORED)
        else:
            shutil.copy2(source, folder / name)
    compileall.compile_dir(
        folder, quiet=2, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH
    )
    return folder


def make_work(folder: Path) -> Path:
    """A folder for one job's own files, holding copies of this script and its mutator: the
    child runs those, so that editing bench/ during a run changes nothing in it."""
    folder.mkdir()
    for name in ("mutate.py", "mutants.py"):
        shutil.copy2(HERE / name, folder / name)
    return folder


@contextmanager
def mutated(copy: Path, mutant: Mutant | None) -> Iterator[None]:
    """The copy with ``mutant`` applied to its module, restored afterwards."""
    if mutant is None:
        yield
        return
    path = copy / mutant.path
    original = path.read_text()
    path.write_text(apply(original, mutant))
    try:
        yield
    finally:
        path.write_text(original)


class Children:
    """The running children, each the leader of its own process group, so that an interrupted
    check (Ctrl-C, SIGTERM) kills them and their subprocesses instead of leaving them behind."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.groups: set[int] = set()
        self.stopping = False

    @contextmanager
    def start(self, argv: list[str], cwd: Path, env: dict[str, str], sink: Any) -> Iterator[Any]:
        with self.lock:
            if self.stopping:
                raise KeyboardInterrupt
            child = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            self.groups.add(child.pid)
        try:
            with child:
                yield child
        finally:
            with self.lock:
                self.groups.discard(child.pid)

    def stop(self) -> None:
        with self.lock:
            self.stopping = True
            for group in self.groups:
                with suppress(ProcessLookupError):
                    os.killpg(group, signal.SIGKILL)


CHILDREN = Children()


def run_tests(
    copy: Path, game: str, baseline: Baseline | None, work: Path
) -> tuple[int, dict[str, Any]]:
    """Run the game's tests in ``copy``: (exit status, the child's report or {})."""
    order = work / "order.json"
    report = work / "report.json"
    report.unlink(missing_ok=True)
    order.write_text(json.dumps(baseline.order if baseline else {}))
    args = [*PYTEST_ARGS, f"tests/games/{game}"]
    if baseline is not None:
        args.append(f"--timeout={baseline.test_timeout}")
    command = [sys.executable, str(work / "mutate.py"), "--child", str(order), str(report)]
    env = {**os.environ, "PYTHONPATH": str(copy)}
    env.pop("PYTEST_ADDOPTS", None)
    timeout = baseline.run_timeout if baseline else BASELINE_TIMEOUT
    output = work / "output.txt"
    with (
        output.open("wb") as sink,
        CHILDREN.start([*command, "--", *args], copy, env, sink) as child,
    ):
        try:
            status = child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            return -signal.SIGKILL, {"hang": timeout}
    if report.exists():
        return status, json.loads(report.read_text())
    lines = output.read_text(errors="replace").strip().splitlines()
    return status, {"output": lines[-1][:200] if lines else ""}


def verdict(status: int, report: dict[str, Any], seconds: float) -> Verdict:
    """Killed or survived, and why, from the child's exit status and report."""
    if status == 0:
        return Verdict(False, "", seconds)
    if status in (4, 5):  # usage error, no tests: this script's fault, not the mutant's
        raise SystemExit(f"mutate: error: pytest exit {status} {report}")
    if "hang" in report:
        return Verdict(True, f"hang: no result after {report['hang']} s", seconds)
    failure = report.get("failure")
    if status < 0:
        return Verdict(True, f"crash: {signal.Signals(-status).name}", seconds)
    if failure is None:
        return Verdict(True, f"crash: exit {status}: {report.get('output', '')}", seconds)
    kind = "timeout" if "Timeout" in failure else "failed"
    return Verdict(True, f"{kind}: {failure}", seconds)


class Copies:
    """One copy of the project per job, handed to one run at a time."""

    def __init__(self, folder: Path, jobs: int) -> None:
        self.free: queue.Queue[tuple[Path, Path]] = queue.Queue()
        for i in range(jobs):
            self.free.put((make_copy(folder / f"copy{i}"), make_work(folder / f"work{i}")))

    @contextmanager
    def take(self) -> Iterator[tuple[Path, Path]]:
        item = self.free.get()
        try:
            yield item
        finally:
            self.free.put(item)


def measure_baseline(copies: Copies, game: str) -> Baseline:
    with copies.take() as (copy, work):
        started = time.monotonic()
        status, report = run_tests(copy, game, None, work)
    if status != 0:
        raise SystemExit(
            f"mutate: error: the {game} tests fail without any mutant ({report.get('failure')})"
        )
    return Baseline.measured(round(time.monotonic() - started, 1), report["durations"])


def judge(copies: Copies, game: str, mutant: Mutant, baseline: Baseline) -> Verdict:
    with copies.take() as (copy, work), mutated(copy, mutant):
        started = time.monotonic()
        status, report = run_tests(copy, game, baseline, work)
    return verdict(status, report, round(time.monotonic() - started, 1))


# ----- the child: pytest with an order, a memory limit and a report --------------------------


class ChildPlugin:
    """Runs the tests fastest first, records durations and the first failure."""

    def __init__(self, order: dict[str, float]) -> None:
        self.order = order
        self.durations: dict[str, float] = {}
        self.failure: str | None = None

    def pytest_collection_modifyitems(self, items: list[Any]) -> None:
        if self.order:
            items.sort(key=lambda item: self.order.get(item.nodeid, math.inf))

    def pytest_collectreport(self, report: Any) -> None:
        self._note(report, "collect")

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.durations[report.nodeid] = self.durations.get(report.nodeid, 0.0) + report.duration
        self._note(report, report.when)

    def _note(self, report: Any, when: str) -> None:
        if report.failed and self.failure is None:
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else report.longreprtext
            self.failure = f"{report.nodeid} ({when}): {_first_line(message)}"


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0][:200] if lines else ""


def child(order_file: str, report_file: str, args: list[str]) -> int:
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # bench/ holds no test
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    import pytest

    plugin = ChildPlugin(json.loads(Path(order_file).read_text()))
    status = int(pytest.main(args, plugins=[plugin]))
    report = {"status": status, "failure": plugin.failure, "durations": plugin.durations}
    Path(report_file).write_text(json.dumps(report))
    return status


# ----- the report ----------------------------------------------------------------------------


def summary(chosen: list[Mutant], verdicts: dict[str, Verdict], found: int) -> dict[str, Any]:
    """One game's figures. ``killed_pc`` counts every sampled mutant; ``score`` leaves out the
    survivors explained as equivalent (no test can kill them), the usual mutation score."""
    known = explained()
    killed = [m for m in chosen if verdicts[m.id].killed]
    survivors = [m for m in chosen if not verdicts[m.id].killed]
    equivalent = sum(m.id in known for m in survivors)
    reasons = Counter(verdicts[m.id].reason.split(":")[0] for m in killed)
    return {
        "mutants": found,
        "sampled": len(chosen),
        "killed": len(killed),
        "survived": len(survivors),
        "explained": equivalent,
        "killed_pc": round(100 * len(killed) / max(1, len(chosen)), 1),
        "score": round(100 * len(killed) / max(1, len(chosen) - equivalent), 1),
        "kinds": dict(sorted(Counter(m.kind for m in chosen).items())),
        "killed_by": dict(sorted(reasons.items())),
        "survivors": [
            {**_where(m), "explained": known.get(m.id)} for m in sorted(survivors, key=_order)
        ],
    }


def _where(m: Mutant) -> dict[str, Any]:
    return {"id": m.id, "file": m.path, "line": m.line, "kind": m.kind, "change": m.change(200)}


def _order(m: Mutant) -> tuple[str, tuple[int, int]]:
    return m.path, m.start


def print_summary(results: dict[str, dict]) -> None:
    columns = ("mutants", "sampled", "killed", "survived", "explained", "killed_pc", "score")
    rows = [[game, *(r[c] for c in columns)] for game, r in results.items()]
    print("\n" + tabulate(rows, headers=["game", *columns]))
    for r in results.values():
        for s in r["survivors"]:
            note = f"  [equivalent: {s['explained']}]" if s["explained"] else ""
            print(f"survived {s['id']} {s['file']}:{s['line']} {s['kind']}: {s['change']}{note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100, help="mutants per game (default 100)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"sample seed (default {SEED})")
    parser.add_argument("--game", nargs="*", default=None, help="only these games")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once (default 2)")
    parser.add_argument("--mutant", nargs="*", default=None, help="only these mutant ids")
    parser.add_argument("--list", action="store_true", help="print the sample, run nothing")
    parser.add_argument(
        "--out", type=Path, help=f"save the figures there (default for a whole run: {RESULTS})"
    )
    args = parser.parse_args()
    chosen_games = args.game or games()
    unknown = sorted(set(chosen_games) - set(games()))
    if unknown:
        parser.error(f"no such game: {', '.join(unknown)} (games: {', '.join(games())})")
    found = {game: all_mutants(game) for game in chosen_games}
    if args.mutant is not None:
        wanted = set(args.mutant)
        chosen = {g: [m for m in ms if m.id in wanted] for g, ms in found.items()}
        chosen = {g: ms for g, ms in chosen.items() if ms}
    else:
        chosen = {g: sample(ms, args.n, args.seed) for g, ms in found.items()}
    if args.list:
        for ms in chosen.values():
            for m in ms:
                print(f"{m.id} {m.path}:{m.line} {m.kind}: {m.change()}")
        return
    signal.signal(signal.SIGTERM, _interrupted)
    try:
        verdicts, baselines, seconds = run(chosen, args.jobs)
    except KeyboardInterrupt:
        raise SystemExit("mutate: interrupted; no figures saved") from None
    report(args, found, chosen, verdicts, baselines, seconds)


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def run(
    chosen: dict[str, list[Mutant]], jobs: int
) -> tuple[dict[str, Verdict], dict[str, Baseline], int]:
    """The baselines, then every chosen mutant, ``jobs`` at a time; prints a line per mutant."""
    started = time.monotonic()
    verdicts: dict[str, Verdict] = {}
    with tempfile.TemporaryDirectory(prefix="arena-mutate-") as folder:
        copies = Copies(Path(folder), jobs)
        with ThreadPoolExecutor(jobs) as pool:
            try:
                measured = {g: pool.submit(measure_baseline, copies, g) for g in chosen}
                baselines = {g: future.result() for g, future in measured.items()}
                for game, baseline in baselines.items():
                    print(f"{game}: tests pass without mutant in {baseline.seconds} s", flush=True)
                work = [(g, m) for g, ms in chosen.items() for m in ms]
                futures = {pool.submit(judge, copies, g, m, baselines[g]): m for g, m in work}
                for done, future in enumerate(as_completed(futures), 1):
                    m = futures[future]
                    v = verdicts[m.id] = future.result()
                    state = "killed" if v.killed else "SURVIVED"
                    print(
                        f"[{done}/{len(work)}] {state:8} {m.id} {m.path}:{m.line} {m.kind}: "
                        f"{m.change(80)}  {v.reason[:120]} ({v.seconds} s)",
                        flush=True,
                    )
            except BaseException:
                CHILDREN.stop()
                pool.shutdown(cancel_futures=True)
                raise
    return verdicts, baselines, round(time.monotonic() - started)


def report(
    args: argparse.Namespace,
    found: dict[str, list[Mutant]],
    chosen: dict[str, list[Mutant]],
    verdicts: dict[str, Verdict],
    baselines: dict[str, Baseline],
    seconds: int,
) -> None:
    """Print the table and the survivors; save the figures for a whole run (or to ``--out``)."""
    results = {g: summary(ms, verdicts, len(found[g])) for g, ms in chosen.items()}
    for game, r in results.items():
        r["baseline_s"] = baselines[game].seconds
    print_summary(results)
    below = [g for g, r in results.items() if r["score"] < GOAL]
    print(f"\nscore below {GOAL}%: {', '.join(below) or 'none'}")
    meta = {
        "python": platform.python_version(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "seed": args.seed,
        "per_game": args.n if args.mutant is None else None,
        "jobs": args.jobs,
        "seconds": seconds,
        "load_average": os.getloadavg()[0],
        "goal": GOAL,
        "score": "killed / (sampled - explained equivalents), per cent",
        "rule_modules": {g: [_in_package(g, p) for p in rule_modules(g)] for g in chosen},
    }
    whole = args.game is None and args.mutant is None
    out = args.out or (RESULTS if whole else None)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"meta": meta, "games": results}, indent=2) + "\n")
        print(f"saved {out}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _, _, order_file, report_file, _, *pytest_args = sys.argv
        sys.exit(child(order_file, report_file, pytest_args))
    main()
