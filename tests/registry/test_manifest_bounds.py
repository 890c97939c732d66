"""Every field of a manifest is bounded, and the file as a whole; it is never read through a
link; a value quoted in an error is cut short."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.registry.manifest import MAX_MANIFEST_BYTES, ManifestError, read_manifests

GOOD = 'name = "alice"\nlanguage = "python"\nrun = "python bot.py"\n'


def _refused(folder: Path, text: str) -> str:
    folder.mkdir(exist_ok=True)
    (folder / "arena-bot.toml").write_text(text)
    with pytest.raises(ManifestError) as caught:
        read_manifests(folder)
    return str(caught.value).removeprefix(f"{folder}/arena-bot.toml: ")


def test_every_field_is_bounded(tmp_path: Path) -> None:
    assert [b.name for b in read_manifests(_write(tmp_path / "ok", GOOD))] == ["alice"]
    cases = [
        (GOOD.replace("python", "p" * 101, 1), "language: at most 100 characters, got 101"),
        (GOOD + f'build = "{"m" * 4001}"\n', "build: at most 4000 characters, got 4001"),
        (GOOD + f"files = {[f'f{i}' for i in range(65)]}\n".replace("'", '"'),
         "files: at most 64 entries, got 65"),
        (GOOD + f'files = ["{"f" * 256}"]\n', "files: 'ffffffffffffffffffffffffffff"),
        ("".join(f'[[bot]]\nname = "b{i}"\nlanguage = "x"\nrun = "x"\n' for i in range(65)),
         "bot: at most 64 bots in one manifest"),
        (GOOD + "#" * MAX_MANIFEST_BYTES, "over 64 KiB: refused"),
        (GOOD.replace('"alice"', f'"{"a" * 5000}"'), "name: expected 1-48 ASCII letters"),
    ]  # fmt: skip
    for i, (text, error) in enumerate(cases):
        message = _refused(tmp_path / str(i), text)
        assert message.startswith(error), message
        assert len(message) < 300


def test_a_manifest_that_is_a_link_is_refused_whatever_it_points_to(tmp_path: Path) -> None:
    real = _write(tmp_path / "real", GOOD)
    folder = tmp_path / "linked"
    folder.mkdir()
    os.symlink(real / "arena-bot.toml", folder / "arena-bot.toml")
    with pytest.raises(ManifestError, match="a symbolic link or not a regular file: refused"):
        read_manifests(folder)


def _write(folder: Path, text: str) -> Path:
    folder.mkdir()
    (folder / "arena-bot.toml").write_text(text)
    return folder
