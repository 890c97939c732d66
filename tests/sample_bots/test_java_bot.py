"""The Java sample bot as a JVM author uses it, with the real ``arena`` command: ``check-bot``,
a ladder of its own, and the registry's gate compiling it with ``javac`` in the sandbox. (Its
games against the other sample bots are in ``test_sample_bots.py``; a submission through a real
``arena serve`` in ``tests/web/test_bot_sandbox.py``.) The JDK reads its settings from
``/etc/java-17-openjdk`` through links, which the sandbox shows (``arena/sandbox/paths.py``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena.games import load_game
from arena.match.bots import parse_bot
from arena.match.referee import play_match
from arena.match.results import Limits
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


JZMQ_JAR, JZMQ_JNI = Path("/usr/share/java/zmq.jar"), Path("/usr/lib/x86_64-linux-gnu/jni")
JZMQ_HELLO = """
import org.zeromq.ZMQ;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

public final class Hello {
    static void str(ByteArrayOutputStream o, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        o.write(0xd9); o.write(b.length); o.write(b, 0, b.length);
    }
    public static void main(String[] args) {
        ZMQ.Socket s = ZMQ.context(1).socket(ZMQ.DEALER);
        s.connect(System.getenv("ARENA_ENDPOINT"));
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.write(0x85);  // a msgpack map of 5: the hello of PROTOCOL.md 5.1, packed by hand
        str(o, "v"); o.write(1);
        str(o, "type"); str(o, "hello");
        str(o, "versions"); o.write(0x91); o.write(1);
        str(o, "token"); str(o, System.getenv("ARENA_TOKEN"));
        str(o, "name"); str(o, "jzmq");
        s.send(o.toByteArray(), 0);
        String welcome = new String(s.recv(0), StandardCharsets.ISO_8859_1);
        System.err.println("JZMQ " + (welcome.contains("welcome") ? "welcomed" : "other"));
        System.exit(3);
    }
}
"""


@pytest.mark.skipif(not JZMQ_JAR.is_file(), reason="jzmq missing (libzmq-java, libzmq-jni)")
def test_the_libzmq_binding_advised_for_the_jvm_reaches_the_referee(tmp_path: Path) -> None:
    """PROTOCOL.md 2.3: jzmq with -Djava.library.path speaks real ipc:// from the sandbox."""
    (tmp_path / "Hello.java").write_text(JZMQ_HELLO)
    compiled = subprocess.run(["javac", "-cp", str(JZMQ_JAR), "Hello.java"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
    assert compiled.returncode == 0, compiled.stderr
    tmp_path.chmod(0o755)
    (tmp_path / "Hello.class").chmod(0o644)
    command = f"java -Djava.library.path={JZMQ_JNI} -cp {tmp_path}:{JZMQ_JAR} Hello"
    bots = [parse_bot(f"jzmq={command}"), parse_bot(f"python {ROOT / PYTHON_BOT}")]
    result = play_match(load_game("happy_mochi"), bots, 1, limits=Limits(init_ms=20_000))
    seat = result.seats[0]
    assert "JZMQ welcomed" in seat.log_tail, seat  # the hello passed, the welcome came back
    assert seat.status == "crashed"  # it exits after the welcome, as written
