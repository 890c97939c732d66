"""Where match folders are made: on a tmpfs when there is one, in ``TMPDIR`` when the organiser
set it, else on disk and said so. Each is checked with real matches where a bot's socket lives
in the folder."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.games import load_game
from arena.match.bots import parse_bot
from arena.match.referee import play_match
from arena.sandbox import workdirs

from .conftest import ROOT

GAME = load_game("happy_mochi")
RANDOM = ROOT / "sample_bots/python/random_bot.py"


@pytest.fixture
def fresh_base(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``match_base`` chosen anew for the test, with ``TMPDIR`` unset as on most hosts."""
    monkeypatch.delenv("TMPDIR")
    monkeypatch.setattr(tempfile, "tempdir", None)
    workdirs.match_base.cache_clear()
    yield
    workdirs.match_base.cache_clear()


def folders_in(base: Path) -> set[Path]:
    """This process's match folders in ``base`` (other test workers make theirs beside)."""
    return set(base.glob(f"{workdirs.PREFIX}{os.getpid()}-*"))


def zmq_match() -> None:
    """A match whose bots reach the referee through ipc sockets in the match folder."""
    bots = [parse_bot(f"p{i}=zmq:python {RANDOM} --seed {i}", ROOT) for i in range(2)]
    result = play_match(GAME, bots, 3, {"max_rounds": 1})
    assert result.void is None and [s.status for s in result.seats] == ["ok", "ok"], result


def test_match_folders_go_to_a_tmpfs_and_are_removed(
    fresh_base: None, capsys: pytest.CaptureFixture[str]
) -> None:
    base = workdirs.match_base()
    if base not in workdirs.tmpfs_candidates():
        pytest.skip(f"no writable tmpfs here (match folders in {base})")
    assert workdirs.filesystem(base) == "tmpfs"
    before = folders_in(base)
    with workdirs.match_directory() as folder:
        assert folder.parent == base and folder.name.startswith(workdirs.PREFIX)
    zmq_match()
    assert folders_in(base) == before  # nothing left behind
    assert "note" not in capsys.readouterr().err


def test_without_a_tmpfs_the_folders_go_to_disk_and_that_is_said(
    fresh_base: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    missing, on_disk = tmp_path / "no-such-runtime-dir", Path(__file__).parent
    monkeypatch.setattr(workdirs, "tmpfs_candidates", lambda: [missing, on_disk])
    if workdirs.filesystem(on_disk) == "tmpfs":
        pytest.skip("the checkout is on a tmpfs: nothing here is on disk")
    base = workdirs.match_base()
    assert base == Path(tempfile.gettempdir())
    err = capsys.readouterr().err
    assert err.startswith(f"arena: note: match folders are made in {base}: no writable tmpfs")
    assert str(missing) in err
    workdirs.match_base()
    assert capsys.readouterr().err == ""  # said once per process


def test_tmpdir_set_by_the_organiser_is_used_as_it_is() -> None:
    """The suite sets ``TMPDIR`` to a private folder (tests/conftest.py), as an organiser may."""
    workdirs.match_base.cache_clear()
    chosen = Path(os.environ["TMPDIR"])
    assert workdirs.match_base() == chosen
    mine = f"{workdirs.PREFIX}{os.getpid()}-*"
    zmq_match()
    assert set(chosen.glob(mine)) == set()


def test_the_filesystem_of_a_path_is_its_deepest_mount() -> None:
    assert workdirs.filesystem(Path("/proc/self")) == "proc"
    assert workdirs.filesystem(Path("/")) != ""
