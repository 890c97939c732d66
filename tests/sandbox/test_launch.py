"""Hostile bots launched directly with ``sandbox.launch`` at each level that runs here.

Each bot reports what its attacks observed (``ATTACK name: outcome``); the tests check that
every attack failed, and for the right reason. ``bots`` checks no process is left afterwards.
"""

from __future__ import annotations

import os
import resource
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena import sandbox
from arena.cli.main import app
from arena.sandbox import SandboxError, SandboxLimits

from .conftest import need, run_bot

CONFINED = ["bwrap", "uid"]  # the levels meant to hold against hostile bots


def test_probe_names_a_working_level_and_why_others_do_not_work() -> None:
    found = sandbox.probe()
    assert found.level in sandbox.LEVELS
    assert found.levels["rlimits"].works
    assert set(found.layers) == {"bwrap", "uid", "cgroup", "seccomp"}
    for item in [*found.layers.values(), *found.levels.values()]:
        assert item.works or item.reason


def test_probe_command_prints_every_layer() -> None:
    result = CliRunner().invoke(app, ["sandbox", "probe"])
    assert result.exit_code == 0, result.output
    assert "in force:" in result.output and "seccomp" in result.output
    result = CliRunner().invoke(app, ["sandbox", "probe", "--json"])
    assert result.exit_code == 0
    assert '"levels"' in result.output


def test_a_level_can_be_asked_for_by_name_or_environment(
    match_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(SandboxError, match="unknown sandbox level"):
        sandbox.launch(["/bin/true"], cwd=None, env={}, log_path=match_dir / "l", level="vm")
    monkeypatch.setenv("ARENA_SANDBOX", "rlimits")
    proc = sandbox.launch(["/bin/true"], cwd=None, env={}, log_path=match_dir / "l")
    proc.kill()
    assert proc.level == "rlimits"
    monkeypatch.setenv("ARENA_SANDBOX", "nope")
    with pytest.raises(SandboxError):
        sandbox.launch(["/bin/true"], cwd=None, env={}, log_path=match_dir / "l")


def test_a_missing_program_is_an_oserror(match_dir: Path) -> None:
    for level in sandbox.LEVELS:
        if sandbox.probe().levels[level].works:
            with pytest.raises(OSError):
                sandbox.launch(
                    ["/nonexistent/bot"], cwd=None, env={}, log_path=match_dir / "l", level=level
                )


@pytest.mark.parametrize("level", sandbox.LEVELS)
def test_exit_codes_and_signals_come_through(level: str, bots: Path, match_dir: Path) -> None:
    died = run_bot(level, bots, match_dir, "segfault.py")
    assert died.code == -11, died.log
    assert died.level == level
    need(level)
    proc = sandbox.launch(
        ["/bin/sh", "-c", "exit 3"], cwd=bots, env={}, log_path=match_dir / "sh", level=level
    )
    assert proc.exited_within(5) == 3
    proc.kill()
    proc.kill()  # idempotent
    assert proc.pidfd == -1


def test_a_bot_launched_past_descriptor_1024_is_still_waited_for(match_dir: Path) -> None:
    """A busy server or worker holds many descriptors: a bot's pidfd numbered 1024 or more
    (past what ``select()`` takes) is waited for like any other."""
    level = sandbox.choose(None)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if min(soft, hard) < 1100 and hard != resource.RLIM_INFINITY and hard < 1100:
        pytest.skip(f"this process may open at most {hard} descriptors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1100), hard))
    held = []
    try:
        while (fd := os.open(os.devnull, os.O_RDONLY)) < 1030:
            held.append(fd)
        held.append(fd)
        proc = sandbox.launch(
            ["/bin/sh", "-c", "exit 4"], cwd=None, env={}, log_path=match_dir / "sh", level=level
        )
        try:
            assert proc.pidfd >= 1024
            assert proc.exited_within(10) == 4
        finally:
            proc.kill()
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.parametrize("level", sandbox.LEVELS)
def test_log_tail_is_sanitised(level: str, bots: Path, match_dir: Path) -> None:
    need(level)
    script = "printf 'a\\033[31mred\\033[0m\\000b\\007\\n' >&2"
    proc = sandbox.launch(
        ["/bin/sh", "-c", script], cwd=bots, env={}, log_path=match_dir / "l", level=level
    )
    proc.exited_within(5)
    proc.kill()
    assert proc.log_tail() == "aredb\n"


@pytest.mark.parametrize("level", CONFINED)
def test_fork_bomb_is_capped_by_the_pids_cgroup(level: str, bots: Path, match_dir: Path) -> None:
    if not sandbox.probe().has("cgroup"):
        pytest.skip(sandbox.probe().layers["cgroup"].reason)
    out = run_bot(level, bots, match_dir, "fork_bomb.py", limits=SandboxLimits(processes=32))
    outcome = out.attacks()["fork"]
    assert outcome.startswith("EAGAIN after "), out.log
    assert int(outcome.split()[-1]) < 32


@pytest.mark.parametrize("level", CONFINED)
def test_memory_bomb_is_oom_killed_and_reported(level: str, bots: Path, match_dir: Path) -> None:
    if not sandbox.probe().has("cgroup"):
        pytest.skip(sandbox.probe().layers["cgroup"].reason)
    out = run_bot(
        level, bots, match_dir, "memory_bomb.py", "heap", limits=SandboxLimits(memory_mb=96)
    )
    assert out.code == -9, out.log[-500:]
    assert out.usage.oom_killed
    assert out.usage.peak_memory_kb is not None and out.usage.peak_memory_kb <= 96 * 1024


def test_filling_tmp_gives_enospc(bots: Path, match_dir: Path) -> None:
    """Only bwrap gives a private, sized /tmp; at ``uid`` level /tmp is the host's."""
    out = run_bot(
        "bwrap", bots, match_dir, "memory_bomb.py", "tmpfs", limits=SandboxLimits(tmp_mb=32)
    )
    assert out.attacks()["tmpfs"] == "No space left on device after 32 MiB"
    assert not list(Path("/tmp").glob("fill-*"))


@pytest.mark.parametrize("level", CONFINED)
def test_writing_outside_is_refused(level: str, bots: Path, match_dir: Path) -> None:
    host_file = match_dir / "host.txt"
    host_file.write_text("keep")
    host_file.chmod(0o644)
    out = run_bot(level, bots, match_dir, "file_writer.py", str(host_file))
    seen = out.attacks()
    assert seen["write_root"] in ("EACCES", "EROFS")
    assert seen["write_usr"] in ("EACCES", "EROFS")
    assert seen["write_own_dir"] in ("EACCES", "EROFS")
    # not even visible inside bwrap; a 0700 root directory at uid level
    assert seen["write_host_file"] == ("ENOENT" if level == "bwrap" else "EACCES")
    assert seen["huge_tmp_file"] == "EFBIG"  # RLIMIT_FSIZE
    assert host_file.read_text() == "keep"
    assert not (bots / "evil").exists() and not Path("/evil").exists()


@pytest.mark.parametrize("level", CONFINED)
def test_network_is_refused_at_socket(level: str, bots: Path, match_dir: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0)
        out = run_bot(level, bots, match_dir, "network.py", str(listener.getsockname()[1]))
        with pytest.raises(BlockingIOError):
            listener.accept()
    seen = out.attacks()
    for name in ("tcp_loopback", "tcp_unroutable", "tcp6_loopback", "raw_socket", "packet_socket"):
        assert seen[name] == "EACCES", (name, out.log)  # seccomp, before anything is sent
    assert seen["dns"].startswith("gaierror")


@pytest.mark.parametrize("level", CONFINED)
def test_secrets_and_other_bots_are_out_of_reach(
    level: str, bots: Path, match_dir: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other-bot"
    other.mkdir()
    (other / "secret.txt").write_text("other bot's strategy")
    victim = match_dir / "seat1.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(victim))
        listener.listen()
        out = run_bot(level, bots, match_dir, "snoop.py", str(other / "secret.txt"), str(victim))
    seen = out.attacks()
    assert seen["other_bot_file"] in ("ENOENT", "EACCES")
    assert seen["referee_environ"] == "EACCES"
    assert seen["shadow"] in ("ENOENT", "EACCES")
    assert seen["other_socket"] in ("ENOENT", "EACCES")
    if level == "bwrap":
        assert seen["visible_pids"] == "ok 2"  # its pid namespace: bwrap's init and itself


@pytest.mark.parametrize("level", CONFINED)
def test_the_referee_cannot_be_killed_or_traced(level: str, bots: Path, match_dir: Path) -> None:
    out = run_bot(level, bots, match_dir, "killer.py")
    seen = out.attacks()
    assert seen["ptrace_parent"] == "EPERM"
    assert seen["kill_parent"] == "EPERM"
    assert seen["kill_all"] in ("ESRCH", "ok None")  # reaches at most its own uid's processes
    assert out.code == 0  # it was not killed by itself either: the test process is alive


@pytest.mark.parametrize("level", CONFINED)
def test_escape_attempts_fail(level: str, bots: Path, match_dir: Path) -> None:
    seen = run_bot(level, bots, match_dir, "escape.py").attacks()
    for name in ("unshare_user", "unshare_mount", "mount", "setuid_root"):
        assert seen[name] == "EPERM", (name, seen)
    assert seen["setuid_binary"] != "ok 0"  # mount(8) is setuid root but gains nothing
    assert seen["no_new_privs"] == "ok '1'"
    assert seen["cap_eff"] == "ok '0000000000000000'"
    assert seen["seccomp_mode"] == "ok '2'"


@pytest.mark.parametrize("level", sandbox.LEVELS)
def test_fd_exhaustion_stays_in_the_bot(level: str, bots: Path, match_dir: Path) -> None:
    out = run_bot(level, bots, match_dir, "fd_hog.py", limits=SandboxLimits(open_files=64))
    assert out.attacks()["open_files"].startswith("Too many open files after ")
    with open(os.devnull) as f:
        assert f.fileno() > 0


def test_cpu_burner_is_stopped_by_rlimit_cpu(bots: Path, match_dir: Path) -> None:
    """The same rlimit at every level; tested at the strongest only, as it takes seconds."""
    out = run_bot(
        sandbox.probe().level,
        bots,
        match_dir,
        "cpu_burner.py",
        limits=SandboxLimits(cpu_s=1),
        timeout=30,
    )
    assert out.code == -24  # SIGXCPU
    if sandbox.probe().has("cgroup"):
        # The cgroup counts from the moment the bot joined it, a little after the rlimit's clock
        # started (the set-up before exec): near the second, never far above it.
        assert out.usage.cpu_ms is not None and 700 <= out.usage.cpu_ms <= 1500


def test_cpu_quota_holds_a_multi_process_burner_to_its_cores(bots: Path, match_dir: Path) -> None:
    """``cpus = 1``: three spinning processes share one core, so they cannot starve the others."""
    if not sandbox.probe().has("cgroup"):
        pytest.skip("the CPU quota is a cgroup limit; no cgroup here")
    started = time.monotonic()
    out = run_bot(
        sandbox.probe().level,
        bots,
        match_dir,
        "cpu_burner.py",
        "3",
        limits=SandboxLimits(cpus=1),
        timeout=2,
    )
    wall_ms = (time.monotonic() - started) * 1000
    assert out.usage.cpu_ms is not None
    assert 200 < out.usage.cpu_ms <= 1.1 * wall_ms + 50


@pytest.mark.parametrize("level", sandbox.LEVELS)
def test_daemons_and_sigterm_ignorers_are_gone_after_kill(
    level: str, bots: Path, match_dir: Path
) -> None:
    """``bots`` asserts that nothing with its path is left: not the daemon that escaped the
    session with setsid, not the bot that ignores SIGTERM."""
    if level == "rlimits" and not sandbox.probe().has("cgroup"):
        pytest.skip("rlimits without a cgroup only kills the process group (development only)")
    out = run_bot(level, bots, match_dir, "daemon.py", timeout=1)
    assert out.attacks()["daemon"].startswith("ok pid")
    out = run_bot(level, bots, match_dir, "stubborn.py", timeout=0.5)
    assert out.code is None and out.attacks()["ignore_sigterm"] == "ok"


def test_the_socket_belongs_to_the_bot_uid_only(bots: Path, match_dir: Path) -> None:
    need("uid")
    sock = match_dir / "seat0.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(sock))
        proc = sandbox.launch(
            ["/bin/sleep", "5"], cwd=bots, env={}, log_path=match_dir / "l",
            socket_path=sock, level="uid",
        )  # fmt: skip
        try:
            st = sock.stat()
            assert 40000 <= st.st_uid <= 40999 and st.st_mode & 0o777 == 0o600
            assert match_dir.stat().st_mode & 0o777 == 0o711
            assert proc.pid > 0
        finally:
            proc.kill()


def test_concurrent_bots_get_distinct_uids(bots: Path, match_dir: Path) -> None:
    need("uid")
    procs = [
        sandbox.launch(
            ["/bin/sleep", "5"], cwd=bots, env={}, log_path=match_dir / f"{i}", level="uid"
        )
        for i in range(4)
    ]
    try:
        uids = {Path(f"/proc/{p.pid}").stat().st_uid for p in procs}
        assert len(uids) == 4 and all(40000 <= u <= 40999 for u in uids)
    finally:
        for p in procs:
            p.kill()


@pytest.mark.parametrize(
    "argv", [["node", "-e", "console.log('hi')"], [sys.executable, "-c", "import zmq, protocol"]]
)
def test_runtimes_start_with_the_default_limits(argv: list[str], match_dir: Path) -> None:
    """The defaults must let Node (which reserves a lot of address space) and Python start."""
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} not installed")
    proc = sandbox.launch(argv, cwd=None, env=sandbox.bot_environment({}), log_path=match_dir / "l")
    code = proc.exited_within(10)
    proc.kill()
    assert code == 0, proc.log_tail()


def test_a_compiled_binary_starts(tmp_path: Path, match_dir: Path) -> None:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    src = tmp_path / "hello.c"
    src.write_text('#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n')
    subprocess.run(["cc", "-O0", "-o", str(tmp_path / "hello"), str(src)], check=True)
    proc = sandbox.launch([str(tmp_path / "hello")], cwd=tmp_path, env={}, log_path=match_dir / "l")
    code = proc.exited_within(10)
    proc.kill()
    assert (code, proc.log_tail()) == (0, "hello\n")
