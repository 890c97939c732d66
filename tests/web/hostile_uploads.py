"""Hostile uploads made as an attacker makes them, for the server tests and
``bench/hostile_server.py``: each is the bytes of an archive sent to ``POST /api/bots``."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

from tests.registry.helpers import RANDOM_BOT
from tests.web.competitions import bot_archive, manifest, member, tar_gz

SECRET = "HOST-SECRET-7f3a9c"  # what a host file holds: it must never come back to an author
LINK = tarfile.SYMTYPE


def root_only_file(folder: Path) -> Path:
    """A file only root may read, holding :data:`SECRET` as TOML values (a manifest read
    through a link would quote them in its error)."""
    path = folder / "root-only.toml"
    path.write_text(f'name = "{SECRET}"\nlanguage = "{SECRET}"\nrun = 3\n')
    path.chmod(0o600)
    return path


def with_bot(members: list[tarfile.TarInfo], data: dict[str, bytes] | None = None) -> bytes:
    """``members`` beside a plain ``bot.py``."""
    return tar_gz([*members, member("bot.py")], {"bot.py": RANDOM_BOT.encode(), **(data or {})})


def issue_chain(target: str) -> bytes:
    """Issue 23's chain: ``l -> .``, ``m -> l/..``, ``arena-bot.toml -> m/TARGET``: each link
    reads as inside the archive, but ``m`` is the folder above it."""
    links = [member("l", LINK, "."), member("m", LINK, "l/.."),
             member("arena-bot.toml", LINK, f"m/{target}")]  # fmt: skip
    return with_bot(links)


def chain_beside(name: str) -> bytes:
    """A good manifest naming ``name`` beside ``s -> .`` and ``d1/d2/t -> ../../s/../etc``:
    each link reads as inside, the second climbs out through the first."""
    links = [member("s", LINK, "."), member("d1/d2/t", LINK, "../../s/../etc")]
    return with_bot([member("arena-bot.toml"), *links], {"arena-bot.toml": manifest(name)})


def deep_chain(target: str, depth: int = 24) -> bytes:
    """``u0 -> .``, ``u1 -> u0/..``, ... each link one folder higher while reading as ``.``,
    up to ``/`` wherever the server unpacks; ``arena-bot.toml -> uDEPTH/TARGET`` (absolute)."""
    links = [member("u0", LINK, ".")]
    links += [member(f"u{i}", LINK, f"u{i - 1}/..") for i in range(1, depth + 1)]
    links.append(member("arena-bot.toml", LINK, f"u{depth}/{target.lstrip('/')}"))
    return with_bot(links)


def named_member(name: str) -> bytes:
    """A good bot with one more member named ``name`` (any text: surrogates are written as the
    raw bytes they stand for)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT,
                      errors="surrogateescape") as tar:  # fmt: skip
        for info, body in ((member("arena-bot.toml"), manifest()),
                           (member("bot.py"), RANDOM_BOT.encode()),
                           (member(name), b"x")):  # fmt: skip
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


def manifest_with(name: str = "alice", **values: str) -> bytes:
    """A good bot whose manifest's keys are overridden by ``values`` (TOML strings)."""
    lines = {"name": name, "language": "python", "run": "python bot.py"} | values
    text = "".join(f'{k} = "{v}"\n' for k, v in lines.items()) + 'games = ["happy_mochi"]\n'
    return with_bot([member("arena-bot.toml")], {"arena-bot.toml": text.encode()})


def dot_tar(folder: Path) -> bytes:
    """``folder`` packed as an author packs it by hand: ``tar -czf - .`` (a ``./`` entry first)."""
    done = subprocess.run(["tar", "-czf", "-", "."], cwd=folder, capture_output=True, check=True)
    return done.stdout


def log_link_build(secret: Path, name: str) -> str:
    """A build that tries to make its log a link to ``secret``: in its own folder, and where
    the registry keeps the log (unreachable from the build's sandbox); then succeeds."""
    return (
        "echo build-ran; "
        f"ln -sf {secret} build.log; "
        f"ln -sf {secret} ../../../logs/{name}/1/build.log 2>/dev/null; "
        f"ln -sf {secret} ../../logs/1/build.log 2>/dev/null; "
        "exit 0"
    )


def log_link_archive(folder: Path, secret: Path, name: str) -> bytes:
    return bot_archive(folder, name, RANDOM_BOT, build=log_link_build(secret, name))
