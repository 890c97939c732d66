"""Containment of paths made from author input, and reads that never follow a bot's link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.paths import (
    PathError,
    component,
    contained,
    escaping_link,
    is_inside,
    open_beneath,
    read_beneath,
)
from arena.registry.content import program_files
from arena.registry.store import Registry, RegistryError


@pytest.mark.parametrize("part", ["", ".", "..", "a/b", "/etc", "a\0b", "x" * 256])
def test_a_part_must_be_one_plain_component(part: str) -> None:
    with pytest.raises(PathError):
        component(part)


def test_contained_paths_stay_inside_their_root_once_resolved(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "bots").mkdir(parents=True)
    assert contained(root, "bots", "alice", "1") == root / "bots" / "alice" / "1"
    (root / "bots" / "out").symlink_to(tmp_path)  # a link made inside leads out
    with pytest.raises(PathError, match="leads outside"):
        contained(root, "bots", "out", "1")
    assert is_inside(root, root) and not is_inside(root, root / "bots" / "out")


def test_registry_paths_are_made_of_checked_names_only(tmp_path: Path) -> None:
    with Registry(tmp_path / "registry") as registry:
        assert registry.folder("alice", 3) == registry.root / "bots" / "alice" / "3"
        assert registry.log_path("alice", 3) == registry.root / "logs/alice/3/build.log"
        for name in ("..", ".", "a/../.."):
            with pytest.raises(RegistryError, match="a registry path refused"):
                registry.folder(name, 1)
            with pytest.raises(RegistryError, match="a registry path refused"):
                registry.log_path(name, 1)


def test_a_link_chain_that_reads_as_inside_but_climbs_out_is_found(tmp_path: Path) -> None:
    root = tmp_path / "upload"
    root.mkdir()
    os.symlink(".", root / "l")
    os.symlink("l/..", root / "m")  # reads as ".", is the folder above
    os.symlink("m/etc/passwd", root / "arena-bot.toml")
    os.symlink("bot.py", root / "fine")
    assert escaping_link(root, ["fine", "l"]) is None
    assert escaping_link(root, ["fine", "l", "m", "arena-bot.toml"]) == "m"
    assert escaping_link(root, ["arena-bot.toml"]) == "arena-bot.toml"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A folder with a file, a link to a secret, a link to a folder, a fifo and a device link."""
    secret = tmp_path / "secret.txt"
    secret.write_text("HOST-SECRET")
    secret.chmod(0o600)
    root = tmp_path / "bot"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "ok.txt").write_text("mine")
    os.symlink(secret, root / "build.log")
    os.symlink("ok.txt", root / "sub" / "inner-link")  # a link even when it leads inside
    os.symlink(tmp_path, root / "up")
    os.symlink("/dev/zero", root / "zero")
    os.mkfifo(root / "fifo")
    return root


def test_reads_beneath_a_root_never_follow_a_link_nor_open_a_special_file(tree: Path) -> None:
    assert read_beneath(tree, "sub/ok.txt", 100) == b"mine"
    for rel in ("build.log", "up/secret.txt", "sub/inner-link", "zero"):
        with pytest.raises(PathError, match="a symbolic link or not a regular file: refused"):
            open_beneath(tree, rel)
    with pytest.raises(PathError, match="fifo: not a regular file: refused"):
        open_beneath(tree, "fifo")  # refused at once: nobody ever writes to it
    with pytest.raises(FileNotFoundError):
        open_beneath(tree, "missing.txt")
    (tree / "big").write_bytes(bytes(2000))
    with pytest.raises(PathError, match="big: over 1 KiB: refused"):
        read_beneath(tree, "big", 1024)


def test_program_files_hashes_no_file_through_a_link_below_the_bots_folder(tree: Path) -> None:
    """A build could have left ``bot.py -> /the/secret``: the ladder's change detection must
    not read it (nor hang on ``/dev/zero``)."""
    assert program_files(["python", "build.log"], tree) == {}
    assert program_files(["python", "up/secret.txt"], tree) == {}
    assert program_files(["python", "zero"], tree) == {}
    assert program_files(["python", "fifo"], tree) == {}
    assert list(program_files(["python", "sub/ok.txt"], tree)) == ["sub/ok.txt"]
