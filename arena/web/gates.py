"""The server's gate queue: uploaded versions are built and validated here, never in the threads
that serve the pages, and one or two at a time whatever the number of uploads.

An upload stores its version ``queued`` and is answered at once; the gate runs later, in two
lanes of its own beside the ladder's workers: builds (``[server] builders`` at a time, each in
the build sandbox with its own CPU and memory limits) and validations (one at a time, so their
``check-bot`` clocks are never shared with another validation). Each step is a process of its
own (``python -m arena.web.gates STEP ...``), as a ladder match is: the web server's threads
never hold its referee's clocks. A version whose build is done moves to the validation lane.

Each author has at most ``[server] gates_per_author`` versions queued or in the gate (the
next upload is refused with 429 until one is through), so the queue is bounded and nobody's
uploads wait behind one author's flood.

A step whose process ends without a verdict (killed, or the server stopping) leaves its version
``waiting`` with that reason, as does any failure of this machine: no bot is blamed, and
``arena bot recheck`` runs its gate again. A server killed with SIGKILL leaves no one to say
so: :func:`recover` does it when the next server starts (versions still ``building`` or
``validating`` that no process is working on become ``waiting``, their folders sealed and
owned by the server again, not by the bot uid that built them), and it removes the upload
folders and registry staging folders a killed server left behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.registry.content import seal, unseal
from arena.registry.gate import GateHostError, build_step, validate_step
from arena.registry.store import Registry, RegistryError
from arena.sandbox.workdirs import pid_alive
from arena.web.events import note

# Each step and the statuses its version is in until the step has spoken.
STEPS = {"build": ("queued", "building"), "validate": ("validating",)}
STOP_GRACE_S = 10.0
UPLOADS = "uploads"  # in the registry folder: where archives are unpacked before storing
_PR_SET_PDEATHSIG = 1
HOST_EXIT = 3  # this machine failed: the version is waiting
BUSY_EXIT = 4  # another process (an organiser's recheck) runs this version's gate


class Busy(Exception):
    """An author with as many versions in the gate as allowed: try again later."""


@dataclass(frozen=True)
class Job:
    ref: str
    author: str
    step: str


class GateQueue:
    """The gate lanes of one registry (see the module docstring)."""

    def __init__(
        self,
        registry: Path,
        check_games: int,
        builders: int,
        per_author: int,
        owner: Callable[[str], str | None],
        runtime_paths: tuple[str, ...] = (),
    ) -> None:
        self.registry = registry
        self.runtime_paths = runtime_paths  # the competition's, shown to builds and checks
        self.check_games = check_games
        self.per_author = per_author
        self.owner = owner  # a bot's author, for versions found queued at start
        self.cond = threading.Condition()
        self.waiting: dict[str, deque[Job]] = {step: deque() for step in STEPS}
        self.pending: Counter[str] = Counter()  # author -> versions queued or in the gate
        self.children: set[subprocess.Popen[bytes]] = set()
        self.stopping = False
        lanes = ["build"] * builders + ["validate"]
        self.threads = [
            threading.Thread(target=self._work, args=(step,), name=f"arena-{step}", daemon=True)
            for step in lanes
        ]

    def start(self) -> None:
        """Clean what a killed server left, queue the versions still ``queued``, start."""
        with Registry(self.registry) as registry:
            recover(registry)
            queued = sorted(registry.versions(status="queued"), key=lambda v: v.submitted_at)
        for version in queued:
            author = self.owner(version.name) or ""
            with self.cond:
                self.pending[author] += 1
            self._enter(version.ref, author)
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        """Start nothing more; steps in progress are stopped (their versions ``waiting``)."""
        with self.cond:
            self.stopping = True
            self.cond.notify_all()
            children = list(self.children)
        for child in children:
            with contextlib.suppress(ProcessLookupError):
                child.terminate()
        for thread in self.threads:
            if thread.is_alive():
                thread.join(STOP_GRACE_S)

    def check(self, author: str) -> None:
        """Busy when ``author`` has as many versions in the queue as allowed (asked before an
        upload is read, so a refused one costs nothing; :meth:`admission` decides)."""
        with self.cond:
            if self.pending[author] >= self.per_author:
                raise Busy(
                    f"{author}: {self.pending[author]} of your versions are in the gate queue "
                    f"(at most {self.per_author}); submit again once one of them is through"
                )

    @contextlib.contextmanager
    def admission(self, author: str) -> Iterator[Callable[[str], None]]:
        """A place in the queue for one of ``author``'s versions, or Busy when they have as
        many as allowed; the function given queues a version in it (unused: given back)."""
        with self.cond:
            self.check(author)
            self.pending[author] += 1
        used = False

        def admit(ref: str) -> None:
            nonlocal used
            used = True
            self._enter(ref, author)

        try:
            yield admit
        finally:
            if not used:
                self._release(author)

    def ahead(self, ref: str) -> int | None:
        """How many steps wait before ``ref``'s in its lane; None when it is not waiting."""
        with self.cond:
            for lane in self.waiting.values():
                for i, job in enumerate(lane):
                    if job.ref == ref:
                        return i
        return None

    def counts(self) -> dict[str, int]:
        """Steps waiting and running, for the queue page."""
        with self.cond:
            waiting = sum(len(lane) for lane in self.waiting.values())
            return {"waiting": waiting, "running": len(self.children)}

    def _enter(self, ref: str, author: str) -> None:
        """Queue a ``queued`` version: in the build lane, or when it has nothing to build
        straight in the validation lane (an honest bot never waits behind slow builds)."""
        with Registry(self.registry) as registry:
            if registry.get(ref).manifest.build:
                step = "build"
            else:
                registry.set_status(ref, "validating")
                step = "validate"
        self._queue(Job(ref, author, step))

    def _queue(self, job: Job) -> None:
        with self.cond:
            self.waiting[job.step].append(job)
            self.cond.notify_all()

    def _release(self, author: str) -> None:
        with self.cond:
            self.pending[author] -= 1
            if self.pending[author] <= 0:
                del self.pending[author]

    def _work(self, step: str) -> None:
        while True:
            with self.cond:
                while not self.stopping and not self.waiting[step]:
                    self.cond.wait()
                if self.stopping:
                    return
                job = self.waiting[step].popleft()
            status = self._run(job)
            if job.step == "build" and status == "validating" and not self.stopping:
                self._queue(Job(job.ref, job.author, "validate"))
            else:
                self._release(job.author)

    def _run(self, job: Job) -> str:
        """Run one step in its own process; the version's status after it."""
        argv = [sys.executable, "-m", "arena.web.gates", job.step, str(self.registry), job.ref,
                str(self.check_games), str(os.getpid()), *self.runtime_paths]  # fmt: skip
        with self.cond:
            if self.stopping:
                return ""
            child = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
            self.children.add(child)
        try:
            code = child.wait()
        finally:
            with self.cond:
                self.children.discard(child)
        with Registry(self.registry) as registry:
            version = registry.get(job.ref)
            if version.status in STEPS[job.step] and code != BUSY_EXIT:  # it did not finish
                why = (
                    "the server stopped"
                    if self.stopping
                    else f"its process ended unexpectedly (exit status {code})"
                )
                version = registry.set_status(job.ref, "waiting", _interrupted(job.ref, why))
        reason = version.reason.splitlines()[0] if version.reason else ""
        note(f"gate {job.ref} {job.step}: {version.status}" + (f" ({reason})" if reason else ""))
        return version.status


def _interrupted(ref: str, why: str) -> str:
    return (
        f"{ref}: its gate was cut short ({why}); this is not the bot's fault: "
        f"`arena bot recheck {ref}` runs it again"
    )


def recover(registry: Registry) -> list[str]:
    """After a server was killed: every version left ``building`` or ``validating`` with no
    process working on it is ``waiting``, its folder sealed; the registry's staging folders and
    the upload folders of dead servers are removed. The versions moved."""
    moved = []
    for status in ("building", "validating"):
        for version in registry.versions(status=status):
            why = "the server stopped"
            try:
                with registry.working(version) as mine:
                    if not mine:  # another process runs its gate now
                        continue
                    seal(version.folder)
            except OSError as exc:  # its folder is gone or cannot be opened
                why = f"the server stopped, and its folder cannot be opened: {exc.strerror}"
            registry.set_status(version.ref, "waiting", _interrupted(version.ref, why))
            moved.append(version.ref)
    with registry.locked():  # no submission is copying into a staging folder meanwhile
        for staging in registry.root.glob("incoming-*"):
            remove(staging)
    for folder in (registry.root / UPLOADS).glob("*"):
        pid = folder.name.partition("-")[0]
        if not pid.isdigit() or not pid_alive(int(pid)):
            remove(folder)
    return moved


def upload_folder(registry: Path) -> Path:
    """A new folder to unpack one upload into, named for this process so that a later server
    knows whether its owner is still alive (:func:`recover`)."""
    parent = registry / UPLOADS
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=parent))


def remove(folder: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        unseal(folder)
        shutil.rmtree(folder)


def main(argv: list[str]) -> int:
    """One step of one version's gate, in a process of its own: ``STEP REGISTRY REF GAMES
    PARENT [RUNTIME_PATH ...]``. Exit 0 when the gate said something, ``HOST_EXIT`` when this
    machine failed (the version is ``waiting``), ``BUSY_EXIT`` when another process runs it.
    It dies with the server (SIGTERM, turned into an exit that seals the folder)."""
    step, root, ref, games, parent, *runtime = argv
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != int(parent):  # the server died before prctl took effect
        return 1
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with Registry(Path(root)) as registry:
        try:
            version = registry.get(ref)
        except RegistryError:
            return 1
        with registry.working(version) as mine:
            if not mine:
                return BUSY_EXIT
            try:
                if step == "build":
                    build_step(registry, ref, tuple(runtime))
                else:
                    validate_step(registry, ref, int(games), tuple(runtime))
            except GateHostError as exc:
                print(f"arena: gate: {exc}", file=sys.stderr, flush=True)
                return HOST_EXIT
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
