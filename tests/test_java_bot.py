"""The Java sample bot as a JVM author uses it, with the real ``arena`` command: ``check-bot``,
a ladder of its own, and the registry's gate compiling it with ``javac`` in the sandbox. (Its
games against the other sample bots are in ``test_sample_bots.py``; a submission through a real
``arena serve`` in ``tests/web/test_bot_sandbox.py``.) The JDK reads its settings from
``/etc/java-17-openjdk`` through links, which the sandbox shows (``arena/sandbox/paths.py``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.registry.helpers import ROOT, arena

JAVA = ROOT / "sample_bots" / "java"
PYTHON_BOT = "sample_bots/python/random_bot.py"

pytestmark = pytest.mark.skipif(
    not (JAVA / "build" / "RandomBot.class").is_file() or shutil.which("javac") is None,
    reason="the Java sample bot is not built: `make bots` (needs a JDK: install-system-deps)",
)


def test_check_bot_passes() -> None:
    done = arena("check-bot", "happy_mochi", "--bot",
                 "stdio:java -cp sample_bots/java/build RandomBot", "--games", "2")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "check-bot: ok" in done.stdout
    assert "java.security" not in done.stdout + done.stderr


def test_a_ladder_of_java_bots_runs_from_their_folder(tmp_path: Path) -> None:
    bots = "".join(
        f'[[bots]]\nname = "java-{seed}"\ncwd = "{JAVA}"\ntransport = "stdio"\n'
        f'command = "java -cp build RandomBot --seed {seed}"\n'
        for seed in (1, 2)
    )
    ladder = tmp_path / "java.toml"
    ladder.write_text(
        'game = "mai_star"\nseats = 3\nrounds = 1\nseed = 4\n'
        "[limits]\ninit_ms = 20000\nmove_ms = 5000\n"
        f'{bots}[[bots]]\nname = "python"\ncommand = "python {ROOT / PYTHON_BOT}"\n'
    )
    done = arena("ladder", "run", str(ladder), "-q")
    assert done.returncode == 0, done.stderr
    table = arena("ladder", "show", str(ladder))
    assert table.returncode == 0, table.stderr
    for name in ("java-1", "java-2", "python"):
        assert name in table.stdout


@pytest.mark.timeout(600)  # a build and a JVM per check-bot match of every game, on a busy host
def test_the_registry_gate_compiles_it_in_the_sandbox(tmp_path: Path) -> None:
    folder = tmp_path / "java"
    shutil.copytree(JAVA, folder, ignore=shutil.ignore_patterns("build"))
    registry = tmp_path / "registry"
    done = arena("bot", "submit", str(folder), "--registry", str(registry), "--check-games", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    shown = arena("bot", "show", "java_random", "--registry", str(registry))
    assert "active" in shown.stdout, shown.stdout + shown.stderr
    assert not (folder / "build").exists()  # built in the registry's copy, not the author's
