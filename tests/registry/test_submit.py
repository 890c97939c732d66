"""Submitting bots: real folders, the real sandbox builds and real check-bot matches."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from arena.registry.content import ContentError, snapshot
from arena.registry.gate import submit
from arena.registry.store import Registry, RegistryError
from tests.registry.helpers import ILLEGAL_BOT, arena, bot_folder


@pytest.fixture
def registry(tmp_path: Path) -> Registry:
    with Registry(tmp_path / "registry") as reg:
        yield reg


def test_same_folder_twice_is_one_version_and_one_byte_more_is_another(
    registry: Registry, tmp_path: Path
) -> None:
    folder = bot_folder(tmp_path / "alice")
    first = submit(registry, folder, check_games=1)
    assert first.new and first.version.ref == "alice@1" and first.version.status == "active"
    again = submit(registry, folder, check_games=1)
    assert not again.new and again.version.ref == "alice@1"
    (folder / "bot.py").write_text((folder / "bot.py").read_text() + "#")
    changed = submit(registry, folder, check_games=1)
    assert changed.new and changed.version.ref == "alice@2"
    assert changed.version.hash != first.version.hash
    assert [v.ref for v in registry.versions("alice")] == ["alice@1", "alice@2"]
    assert registry.active("alice").ref == "alice@2"
    # What is stored is what plays: a read-only copy, not the author's folder.
    stored = first.version.folder / "bot.py"
    assert stored.read_text() != (folder / "bot.py").read_text()
    assert not stored.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    assert not first.version.folder.stat().st_mode & stat.S_IWUSR


def test_a_mode_change_alone_is_a_new_version(registry: Registry, tmp_path: Path) -> None:
    folder = bot_folder(tmp_path / "alice")
    before = snapshot(folder).digest()
    (folder / "bot.py").chmod(0o755)
    assert snapshot(folder).digest() != before


def test_failing_build_is_rejected_with_its_log(registry: Registry, tmp_path: Path) -> None:
    folder = bot_folder(tmp_path / "bob", name="bob", build="echo compiling bob; exit 3")
    version = submit(registry, folder, check_games=1).version
    assert version.status == "rejected"
    assert "compiling bob" in version.reason and "exit status 3" in version.reason
    reports = registry.reports(version.ref)
    assert "compiling bob" in reports.build_log
    assert reports.validation == ""  # never played
    shown = arena("bot", "show", "bob@1", "--registry", str(registry.root))
    assert shown.returncode == 0 and "rejected" in shown.stdout and "compiling bob" in shown.stdout


def test_build_writes_its_own_folder_only_and_has_no_network(
    registry: Registry, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o777)
    build = (
        f"echo built > made.txt && ! touch {outside}/escaped && "
        "! python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 53), 2)'"
    )
    folder = bot_folder(tmp_path / "carol", name="carol", build=build)
    version = submit(registry, folder, check_games=1).version
    assert version.status == "active", version.reason
    assert (version.folder / "made.txt").read_text() == "built\n"
    # seccomp refuses the socket (or, without it, the empty network namespace has no route)
    log = registry.reports(version.ref).build_log
    assert "socket" in log and ("Permission denied" in log or "unreachable" in log), log
    assert not (outside / "escaped").exists()
    made = (version.folder / "made.txt").stat()
    assert made.st_uid == os.getuid() and not made.st_mode & stat.S_IWUSR


def test_bot_failing_validation_is_rejected_with_the_report(
    registry: Registry, tmp_path: Path
) -> None:
    folder = bot_folder(tmp_path / "dave", name="dave", source=ILLEGAL_BOT)
    version = submit(registry, folder, check_games=1).version
    assert version.status == "rejected"
    assert "happy_mochi" in version.reason and "illegal_action" in version.reason
    validation = registry.reports(version.ref).validation
    assert "illegal_action" in validation and "bot sent" in validation
    with pytest.raises(RegistryError, match="no active version"):
        registry.active("dave")


def test_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path / "eve", name="eve")
    (folder / "secrets").symlink_to("/etc/passwd")
    out = arena("bot", "submit", str(folder), "--registry", str(tmp_path / "reg"))
    assert out.returncode == 2
    assert out.stderr.startswith("arena: error: ") and "points outside" in out.stderr
    assert str(folder / "secrets") in out.stderr
    (folder / "secrets").unlink()
    (folder / "up").symlink_to("../../..")
    with pytest.raises(ContentError, match="points outside"):
        snapshot(folder)
    (folder / "up").unlink()
    (folder / "inner").symlink_to("bot.py")  # inside the folder: kept as a link
    assert {e.path: e.kind for e in snapshot(folder).entries}["inner"] == "link"
    (folder / "s").symlink_to(".")  # each link's text stays inside; the chain climbs out
    (folder / "d1" / "d2").mkdir(parents=True)
    (folder / "d1" / "d2" / "t").symlink_to("../../s/../etc")
    with pytest.raises(ContentError, match="outside the bot folder through other links"):
        snapshot(folder)
    with pytest.raises(ContentError, match="through other links"):
        snapshot(folder, dest=tmp_path / "copy")


def test_oversized_folder_and_too_many_files_and_fifos_are_refused(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path / "fat", name="fat")
    (folder / "weights.bin").write_bytes(os.urandom(3 << 20))
    out = arena("bot", "submit", str(folder), "--registry", str(tmp_path / "reg"), "--max-mb", "2")
    assert out.returncode == 2 and "more than 2 MiB" in out.stderr, out.stderr
    (folder / "weights.bin").unlink()
    for i in range(5):
        (folder / f"f{i}.txt").write_text("x")
    with pytest.raises(ContentError, match="more than 4 files"):
        snapshot(folder, max_files=4)
    os.mkfifo(folder / "pipe")
    with pytest.raises(ContentError, match="not a regular file"):
        snapshot(folder)
    assert not (tmp_path / "reg" / "bots" / "fat").exists()


def test_list_show_and_retire(registry: Registry, tmp_path: Path) -> None:
    folder = bot_folder(tmp_path / "fay", name="fay")
    reg = ["--registry", str(registry.root)]
    out = arena("bot", "submit", str(folder), "--check-games", "1", *reg)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("fay@1: stored (2 files, ")
    listed = arena("bot", "list", *reg).stdout
    assert "fay@1" in listed and "active" in listed
    assert "check-bot: ok" in arena("bot", "show", "fay", *reg).stdout
    assert arena("bot", "retire", "fay@1", *reg).stdout == "fay@1: retired\n"
    assert registry.get("fay@1").status == "retired"
    again = arena("bot", "retire", "fay", *reg)
    assert again.returncode == 2 and "nothing to retire" in again.stderr
    missing = arena("bot", "show", "nobody@3", *reg)
    assert missing.returncode == 2 and "no bot named 'nobody'" in missing.stderr
