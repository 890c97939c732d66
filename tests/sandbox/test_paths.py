"""What a bot's sandbox may show: its own folder and the runtime (``arena/sandbox/paths.py``).

The rule on resolved paths, unit by unit; ``launch`` refusing at every level; a ladder file
whose bot names a file outside its folder refused at load with one line naming the key; the
manifest's ``run`` checked at submission; the organiser's ``runtime_paths`` validated; and the
JDK's configuration, which Debian keeps in /etc behind links, shown to a Java bot.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena import sandbox
from arena.ladder.config import LadderConfigError, load_ladder
from arena.ladder.executor import run_batch
from arena.registry.manifest import run_outside
from arena.sandbox import BotPathError, paths
from arena.sandbox.paths import inside, runtime_links, runtime_path_problem, view
from tests.registry.helpers import ARENA

PATH = os.environ.get("PATH")


@pytest.fixture
def folders(tmp_path: Path) -> Path:
    """``alice/`` (a bot: bot.py, run.sh, build/), ``bob/`` (another author's), ``secret.db``."""
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    for folder in (alice, bob, alice / "build"):
        folder.mkdir()
    (alice / "bot.py").write_text("print('alice')\n")
    (alice / "run.sh").write_text("#!/bin/sh\n")
    (alice / "run.sh").chmod(0o755)
    (alice / "build" / "Bot.class").write_bytes(b"")
    (bob / "bob.py").write_text("print('bob')\n")
    (tmp_path / "secret.db").write_text("every author's stderr\n")
    return tmp_path


def test_files_inside_the_folder_and_the_runtime_are_shown(folders: Path) -> None:
    alice = folders / "alice"
    seen = view(["./run.sh", "bot.py"], alice, PATH, alice)
    assert seen.program == str(alice / "run.sh")
    assert seen.binds == (alice,)
    classes = view(["java", "-cp", "build", "Bot"], alice, PATH, alice)  # a folder argument
    assert alice / "build" in classes.binds
    jar = view(["java", "-cp", "build:/usr/share", "Bot"], alice, PATH, alice)  # a class path
    assert jar.binds == (alice / "build",)
    python = view([sys.executable, "bot.py"], alice, PATH, alice)
    assert alice in python.binds and Path(sys.prefix) in python.binds
    assert view(["sh", "-c", "cat /etc/passwd"], alice, PATH, alice).binds == ()  # /usr only


@pytest.mark.parametrize(
    "argv",
    [
        ["./run.sh", "../bob/bob.py"],  # another author's code
        ["./run.sh", "../secret.db"],  # the competition's own files
        ["../bob/bob.py"],
        [sys.executable, "../bob/bob.py"],
        ["./run.sh", ".."],
        ["java", "-cp", "build:../bob", "Bot"],  # one entry of a class path
    ],
)
def test_anything_resolving_outside_the_folder_is_refused(folders: Path, argv: list[str]) -> None:
    alice = folders / "alice"
    with pytest.raises(BotPathError, match="outside the bot's folder"):
        view(argv, alice, PATH, alice)
    assert view(argv, alice, PATH, None).binds  # a command-line bot: its runner's own


def test_links_are_followed_before_the_check(folders: Path) -> None:
    """A build that made ``root -> /`` and runs ``root/tmp/...``; a script linked outside."""
    alice = folders / "alice"
    (alice / "root").symlink_to("/")
    (alice / "spy.py").symlink_to(folders / "bob" / "bob.py")
    for argv in (["./run.sh", "root/tmp"], ["python3", "root/etc/passwd"], ["python3", "spy.py"]):
        with pytest.raises(BotPathError, match="outside the bot's folder"):
            view(argv, alice, PATH, alice)


def test_launch_refuses_at_every_level_and_starts_nothing(folders: Path, tmp_path: Path) -> None:
    alice = folders / "alice"
    for level in sandbox.LEVELS:
        if not sandbox.probe().levels[level].works:
            continue
        with pytest.raises(BotPathError, match="outside the bot's folder"):
            sandbox.launch(["./run.sh", "../bob/bob.py"], cwd=alice, env={},
                           log_path=tmp_path / "log", level=level)  # fmt: skip
        assert not (tmp_path / "log").exists()


def test_a_manifest_run_naming_outside_is_refused_at_submission() -> None:
    for run in (
        ("./spy.sh", "../../alice-bot/1/alice.py"),
        ("./spy.sh", "../../../../mochi-open.db"),
        ("java", "-cp", "build:../../bob/1", "Bot"),
        ("./spy.sh", "--db=/work/comp/mochi-open.db"),
        ("/etc/passwd",),
    ):
        assert "folder" in run_outside(run), run
    for run in (("python", "bot.py"), ("/usr/bin/java", "-cp", "build", "Bot"), ("./b",)):
        assert run_outside(run) == "", run


def test_runtime_paths_are_checked(folders: Path) -> None:
    private = [folders]
    assert "absolute" in runtime_path_problem("opt/jdk", private)
    assert "no such" in runtime_path_problem("/nonexistent/jdk", private)
    assert "would show" in runtime_path_problem(str(folders / "alice"), private)  # inside
    assert "would show" in runtime_path_problem("/", private)  # holding it
    assert runtime_path_problem("/usr/share", private) == ""


def _ladder(folder: Path, bot: str, extra: str = "") -> Path:
    random = Path(__file__).resolve().parents[2] / "sample_bots/python/random_bot.py"
    path = folder / "l.toml"
    top = f'game = "happy_mochi"\nseats = 2\n{extra}\n'
    path.write_text(f'{top}[[bots]]\nname = "r"\ncommand = "python {random}"\n{bot}\n')
    return path


def test_a_ladder_bot_naming_a_file_outside_its_folder_is_refused(folders: Path) -> None:
    (folders / "alice" / "link.py").symlink_to(folders / "bob" / "bob.py")
    for command in ("python ../bob/bob.py", "python link.py"):
        path = _ladder(folders, f'[[bots]]\nname = "a"\ncwd = "alice"\ncommand = "{command}"')
        with pytest.raises(LadderConfigError) as caught:
            load_ladder(path)
        assert "bots[1].command" in str(caught.value)
        assert "outside the bot's folder" in str(caught.value)
        done = subprocess.run([ARENA, "ladder", "run", str(path)], capture_output=True, text=True)
        assert done.returncode == 2
        assert done.stderr.startswith("arena: error: ") and "bots[1].command" in done.stderr
        assert not (folders / "l.db").exists()
    fine = _ladder(folders, '[[bots]]\nname = "a"\ncwd = "alice"\ncommand = "python bot.py"')
    assert [b.name for b in load_ladder(fine).bots] == ["r", "a"]


def test_a_ladder_checks_its_runtime_paths(folders: Path) -> None:
    bot = '[[bots]]\nname = "a"\ncwd = "alice"\ncommand = "python bot.py"'
    for value, message in (
        ('["usr/lib"]', "must be absolute"),
        (f'["{folders}"]', "would show"),
        ('["/nonexistent"]', "no such file"),
        ('"/usr"', "expected an array of strings"),
    ):
        with pytest.raises(LadderConfigError, match=message) as caught:
            load_ladder(_ladder(folders, bot, f"runtime_paths = {value}"))
        assert "runtime_paths" in str(caught.value)
    cfg = load_ladder(_ladder(folders, bot, 'runtime_paths = ["/usr/share/doc"]'))
    assert cfg.sandbox_limits.runtime_paths == ("/usr/share/doc",)


def test_a_runtime_path_is_shown_to_the_bot(folders: Path, tmp_path: Path) -> None:
    sandbox.probe()
    if sandbox.LEVEL != "bwrap":
        pytest.skip("only bwrap gives a bot a view of its own")
    extra = folders / "runtime"
    extra.mkdir()
    (extra / "tool.txt").write_text("from the runtime\n")
    alice = folders / "alice"
    for path in (folders, extra, alice):
        path.chmod(0o755)
    (alice / "run.sh").write_text(f"#!/bin/sh\ncat {extra}/tool.txt\n")
    for runtime, expected in (((), "No such file"), ((str(extra),), "from the runtime")):
        limits = sandbox.SandboxLimits(runtime_paths=runtime)
        log = tmp_path / "log"
        proc = sandbox.launch(["./run.sh"], cwd=alice, env=sandbox.bot_environment({}),
                              log_path=log, limits=limits)  # fmt: skip
        proc.exited_within(30)
        proc.kill()
        assert expected in log.read_text()


@pytest.mark.skipif(shutil.which("java") is None, reason="no JDK installed")
def test_the_jdk_configuration_behind_links_is_part_of_the_runtime() -> None:
    real = Path(os.path.realpath(shutil.which("java") or ""))
    security = real.parent.parent / "conf" / "security" / "java.security"
    if not security.is_symlink():
        pytest.skip(f"{security} is not a link out of the JDK here")
    target = Path(os.path.realpath(security))
    assert any(inside(target, p) for p in runtime_links(PATH))
    assert all(len(p.parts) >= 3 for p in runtime_links(PATH))  # never /etc or / whole


def test_runtime_links_learned_from_the_runner_are_not_walked_again(monkeypatch) -> None:
    """A local worker takes what its runner found (``run_batch``): the same links, no walk."""
    found = runtime_links(PATH)
    monkeypatch.setattr(paths, "_RUNTIME_LINKS", {})
    monkeypatch.setattr(paths, "_find_runtime_links", lambda _: pytest.fail("walked again"))
    assert run_batch([], {PATH: found}) == []
    assert runtime_links(PATH) == found
