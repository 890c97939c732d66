"""Submitting a bot: copy, hash, build in the sandbox, validate with ``check-bot``, activate.

Every version passes the same gate, in this order, and its outcome is stored with it:

1. the folder is copied into the registry and hashed as it is copied (``content.py``); the
   same content as an existing version of the bot is that version, nothing new is made;
2. the manifest's ``build`` runs once, in the sandbox bots play in (no network, the bot's CPU,
   memory and process limits, ``BUILD_TIMEOUT_S`` of wall clock), with write access to its own
   folder only; its whole log is kept, and a failure rejects the version with the log's tail;
3. the built version plays the ``check-bot`` matches of every game it names; any protocol
   problem rejects it with the validator's report;
4. otherwise it is ``active``, and the folder is sealed read-only.

A failure of this machine (no sandbox, a cgroup or uid that cannot be made) is not the bot's:
the version stays where it was, and submitting the same folder again runs its gate again.
"""

from __future__ import annotations

import json
import select
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from arena.games import available_games, load_game
from arena.match.bots import BotSpec
from arena.match.check_bot import check_bot, render, verdict
from arena.match.results import is_host_void
from arena.paths import PathError
from arena.registry.content import MAX_BYTES, MAX_FILES, seal, snapshot, unseal
from arena.registry.manifest import Manifest, pick
from arena.registry.store import Registry, Version
from arena.sandbox import (
    BotPathError,
    HostError,
    SandboxError,
    SandboxLimits,
    bot_environment,
    check_command,
    clean_output,
    launch,
)

BUILD_TIMEOUT_S = 600.0
BUILD_LIMITS = SandboxLimits(memory_mb=2048, cpu_s=600, cpus=1, file_mb=256, tmp_mb=512)
LOG_TAIL_LINES = 30
CHECK_GAMES = 3  # check-bot matches per game: the bot sits in each of 3 seats once


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
    """Store ``folder`` as a new version (or find it stored) and run its gate; ``claim``: see
    :meth:`Registry.add`; its build and checks are shown ``runtime_paths`` beside the system's
    runtime (the competition's)."""
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
                    bot, digest, manifest, folder, len(shot.entries), shot.size, claim=claim
                )
                target = registry.folder(bot, number)
                target.parent.mkdir(parents=True, exist_ok=True)
                staging.rename(target)
                seal(target, {e.path for e in shot.entries if e.executable})
        finally:
            if staging.exists():
                unseal(staging)
                shutil.rmtree(staging)
    if known is not None and known.status not in ("building", "validating"):
        return Submitted(known, new=False)
    ref = known.ref if known is not None else f"{bot}@{number}"
    gate = run_gate(registry, ref, check_games, runtime_paths)
    return Submitted(gate, new=known is None)


def run_gate(
    registry: Registry,
    ref: str,
    check_games: int = CHECK_GAMES,
    runtime_paths: tuple[str, ...] = (),
) -> Version:
    """Build and validate ``ref``; its final status. GateHostError for this machine's failures."""
    limits = SandboxLimits(runtime_paths=runtime_paths)
    version = registry.set_status(ref, "building")
    if version.manifest.build:
        ok, log = build(registry, version, limits)
        tail = "\n".join(log.splitlines()[-LOG_TAIL_LINES:])
        if not ok:
            return registry.set_status(ref, "rejected", tail, build_log=log)
        version = registry.set_status(ref, "validating", build_log=log)
    else:
        version = registry.set_status(ref, "validating")
    try:  # what the build made may lead out of the folder (a link to /): refused by name
        check_command(spec_of(version).argv(), version.folder, runtime_paths)
    except BotPathError as exc:
        return registry.set_status(ref, "rejected", f"run: {exc}")
    failed, report = validate(version, check_games, limits)
    if failed:
        return registry.set_status(ref, "rejected", failed, validation=report)
    return registry.set_status(ref, "active", validation=report)


def build(registry: Registry, version: Version, limits: SandboxLimits) -> tuple[bool, str]:
    """Run the manifest's build in the sandbox with write access to the version's folder;
    (succeeded, its log). The folder is sealed again whatever happened."""
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
            ready, _, _ = select.select([proc.pidfd], [], [], BUILD_TIMEOUT_S)
            code = proc.poll()
        finally:
            proc.kill()
    finally:
        seal(folder)
    try:  # never through a link, should the build have reached its log
        with registry.open_log(version.name, version.number) as f:
            log = clean_output(f.read().decode("utf-8", errors="replace"))
    except PathError as exc:
        log = f"[arena: the build's log was refused: {exc}]"
    if not ready or code is None:
        return False, f"{log}\n[arena: the build ran over {BUILD_TIMEOUT_S:.0f} s and was killed]"
    if code != 0:
        how = f"signal {-code}" if code < 0 else f"exit status {code}"
        return False, f"{log}\n[arena: the build failed with {how}]"
    return True, log


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
        if not report.clean:
            failed.append(f"{game_id}: {verdict(report)}")
        reports.append("\n".join(render(report)))
    return "; ".join(failed), "\n\n".join(reports)


def describe(manifest: Manifest) -> str:
    """One line for listings: language, transport, games."""
    games = ", ".join(manifest.games) or "every game"
    return f"{manifest.language}, {manifest.transport}, {games}"
