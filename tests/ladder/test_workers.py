"""Local workers start with the executor, before the ladder's first match, and without running
the runner's main script again (for ``arena`` that is its whole command line: a second of CPU
per worker that a worker never uses).

A real main script that leaves a file named for its pid each time it runs starts a
:class:`LocalExecutor` of two workers and has them play an empty batch.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
