"""Hostile uploads through the real app: each refused with a clear message, nothing stored, and
the server keeps serving. The archives are made by hand, as an attacker would."""

from __future__ import annotations

import io
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.web.accounts import Accounts
from arena.web.app import create_app
from arena.web.competition import Competition, load_competition
from tests.registry.helpers import RANDOM_BOT
from tests.web.competitions import (
    bot_archive,
    manifest,
    member,
    tar_gz,
    write_competition,
    zip_bytes,
)


@pytest.fixture
def competition(tmp_path: Path) -> Competition:
    return load_competition(write_competition(tmp_path / "comp", uploads_per_hour=6))


@pytest.fixture
def client(competition: Competition) -> Iterator[TestClient]:
    with TestClient(create_app(competition, run_ladder=False)) as client:
        yield client


@pytest.fixture
def token(competition: Competition) -> str:
    accounts = Accounts(competition.server.accounts)
    try:
        return accounts.add_author("mallory")
    finally:
        accounts.close()


def _post(client: TestClient, token: str, body: bytes) -> tuple[int, str]:
    response = client.post("/api/bots", content=body, headers={"Authorization": f"Bearer {token}"})
    return response.status_code, response.json()["error"]


def _nothing_stored(competition: Competition, client: TestClient, outside: Path) -> None:
    """No version, no bot folder, no file written outside, and the pages still answer."""
    registry = competition.registry
    assert not (registry / "bots").exists() or not any((registry / "bots").iterdir())
    assert not outside.exists()
    assert client.get("/").status_code == 200
    assert client.get("/api/standings").json()["bots"] == []


def test_a_bad_or_missing_token_is_refused(
    client: TestClient, competition: Competition, tmp_path: Path
) -> None:
    body = bot_archive(tmp_path / "alice")
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}):
        response = client.post("/api/bots", content=body, headers=headers)
        assert response.status_code == 401
        assert "valid author token" in response.json()["error"]
    _nothing_stored(competition, client, tmp_path / "evil")


def test_tokens_are_stored_hashed(competition: Competition, token: str) -> None:
    raw = competition.server.accounts.read_bytes()
    wal = Path(f"{competition.server.accounts}-wal")
    raw += wal.read_bytes() if wal.exists() else b""
    assert token.encode() not in raw


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("../evil.py", "a path with '..' is refused"),
        ("bot/../../evil.py", "a path with '..' is refused"),
        ("/tmp/evil.py", "an absolute path is refused"),
    ],
)
def test_path_traversal_is_refused(
    client: TestClient, competition: Competition, token: str, tmp_path: Path, name: str,
    expected: str,
) -> None:  # fmt: skip
    body = tar_gz(
        [member("arena-bot.toml"), member("bot.py"), member(name)],
        {"arena-bot.toml": manifest(), "bot.py": RANDOM_BOT.encode(), name: b"pwned"},
    )
    status, error = _post(client, token, body)
    assert status == 400
    assert expected in error
    _nothing_stored(competition, client, tmp_path / "evil.py")


def test_zip_traversal_is_refused(
    client: TestClient, competition: Competition, token: str, tmp_path: Path
) -> None:
    body = zip_bytes({"arena-bot.toml": manifest(), "../../evil.py": b"pwned"})
    status, error = _post(client, token, body)
    assert (status, error) == (400, "../../evil.py: a path with '..' is refused")
    _nothing_stored(competition, client, tmp_path / "evil.py")


@pytest.mark.parametrize("target", ["/etc", "/etc/passwd", "../../..", "sub/../../x"])
def test_a_symlink_leading_out_is_refused(
    client: TestClient, competition: Competition, token: str, tmp_path: Path, target: str
) -> None:
    body = tar_gz(
        [member("arena-bot.toml"), member("bot.py"), member("etc", tarfile.SYMTYPE, target)],
        {"arena-bot.toml": manifest(), "bot.py": RANDOM_BOT.encode()},
    )
    status, error = _post(client, token, body)
    assert status == 400
    assert error == f"etc: a symlink leading out of the bot ({target})"
    _nothing_stored(competition, client, tmp_path / "evil")


def test_a_symlink_chain_climbing_out_is_refused(
    client: TestClient, competition: Competition, token: str, tmp_path: Path
) -> None:
    """Each link's text stays inside, but resolved through ``s -> .`` the second climbs out."""
    links = [
        member("s", tarfile.SYMTYPE, "."),
        member("d1/d2/t", tarfile.SYMTYPE, "../../s/../etc"),
    ]
    body = tar_gz(
        [member("arena-bot.toml"), member("bot.py"), *links],
        {"arena-bot.toml": manifest(), "bot.py": RANDOM_BOT.encode()},
    )
    status, error = _post(client, token, body)
    assert status == 400
    assert error.startswith("d1/d2/t: symlink leads outside the bot folder through other links")
    _nothing_stored(competition, client, tmp_path / "evil")


def test_a_file_written_through_a_symlink_is_refused(
    client: TestClient, competition: Competition, token: str, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    body = tar_gz(
        [member("arena-bot.toml"), member("d", tarfile.SYMTYPE, "."), member("d/x.py")],
        {"arena-bot.toml": manifest(), "d/x.py": b"x"},
    )
    status, error = _post(client, token, body)
    assert status == 400
    assert "d/x.py: its folder d is not a folder" in error


@pytest.mark.parametrize(
    ("kind", "what"),
    [
        (tarfile.FIFOTYPE, "a device, fifo or other special file is refused"),
        (tarfile.CHRTYPE, "a device, fifo or other special file is refused"),
        (tarfile.LNKTYPE, "hard links are refused (store the file itself)"),
    ],
)
def test_devices_fifos_and_hard_links_are_refused(
    client: TestClient, competition: Competition, token: str, tmp_path: Path, kind: bytes,
    what: str,
) -> None:  # fmt: skip
    info = member("node", kind, "arena-bot.toml" if kind == tarfile.LNKTYPE else "")
    body = tar_gz([member("arena-bot.toml"), info], {"arena-bot.toml": manifest()})
    status, error = _post(client, token, body)
    assert (status, error) == (400, f"node: {what}")
    _nothing_stored(competition, client, tmp_path / "evil")


def test_a_zip_bomb_is_refused_before_it_is_unpacked(
    client: TestClient, competition: Competition, token: str, tmp_path: Path
) -> None:
    body = zip_bytes({"arena-bot.toml": manifest(), "bomb.bin": bytes(20 << 20)})
    assert len(body) < 100_000  # 20 MiB of zeros compress to about 20 KB
    status, error = _post(client, token, body)
    assert (status, error) == (400, "bomb.bin: the files unpack to more than 1 MiB")
    _nothing_stored(competition, client, tmp_path / "evil")


def test_a_gzip_bomb_stops_at_the_limit(
    client: TestClient, competition: Competition, token: str, tmp_path: Path
) -> None:
    body = tar_gz([member("arena-bot.toml"), member("bomb.bin")],
                  {"arena-bot.toml": manifest(), "bomb.bin": bytes(20 << 20)})  # fmt: skip
    status, error = _post(client, token, body)
    assert (status, error) == (400, "bomb.bin: the files unpack to more than 1 MiB")
    _nothing_stored(competition, client, tmp_path / "evil")


def test_a_zip_lying_about_its_sizes_stops_at_what_it_declared(
    client: TestClient, competition: Competition, token: str, tmp_path: Path
) -> None:
    honest = zip_bytes({"arena-bot.toml": manifest(), "big.bin": bytes(300_000)})
    lying = _declare_size(honest, "big.bin", 1000)
    status, error = _post(client, token, lying)
    assert status == 400
    assert error.startswith("big.bin: ")
    _nothing_stored(competition, client, tmp_path / "evil")


def _declare_size(blob: bytes, name: str, size: int) -> bytes:
    """``blob`` with ``name``'s uncompressed size rewritten in both of its headers."""
    info = zipfile.ZipFile(io.BytesIO(blob)).getinfo(name)
    data = bytearray(blob)
    real = info.file_size.to_bytes(4, "little")
    fake = size.to_bytes(4, "little")
    local = info.header_offset
    assert data[local + 22 : local + 26] == real
    data[local + 22 : local + 26] = fake
    central = data.rindex(b"PK\x01\x02")
    assert data[central + 24 : central + 28] == real
    data[central + 24 : central + 28] = fake
    return bytes(data)


def test_too_many_files_are_refused(
    client: TestClient, competition: Competition, token: str, tmp_path: Path
) -> None:
    names = [f"f{i}.txt" for i in range(60)]
    body = tar_gz([member(n) for n in ["arena-bot.toml", *names]],
                  {"arena-bot.toml": manifest(), **{n: b"x" for n in names}})  # fmt: skip
    status, error = _post(client, token, body)
    assert (status, error) == (400, "more than 50 members (the limit)")
    _nothing_stored(competition, client, tmp_path / "evil")


def test_an_oversized_upload_is_refused(
    client: TestClient, competition: Competition, token: str, tmp_path: Path
) -> None:
    status, error = _post(client, token, b"\x1f\x8b" + bytes(2 << 20))
    assert (status, error) == (413, "the archive is over the 1 MiB upload limit")

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        for _ in range(40):
            yield bytes(64 << 10)

    response = client.post(
        "/api/bots", content=chunks(), headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 413
    _nothing_stored(competition, client, tmp_path / "evil")


def test_not_an_archive_is_refused(client: TestClient, competition: Competition, token: str,
                                   tmp_path: Path) -> None:  # fmt: skip
    assert _post(client, token, b"hello") == (400, "not a tar.gz or zip archive")
    assert _post(client, token, b"\x1f\x8bjunk")[0] == 400
    _nothing_stored(competition, client, tmp_path / "evil")


def test_a_flood_of_submissions_is_refused_past_the_hourly_limit(
    client: TestClient, competition: Competition, token: str, tmp_path: Path
) -> None:
    for _ in range(6):
        assert _post(client, token, b"junk")[0] == 400
    response = client.post(
        "/api/bots", content=b"junk", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 429
    assert response.json()["error"].startswith("mallory: at most 6 uploads an hour; try again in")
    assert 0 < int(response.headers["Retry-After"]) <= 3600
    _nothing_stored(competition, client, tmp_path / "evil")


def test_a_name_of_another_author_or_of_a_house_bot_is_refused(
    client: TestClient, competition: Competition, token: str, tmp_path: Path
) -> None:
    accounts = Accounts(competition.server.accounts)
    accounts.claim("alice", accounts.add_author("alice"))
    accounts.close()
    status, error = _post(client, token, bot_archive(tmp_path / "a", "alice"))
    assert (status, error) == (403, "the bot name 'alice' belongs to another author")
    status, error = _post(client, token, bot_archive(tmp_path / "h", "house-greedy"))
    assert (status, error) == (
        403,
        "the bot name 'house-greedy' is a house bot of this competition",
    )
    _nothing_stored(competition, client, tmp_path / "evil")
