"""A real ``arena serve`` against hostile authors (issue 23 items 1, 4 and 6): names that are
paths or pass for another, a build that makes its log a link to a root-only file, archives
whose links climb out through each other, oversized manifests and member names, uploads
refused after naming a bot, and parameters that used to raise. Each archive is made here and
sent over HTTP; every refusal is one clear sentence, and the server's log holds no traceback.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import tempfile
from pathlib import Path
from typing import NamedTuple

from arena.web.client import mine
from arena.web.competition import load_competition
from tests.registry.helpers import arena, bot_folder
from tests.web.competitions import author_token, bot_archive, manifest, member, write_competition
from tests.web.hostile_uploads import (
    LINK,
    SECRET,
    chain_beside,
    deep_chain,
    dot_tar,
    issue_chain,
    log_link_archive,
    manifest_with,
    named_member,
    root_only_file,
    with_bot,
)
from tests.web.servers import Serve, get, get_json, post_archive, until, uploaded

RULE = "expected 1-48 ASCII letters, digits, '_', '-' or '.'"


class Started(NamedTuple):
    path: Path  # the competition file
    url: str
    alice: str  # the two authors' tokens
    mallory: str
    pid: int  # the server's process


def _start(tmp_path: Path, served: Serve, **server: int) -> Started:
    """A competition with two house bots and the authors alice and mallory, served."""
    path = write_competition(tmp_path / "comp", house=2, **server)
    alice, mallory = author_token(path, "alice"), author_token(path, "mallory")
    proc, url = served(path)
    return Started(path, url, alice, mallory, proc.pid)


def _no_traceback(tmp_path: Path) -> None:
    """Every refusal was an answer, not an error of the server."""
    for log in tmp_path.glob("serve-*.log"):
        assert "Traceback" not in log.read_text(), log.read_text()[-3000:]


def test_names_that_are_paths_or_pass_for_another_are_refused(
    tmp_path: Path, served: Serve
) -> None:
    path, url, alice, mallory, _ = _start(tmp_path, served)
    registry = load_competition(path).registry
    for i, name in enumerate(["..", ".", "-x", ".hidden", "a+b", "alice@2", "x" * 49]):
        status, answer = post_archive(url, mallory, bot_archive(tmp_path / f"bad{i}", name))
        assert status == 400, answer
        assert answer["error"].startswith("arena-bot.toml: name: " + RULE), answer
    status, answer = post_archive(url, alice, bot_archive(tmp_path / "alice", "alice"), "..")
    assert (status, answer["error"]) == (400, f"name '..': {RULE}, not starting with '-' or '.'")
    status, answer = uploaded(url, alice, bot_archive(tmp_path / "alice", "alice"))
    assert (status, answer["status"]) == (201, "active"), answer

    for token, name, other in (
        (mallory, "Alice", "alice"),
        (mallory, "ALICE", "alice"),
        (alice, "Alice", "alice"),  # not even its own author: one bot, one spelling
        (mallory, "House-Greedy", "house-greedy"),
        (mallory, "house_random", "house-random"),
    ):
        status, answer = post_archive(url, token, bot_archive(tmp_path / name, name))
        assert status == 403, answer
        assert f"the bot name {name!r} is too close to the existing {other!r}" in answer["error"]
    status, answer = post_archive(url, mallory, bot_archive(tmp_path / "alice-2", "alice"))
    assert (status, answer["error"]) == (403, "the bot name 'alice' belongs to another author")

    for name, why in (("Alice", "too close to the existing 'alice'"), ("..", RULE)):
        made = arena("serve", str(path), "--add-author", name)
        assert made.returncode == 2 and made.stderr.startswith("arena: error: "), made
        assert why in made.stderr
    # Nothing but alice's folder and the registry's own files.
    assert sorted(p.name for p in (registry / "bots").iterdir()) == ["alice"]
    assert {p.name for p in registry.iterdir()} <= {"bots", "logs", "uploads", "registry.db",
        "registry.db-wal", "registry.db-shm", "registry.lock"}  # fmt: skip
    _no_traceback(tmp_path)


def test_a_build_cannot_get_a_root_only_file_back_as_its_log(tmp_path: Path, served: Serve) -> None:
    path, url, _, mallory, _ = _start(tmp_path, served)
    registry = load_competition(path).registry
    secret = root_only_file(tmp_path)
    # Named "..", its log would have been its own folder's build.log: refused before anything.
    status, answer = post_archive(url, mallory, log_link_archive(tmp_path / "dots", secret, ".."))
    assert status == 400 and answer["error"].startswith("arena-bot.toml: name: " + RULE)
    assert not (registry / "bots").exists() or not any((registry / "bots").iterdir())

    status, answer = uploaded(url, mallory, log_link_archive(tmp_path / "evil", secret, "evil"))
    assert (status, answer["status"]) == (201, "active"), answer
    assert "build-ran" in answer["build_log"]
    assert SECRET not in json.dumps(answer)
    assert SECRET not in json.dumps(mine(url, mallory))
    log = registry / "logs" / "evil" / "1" / "build.log"
    assert stat.S_ISREG(os.lstat(log).st_mode)  # the server's own file, never a link
    assert SECRET not in log.read_text()
    assert (registry / "bots" / "evil" / "1" / "build.log").is_symlink()  # made, unread
    _no_traceback(tmp_path)


def test_archives_are_refused_before_anything_of_the_host_is_read(
    tmp_path: Path, served: Serve
) -> None:
    path, url, alice, mallory, pid = _start(tmp_path, served, expanded_mb=40)
    temp = Path(tempfile.gettempdir())  # where the server unpacks, so what "m" leads to
    secret = root_only_file(temp)
    try:
        attempts = [
            issue_chain(secret.name),  # exists, root-only, TOML
            issue_chain("no-such-file.toml"),
            issue_chain("../dev/zero"),
            deep_chain(str(secret)),
            deep_chain("/no/such/file"),
            deep_chain("/dev/zero"),
            deep_chain("/proc/self/environ"),
        ]
        answers = [post_archive(url, mallory, body) for body in attempts]
    finally:
        secret.unlink()
    # One answer for all: it quotes nothing of a host file and tells nothing of whether one
    # exists, and /dev/zero was never read.
    expected = (400, {"error": "arena-bot.toml: symlink leads outside the bot folder through "
                               "other links: refused (copy the file in instead)"})  # fmt: skip
    assert answers == [expected] * len(attempts)
    assert peak_mib(pid) < 1024

    good = manifest().decode()
    for body, error in (
        (manifest_with(language="x" * (30 << 20)), "arena-bot.toml: over 64 KiB: refused"),
        (manifest_with(language="x" * 1000),
         "arena-bot.toml: language: at most 100 characters, got 1000"),
        (manifest_with(run="python " + "a" * 1000),
         "arena-bot.toml: run: at most 1000 characters, got 1007"),
        (named_member("x" * 300), "a name over 255 bytes is refused"),
        (named_member("evil\udcff.py"),
         "'evil\\udcff.py': its name is not printable UTF-8 text: refused"),
        (named_member("evil\x1b[2J.py"),
         "'evil\\x1b[2J.py': its name is not printable UTF-8 text: refused"),
        (with_bot([member("arena-bot.toml", LINK, "bot.py")]),
         "arena-bot.toml: a symbolic link or not a regular file: refused"),
        (with_bot([member("arena-bot.toml"), member("deep/" * 250 + "x.py")],
                  {"arena-bot.toml": good.encode()}), "a path over 1024 bytes is refused"),
    ):  # fmt: skip
        status, answer = post_archive(url, mallory, body)
        assert status == 400 and error in answer["error"], (error, answer)
        assert len(answer["error"]) < 300
    bots = load_competition(path).registry / "bots"
    assert not bots.exists() or not any(bots.iterdir())

    # What an author packs by hand is accepted: tar -czf - . (a "./" entry first).
    folder = bot_folder(tmp_path / "dotted", "dotted")
    listing = subprocess.run(["tar", "-tzf", "-"], input=dot_tar(folder), capture_output=True)
    assert listing.stdout.decode().splitlines()[0] == "./"
    status, answer = uploaded(url, alice, dot_tar(folder))
    assert (status, answer["version"], answer["status"]) == (201, "dotted@1", "active"), answer
    _no_traceback(tmp_path)


def peak_mib(pid: int) -> float:
    """The peak resident memory of ``pid`` (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def test_a_refused_upload_claims_no_name(tmp_path: Path, served: Serve) -> None:
    _, url, alice, mallory, _ = _start(tmp_path, served)
    good = manifest("shared").decode()
    for body, error in (
        (manifest_with("shared", language="x" * 200), "language: at most 100 characters"),
        (chain_beside("shared"), "symlink leads outside the bot folder"),
        (with_bot([member("arena-bot.toml")], {"arena-bot.toml": good.replace(
            "happy_mochi", "mai_star").encode()}), "shared plays mai_star, not happy_mochi"),
    ):  # fmt: skip
        status, answer = post_archive(url, mallory, body)
        assert status == 400 and error in answer["error"], answer
    assert mine(url, mallory)["bots"] == []

    status, answer = uploaded(url, alice, bot_archive(tmp_path / "shared", "shared"))
    assert (status, answer["version"], answer["status"]) == (201, "shared@1", "active"), answer
    assert mine(url, alice)["bots"] == ["shared"]
    status, answer = post_archive(url, mallory, bot_archive(tmp_path / "m-shared", "shared"))
    assert (status, answer["error"]) == (403, "the bot name 'shared' belongs to another author")

    # A version stored is its author's, even rejected: its build log is theirs alone, so the
    # name is theirs too (another author would inherit it with the version).
    squat = bot_archive(tmp_path / "squat", "squat", build="echo mallory-log; exit 3")
    status, answer = uploaded(url, mallory, squat)
    assert (status, answer["status"]) == (201, "rejected")
    status, answer = post_archive(url, alice, bot_archive(tmp_path / "a-squat", "squat"))
    assert (status, answer["error"]) == (403, "the bot name 'squat' belongs to another author")
    assert "mallory-log" not in json.dumps(mine(url, alice))
    _no_traceback(tmp_path)


def test_bad_parameters_answer_400_or_404_never_500(tmp_path: Path, served: Serve) -> None:
    _, url, alice, _, _ = _start(tmp_path, served)
    status, answer = uploaded(url, alice, bot_archive(tmp_path / "alice", "alice"))
    assert (status, answer["status"]) == (201, "active"), answer
    done = until(lambda: get_json(url + "/api/queue")["done_today"], what="a stored match")
    match = done[0]
    assert get(f"{url}/matches/{match}?seat=0")[0] == 200
    for query, what in (
        ("seat=%C2%B2", "seat: expected a seat number"),  # "²": a digit to str.isdigit()
        ("seat=" + "9" * 5000, "seat: expected a seat number"),
        ("seat=-1", "seat: expected a seat number"),
        ("seat=3", "seat: this match has seats 0 to 2"),
    ):
        status, text = get(f"{url}/matches/{match}?{query}")
        assert status == 400 and what in text, (query, status, text[:300])
    for page in (
        "/matches/" + "x" * 5000,
        "/matches/%C2%B2",
        "/matches/..",
        "/matches/zz/replay.json",
        "/matches/" + "x" * 5000 + "/replay.json",
        "/bots/" + "a" * 5000,
        "/bots/..",
        "/bots/alice@" + "9" * 5000,
        "/bots/%C2%B2",
    ):
        status, text = get(url + page)
        assert status == 404 and len(text) < 2000, (page, status, text[:300])
    assert get(f"{url}/bots/alice@1")[0] == 200
    _no_traceback(tmp_path)
