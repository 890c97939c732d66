"""Submitting a bot: copy, hash, build in the sandbox, validate with ``check-bot``, activate.

Every version passes the same gate, in this order, and its outcome is stored with it:

1. the folder is copied into the registry and hashed as it is copied (``content.py``); the
   same content as an existing version of the bot is that version, nothing new is made;
2. the manifest's ``build`` runs once, in the sandbox bots play in (no network, the bot's CPU,
   memory and process limits, ``BUILD_TIMEOUT_S`` of wall clock), with write access to its own
   folder only; its log is kept (its head and tail, ``REPORT_BYTES``), and a failure rejects
   the version with the log's first error line as its reason (a compiler's first error is the
   one that matters; the rest often follow from it);
3. the built version plays the ``check-bot`` matches of every game it names; any protocol
   problem rejects it with the validator's report;
4. otherwise it is ``active``, and the folder is sealed read-only.

``arena bot submit`` runs the steps in its own process (:func:`run_gate`); a competition
server runs each in a process of its gate queue (``arena/web/gates.py``), one step at a time.
Whoever runs a step holds the version's ``working`` lock.

A failure of this machine (no sandbox, a cgroup or uid that cannot be made, bots that cannot be
started) is not the bot's: the version is ``waiting`` with the host's reason, and
``arena bot recheck`` (or submitting the same folder again) runs its gate again.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from arena.games import available_games, load_game
from arena.match.bots import BotSpec
from arena.match.check_bot import check_bot, render, verdict
from arena.match.results import is_host_void, is_load_void
from arena.registry.content import MAX_BYTES, MAX_FILES, seal, snapshot, unseal
from arena.registry.manifest import Manifest, pick
from arena.registry.store import REPORT_BYTES, UNFINISHED, Registry, Version
from arena.sandbox import (
    BotPathError,
    HostError,
    SandboxError,
    SandboxLimits,
    bot_environment,
    check_command,
    launch,
)

BUILD_TIMEOUT_S = 600.0
BUILD_LIMITS = SandboxLimits(memory_mb=2048, cpu_s=600, cpus=1, file_mb=256, tmp_mb=512)
CHECK_GAMES = 3  # check-bot matches per game: the bot sits in each of 3 seats once
REASON_CHARS = 300
# A compiler's or build tool's error line: gcc/clang/javac/rustc/tsc ("error", "fatal error"),
# Python's exceptions (NameError, SyntaxError), npm ("ERR!"); never -Werror in a command line.
ERROR_LINE = re.compile(r"(?i:\b(?:error|fatal)\b)|\b[A-Z]\w*Error\b|\bERR!")


class GateHostError(RuntimeError):
    """This machine could not build or check the version: not the bot's fault."""


@dataclass(frozen=True)
class Submitted:
    version: Version
    new: bool  # False: the same content was already stored as ``version``


def spec_of(version: Version) -> BotSpec:
    """How a version is run: its manifest's command, from its own folder."""
    m = version.manifest
    return BotSpec(version.ref, m.run, version.folder, m.transport)


def submit(
    registry: Registry,
    folder: Path,
    name: str | None = None,
    check_games: int = CHECK_GAMES,
    max_bytes: int = MAX_BYTES,
    max_files: int = MAX_FILES,
    claim: Callable[[str], None] | None = None,
    runtime_paths: tuple[str, ...] = (),
) -> Submitted:
    """Store ``folder`` as a new version (or find it stored) and run its gate here; a stored
    version whose gate did not finish (or could not run on this machine) runs it again.
    ``claim``: see :meth:`Registry.add`; the build and checks are shown ``runtime_paths``
    beside the system's runtime (the competition's)."""
    done = store(registry, folder, name, max_bytes, max_files, claim=claim)
    if not done.new and done.version.status not in (*UNFINISHED, "waiting"):
        return done
    return Submitted(run_gate(registry, done.version.ref, check_games, runtime_paths), done.new)


def store(
    registry: Registry,
    folder: Path,
    name: str | None = None,
    max_bytes: int = MAX_BYTES,
    max_files: int = MAX_FILES,
    status: str = "building",
    claim: Callable[[str], None] | None = None,
) -> Submitted:
    """Copy and hash ``folder`` into the registry as a new version in ``status`` (or find the
    version with the same content); no gate is run. ``claim``: see :meth:`Registry.add`."""
    folder = folder.resolve()
    manifest = pick(folder, name)
    bot = name or manifest.name
    patterns = (*manifest.files, "arena-bot.toml") if manifest.files else ()
    salt = json.dumps(manifest.as_dict() | {"name": ""}, sort_keys=True)
    with registry.locked():
        staging = registry.root / f"incoming-{time.monotonic_ns()}"
        try:
            shot = snapshot(folder, patterns, staging, max_bytes, max_files)
            digest = shot.digest(salt)
            known = registry.with_hash(bot, digest)
            if known is None:
                number = registry.add(
                    bot, digest, manifest, folder, len(shot.entries), shot.size, status, claim
                )
                target = registry.folder(bot, number)
                target.parent.mkdir(parents=True, exist_ok=True)
                staging.rename(target)
                seal(target, {e.path for e in shot.entries if e.executable})
        finally:
            if staging.exists():
                unseal(staging)
                shutil.rmtree(staging)
    if known is not None:
        return Submitted(known, new=False)
    return Submitted(registry.get(f"{bot}@{number}"), new=True)


def run_gate(
    registry: Registry,
    ref: str,
    check_games: int = CHECK_GAMES,
    runtime_paths: tuple[str, ...] = (),
) -> Version:
    """Build and validate ``ref`` in this process; its final status. GateHostError (the
    version left ``waiting``) for this machine's failures."""
    version = build_step(registry, ref, runtime_paths)
    if version.status != "validating":
        return version
    return validate_step(registry, ref, check_games, runtime_paths)


def build_step(registry: Registry, ref: str, runtime_paths: tuple[str, ...] = ()) -> Version:
    """The build of ``ref`` (when its manifest has one): ``validating`` after it, or
    ``rejected`` with the first error line of its log."""
    version = registry.set_status(ref, "building")
    if not version.manifest.build:
        return registry.set_status(ref, "validating")
    with _host_failure_waits(registry, ref):
        log, how = build(registry, version, SandboxLimits(runtime_paths=runtime_paths))
    if how:
        reason = failure_reason(log, how)
        log += f"\n[arena: the build {how}]"
        return registry.set_status(ref, "rejected", reason, build_log=log)
    return registry.set_status(ref, "validating", build_log=log)


def validate_step(
    registry: Registry,
    ref: str,
    check_games: int = CHECK_GAMES,
    runtime_paths: tuple[str, ...] = (),
) -> Version:
    """The ``check-bot`` matches of ``ref``: ``active``, or ``rejected`` with their verdicts
    (or with the path its ``run`` names outside its folder, such as a link the build made)."""
    version = registry.set_status(ref, "validating")
    try:
        check_command(spec_of(version).argv(), version.folder, runtime_paths)
    except BotPathError as exc:
        return registry.set_status(ref, "rejected", f"run: {exc}")
    with _host_failure_waits(registry, ref):
        failed, report = validate(version, check_games, SandboxLimits(runtime_paths=runtime_paths))
    if failed:
        return registry.set_status(ref, "rejected", failed, validation=report)
    return registry.set_status(ref, "active", validation=report)


@contextlib.contextmanager
def _host_failure_waits(registry: Registry, ref: str) -> Iterator[None]:
    """A GateHostError leaves ``ref`` ``waiting`` with this machine's reason, then goes on up."""
    try:
        yield
    except GateHostError as exc:
        registry.set_status(ref, "waiting", str(exc))
        raise


def failure_reason(log: str, how: str) -> str:
    """Why a build failed, in one line: how it ended and the log's first error line (else its
    last line)."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    first = next((line for line in lines if ERROR_LINE.search(line)), lines[-1] if lines else "")
    reason = f"the build {how}" + (f": {first}" if first else " (it printed nothing)")
    return reason if len(reason) <= REASON_CHARS else reason[: REASON_CHARS - 3] + "..."


def build(registry: Registry, version: Version, limits: SandboxLimits) -> tuple[str, str]:
    """Run the manifest's build in the sandbox (shown ``limits.runtime_paths``) with write
    access to the version's folder; (its log's head and tail, how it failed: "" when it did
    not). The folder is sealed again whatever happened. The log is written outside every folder
    a build may write, so it is read by its path."""
    log_path = registry.log_path(version.name, version.number)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    folder = registry.folder(version.name, version.number)  # resolved: inside the registry
    argv = ["/bin/sh", "-c", version.manifest.build or ""]
    env = bot_environment({"HOME": "/tmp", "TMPDIR": "/tmp"})
    unseal(folder)
    try:
        try:
            proc = launch(argv, cwd=folder, env=env, log_path=log_path,
                          limits=replace(BUILD_LIMITS, runtime_paths=limits.runtime_paths),
                          writable=folder)  # fmt: skip
        except (HostError, SandboxError) as exc:
            message = f"{version.ref}: this machine could not start its build: {exc}"
            raise GateHostError(message) from None
        try:
            code = proc.exited_within(BUILD_TIMEOUT_S)
        finally:
            proc.kill()
    finally:
        seal(folder)
    log = proc.log_tail(REPORT_BYTES)  # never the whole file: a build may print 256 MB
    if code is None:
        return log, f"ran over {BUILD_TIMEOUT_S:.0f} s and was killed"
    if code != 0:
        return log, "failed with " + (f"signal {-code}" if code < 0 else f"exit status {code}")
    return log, ""


def validate(version: Version, games: int, limits: SandboxLimits) -> tuple[str, str]:
    """``check-bot`` on every game the version names (all installed ones when it names none),
    in the sandbox ``limits``; (the failed games' verdicts, empty when none failed; the reports
    one after the other)."""
    spec = replace(spec_of(version), name=version.ref, limits=limits)
    names = version.manifest.games or tuple(available_games())
    reports, failed = [], []
    for game_id in names:
        report = check_bot(load_game(game_id), spec, games=games)
        if any(is_host_void(r.void) for r in report.runs):
            raise GateHostError(
                f"{version.ref}: this machine could not start the bots to check it "
                f"(`arena sandbox probe` says more): {report.runs[-1].void}"
            )
        if busy := next((r.void for r in report.runs if is_load_void(r.void)), None):
            raise GateHostError(f"{version.ref}: this machine was too busy to check it: {busy}")
        if not report.clean:
            failed.append(f"{game_id}: {verdict(report)}")
        reports.append("\n".join(render(report)))
    return "; ".join(failed), "\n\n".join(reports)


def describe(manifest: Manifest) -> str:
    """One line for listings: language, transport, games."""
    games = ", ".join(manifest.games) or "every game"
    return f"{manifest.language}, {manifest.transport}, {games}"
