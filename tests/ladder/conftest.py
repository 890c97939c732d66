"""Fixtures of the ladder tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder.database import Location

from .helpers import share_key


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Location:
    """Where a test's ladder is stored: a SQLite file, then a PostgreSQL database (its deal key
    shared, so both backends play the same deals)."""
    if request.param == "sqlite":
        return tmp_path / "tiny.db"
    url: str = request.getfixturevalue("postgres_url")
    share_key(url)
    return url
