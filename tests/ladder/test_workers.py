"""Local workers start with the executor, before the ladder's first match, and without running
the runner's main script again (for ``arena`` that is its whole command line: a second of CPU
per worker that a worker never uses).

A real main script that leaves a file named for its pid each time it runs starts a
:class:`LocalExecutor` of two workers and has them play an empty batch.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

MAIN = """\
import multiprocessing, os, pathlib, sys
pathlib.Path(sys.argv[1], str(os.getpid())).touch()
if __name__ == "__main__":
    from arena.ladder.executor import LocalExecutor
    with LocalExecutor(2) as executor:
        print(os.getpid(), len(multiprocessing.active_children()), flush=True)  # before any job
        print(executor.outcome(executor.submit([])), flush=True)
"""


def test_workers_start_with_the_executor_and_skip_the_main_script(tmp_path: Path) -> None:
    script, marks = tmp_path / "runner.py", tmp_path / "marks"
    script.write_text(MAIN)
    marks.mkdir()
    out = subprocess.run(
        [sys.executable, str(script), str(marks)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.splitlines()
    runner, started = out[0].split()
    assert started == "2", out  # both workers, before a job was handed out
    assert out[1] == "[]", out  # and they play
    assert sorted(p.name for p in marks.iterdir()) == [runner], "a worker ran the main script"


def _marked(mark: str) -> list[int]:
    """Processes whose environment holds ``mark``."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if mark.encode() in environ.read_bytes().split(b"\0"):
                found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


def test_a_ladder_file_refused_after_the_workers_started_leaves_its_errors_alone(
    tmp_path: Path,
) -> None:
    """`arena ladder run` starts its workers before it reads the file: a refused file still
    gets its one message per problem and exit 2, and no worker outlives the command."""
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'game = "happy_mochi"\nseats = 2\nrounds = 1\n'
        '[[bots]]\nname = "a"\ncommand = "/nonexistent/bot"\n'
        '[[bots]]\nname = "b"\ncommand = "/nonexistent/bot"\n'
    )
    mark = f"ARENA_TEST_MARK={uuid.uuid4().hex}"
    env = {**os.environ, mark.split("=")[0]: mark.split("=")[1]}
    done = subprocess.run(
        [str(Path(sys.executable).parent / "arena"), "ladder", "run", str(bad), "--workers", "2"],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 2 and all(line.startswith("arena: error: ") for line in lines), lines
    assert all("/nonexistent/bot: no such file" in line for line in lines)
    assert _marked(mark) == []


PLACED = """\
import os, sys
if __name__ == "__main__":
    from arena.ladder.executor import LocalExecutor
    cores = len(os.sched_getaffinity(0))
    for workers, pin in ((cores, None), (1, True), (1, None), (cores + 1, True), (cores, False)):
        with LocalExecutor(workers, pin) as executor:
            print(*(" ".join(map(str, sorted(os.sched_getaffinity(pid))))
                    for pid in executor.worker_pids()), sep=",")
"""


def test_workers_that_take_every_core_run_on_one_each(tmp_path: Path) -> None:
    """Workers that take every core are each pinned to a core of their own (their bots inherit
    it: tests/sandbox/test_cores.py); fewer only with ``--pin``; more than the cores, or
    ``--no-pin``, are left to the kernel."""
    usable = sorted(os.sched_getaffinity(0))
    if len(usable) < 2:
        pytest.skip("one core here: nothing to pin apart")
    script = tmp_path / "runner.py"
    script.write_text(PLACED)
    out = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120,
        check=True,
    ).stdout.splitlines()  # fmt: skip
    every = " ".join(map(str, usable))
    assert out[0] == ",".join(map(str, usable)), out  # one core each, in order
    assert out[1] == str(usable[0]), out  # --pin
    assert out[2] == every, out  # fewer workers than cores, by default
    assert set(out[3].split(",")) == {every}, out  # more workers than cores
    assert set(out[4].split(",")) == {every}, out  # --no-pin
