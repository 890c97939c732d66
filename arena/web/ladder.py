"""The server's ladder in a process of its own, so that pages never slow the matches down:
rendering, reading the database and rating for the pages hold the server's interpreter, and
the match runner (``runner.py``) holds another (one interpreter is one GIL: 20 clients on the
standings cut the matches stored by half when they shared one).

The server starts it with the competition's file (``python -m arena.web.ladder FILE FD``); it
writes its state (the queue page's: status, problem, progress, the matches in workers' hands)
as a JSON line on the pipe ``FD`` whenever it changes, which the server reads into
:attr:`LadderProcess.state`. It is killed with the server (``PR_SET_PDEATHSIG``), and its match
workers stop with it. SIGTERM stops it as ``Runner.stop`` does: no more matches handed out,
those in flight stored; once none is in flight it has ``SETTLE_S`` to finish what it was doing
(a re-rating of a long history takes minutes: the next start does it again), then it exits. A
ladder process that ends while the server runs (killed, crashed) is started again after
``RESTART_S``, and the queue page says so; the store's lock and its skipping of stored matches
make a restart lose only the matches in flight.
"""

from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from arena.web.events import note
from arena.web.runner import STOP_WAIT_S, Runner, RunnerState

RESTART_S = 1.0
STARTUP_S = 60.0  # a generous bound on the ladder process's first word
PUBLISH_S = 0.1  # how often the ladder process looks for a change of its state
SETTLE_S = 5.0  # once stopping with no match in flight, how long it may go on settling
_PR_SET_PDEATHSIG = 1


class LadderProcess:
    """The server's handle on its ladder process: started, watched and restarted, stopped."""

    def __init__(self, competition_file: Path) -> None:
        self.file = competition_file
        self.state = RunnerState(status="starting")
        self.held: frozenset[str] = frozenset()
        self.restarts = 0
        self.ended = ""  # how the last ladder process ended, when it ended by itself
        self.stopping = threading.Event()
        self.reported = threading.Event()
        self.child: subprocess.Popen[bytes] | None = None
        self.watcher = threading.Thread(target=self._watch, name="arena-ladder-watch", daemon=True)

    def start(self, wait_s: float = STARTUP_S) -> None:
        """Start the ladder process, and wait (``wait_s`` at most) for it to say what it
        does, so the server's first page knows."""
        self.watcher.start()
        self.reported.wait(wait_s)

    def running(self) -> set[str]:
        """The match ids in the ladder's workers' hands, as it last said."""
        return set(self.held)

    def stop(self, wait_s: float = STOP_WAIT_S) -> None:
        """SIGTERM to the ladder process, then wait for it to store its matches in flight;
        past ``wait_s`` it is killed (its workers and their bots die with it)."""
        self.stopping.set()
        child = self.child
        if child is not None and child.poll() is None:
            child.send_signal(signal.SIGTERM)
            try:
                child.wait(wait_s)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if self.watcher.is_alive():
            self.watcher.join(wait_s)

    def _watch(self) -> None:
        """Run the ladder process, read its state, start it again when it ends by itself."""
        while not self.stopping.is_set():
            read, write = os.pipe()
            argv = [sys.executable, "-m", "arena.web.ladder", str(self.file), str(write),
                    str(os.getpid())]  # fmt: skip
            try:
                self.child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, pass_fds=(write,))
            finally:
                os.close(write)
            with os.fdopen(read, "rb") as lines:
                for line in lines:
                    self._read(line)
            code = self.child.wait()
            self.held = frozenset()
            if self.stopping.is_set():
                self.state.status = "stopped"
                break
            self.restarts += 1
            how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
            self.ended = f"the ladder's process ended ({how}) and was started again"
            self.state = RunnerState(status="restarting", problem=self.ended)
            self.stopping.wait(RESTART_S)

    def _read(self, line: bytes) -> None:
        try:
            said = json.loads(line)
            state = RunnerState(**said["state"])
            held = frozenset(str(i) for i in said["running"])
        except (ValueError, TypeError, KeyError):
            return  # a line cut by a kill: the next one says it all again
        self.state, self.held = state, held
        if state.status != "starting":
            self.reported.set()


def _publish(runner: Runner, out: int, stopped: threading.Event) -> None:
    """Write the runner's state to ``out`` each time it changed, until ``stopped``."""
    last = b""
    while True:
        done = stopped.wait(PUBLISH_S)
        said = {"state": dataclasses.asdict(runner.state), "running": sorted(runner.running())}
        line = json.dumps(said).encode() + b"\n"
        if line != last:
            try:
                os.write(out, line)
            except OSError:  # the server is gone: nobody to tell (this process dies with it)
                return
            last = line
        if done:
            return


def main(argv: list[str]) -> int:
    """The ladder process: ``FILE FD PARENT`` (the competition file, the pipe to write its
    state to, the server's pid). SIGTERM stops it after the matches in flight."""
    from arena.web import events
    from arena.web.competition import load_competition

    path, fd, parent = argv
    events.to_stderr()  # its matches and states in the organiser's log, on the server's stderr
    # Killed with the server, as a thread of it would be: its workers see it die and stop.
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != int(parent):  # the server died before prctl took effect
        return 1
    runner = Runner(load_competition(Path(path)))
    signal.signal(signal.SIGTERM, lambda *_: runner.stopping.set())
    signal.signal(signal.SIGINT, lambda *_: None)  # Ctrl-C is the server's to interpret
    stopped = threading.Event()
    out = int(fd)
    publisher = threading.Thread(target=_publish, args=(runner, out, stopped), daemon=True)
    publisher.start()
    runner.start()
    idle_since: float | None = None
    while runner.thread.is_alive():
        runner.thread.join(0.5)  # the main thread must stay free for its signals
        if not runner.stopping.is_set() or runner.running():
            idle_since = None
            continue
        idle_since = idle_since or time.monotonic()
        if time.monotonic() - idle_since > SETTLE_S:
            # Stopping with no match in flight, and still busy: bringing ratings up to date
            # (re-rating a long history takes minutes), which the next start does again.
            # Its transaction is rolled back; every stored match stays.
            note("ladder stopped before it finished rating: the next start rates again")
            os._exit(0)
    stopped.set()
    publisher.join()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
