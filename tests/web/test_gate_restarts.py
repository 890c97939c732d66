"""The gate when the host fails: a real ``arena serve`` killed with SIGKILL in the middle of a
real build, and a real host whose bot uids are all taken (``tests/broken_hosts.py``). Neither
is the bot's fault: its version is ``waiting`` (never ``rejected``), its folder is sealed
again, the same content is not refused as ``unchanged``, and ``arena bot recheck`` (over HTTP
by its author, or on the registry by the organiser) runs its gate again once the host is
fixed."""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from arena import sandbox
from arena.registry.store import Registry
from arena.web.competition import load_competition
from arena.web.gates import UPLOADS
from tests.broken_hosts import run_cli, taken_uids
from tests.registry.helpers import arena, bot_folder
from tests.web.competitions import author_token, write_competition
from tests.web.servers import Serve, group_alive, until

# The first build sleeps (and is killed); a build run again finds its mark and finishes.
ONCE = "if [ -e started ]; then echo built again; else touch started; sleep 600; fi"


def _status(registry: Path, ref: str) -> tuple[str, str]:
    with Registry(registry) as reg:
        version = reg.get(ref)
    return version.status, version.reason


def test_sigkill_during_a_build_leaves_the_version_waiting_and_sealed_after_restart(
    tmp_path: Path, served: Serve
) -> None:
    path = write_competition(tmp_path / "comp", house=2)
    token = author_token(path, "alice")
    registry = load_competition(path).registry
    proc, url = served(path, "--no-ladder")
    sent = arena("bot", "submit", str(bot_folder(tmp_path / "alice", "alice", build=ONCE)),
                 "--server", url, "--token", token, "--timeout", "1")  # fmt: skip
    assert sent.returncode == 4, sent.stderr  # still building when --timeout ran out
    assert re.search(r"alice@1 is still (queued|building) after 1 s", sent.stderr), sent.stderr
    folder = registry / "bots" / "alice" / "1"
    until(lambda: (folder / "started").exists(), what="the build to run")
    # What a killed server leaves besides: an upload being unpacked, a version being copied.
    dead = subprocess.Popen(["true"])
    dead.wait()
    leftovers = [registry / UPLOADS / f"{dead.pid}-x1y2", registry / "incoming-123"]
    for leftover in leftovers:
        leftover.mkdir(parents=True)
        (leftover / "bot.py").write_text("half a bot")
    mine = registry / UPLOADS / f"{os.getpid()}-alive"  # a live process's upload: kept
    mine.mkdir()

    os.killpg(proc.pid, signal.SIGKILL)  # the server and its gate process, at once
    proc.wait()
    until(lambda: not group_alive(proc.pid), what="the server's processes to die")
    assert _status(registry, "alice@1")[0] == "building"
    if os.geteuid() == 0 and sandbox.probe().has("uid"):  # the build ran as a bot uid
        assert folder.stat().st_uid != os.getuid()

    _, url = served(path, "--no-ladder")
    status, reason = _status(registry, "alice@1")
    assert status == "waiting"
    assert "its gate was cut short (the server stopped)" in reason
    assert "not the bot's fault" in reason and "arena bot recheck alice@1" in reason
    for path_ in [folder, *folder.rglob("*")]:  # sealed: the server's, read-only
        info = path_.lstat()
        assert info.st_uid == os.getuid(), path_
        assert not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH), path_
    assert not any(leftover.exists() for leftover in leftovers)
    assert mine.exists()

    again = arena("bot", "recheck", "alice@1", "--server", url, "--token", token)
    assert again.returncode == 0, again.stderr
    assert "alice@1: queued" in again.stdout and "alice@1: active" in again.stdout
    assert _status(registry, "alice@1") == ("active", "")


def test_a_host_that_cannot_run_builds_blames_no_bot_and_the_version_is_checked_again(
    tmp_path: Path, served: Serve
) -> None:
    if not sandbox.probe().has("uid"):
        pytest.skip("no bot uids here")
    path = write_competition(tmp_path / "comp", house=2)
    token = author_token(path, "alice")
    registry = load_competition(path).registry
    folder = bot_folder(tmp_path / "alice", "alice", build="echo building")
    with taken_uids(tmp_path) as env:  # every bot uid taken: no build can start
        proc, url = served(path, "--no-ladder", env=env)
        sent = arena("bot", "submit", str(folder), "--server", url, "--token", token)
        assert sent.returncode == 3, sent.stdout + sent.stderr
        assert "alice@1: stored" in sent.stdout
        assert "no free bot uid" in sent.stderr and "rejected" not in sent.stderr
        assert _status(registry, "alice@1")[0] == "waiting"
        # The same content again is not "unchanged ... rejected": its gate runs again.
        sent = arena("bot", "submit", str(folder), "--server", url, "--token", token)
        assert sent.returncode == 3, sent.stdout + sent.stderr
        assert "alice@1: unchanged" in sent.stdout and "alice@1: queued" in sent.stdout
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        until(lambda: not group_alive(proc.pid), what="the server's processes to die")
        # The organiser's own command on the registry, host still broken: waiting again.
        local = run_cli(Path(sys.executable), "bot", "recheck", "alice@1", "--registry",
                        str(registry), env=env)  # fmt: skip
        assert local.returncode == 3 and "no bot was blamed" in local.stderr, local.stderr
    assert _status(registry, "alice@1")[0] == "waiting"

    # The host fixed: the author's recheck over HTTP gets it through.
    _, url = served(path, "--no-ladder")
    again = arena("bot", "recheck", "alice@1", "--server", url, "--token", token)
    assert again.returncode == 0, again.stdout + again.stderr
    assert _status(registry, "alice@1") == ("active", "")
    refused = arena("bot", "recheck", "alice@1", "--server", url, "--token", token)
    assert refused.returncode == 2
    assert "alice@1 is active: only a waiting or rejected version" in refused.stderr
