"""One connection interface over SQLite and a real PostgreSQL server: the store's SQL runs on
both, with the same rows, errors, transactions and read snapshots."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder import database
from arena.ladder.database import IntegrityError, Location, connect, describe
from arena.ladder.store import Store, StoreError

DDL = """
CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, n INTEGER NOT NULL, x REAL NOT NULL);
CREATE TABLE IF NOT EXISTS log (k TEXT NOT NULL);
"""


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Location:
    if request.param == "sqlite":
        return tmp_path / "x.db"
    return request.getfixturevalue("postgres_url")


def test_rows_types_and_order_are_the_same_on_both(location: Location) -> None:
    conn = connect(location)
    conn.schema(DDL, ordered=("log",))
    conn.schema(DDL, ordered=("log",))  # made once: IF NOT EXISTS on both
    big, exact = 2**60 - 1, 0.1 + 0.2  # a 60-bit deal seed, a float that is not a float32
    conn.execute("INSERT INTO t VALUES (?, ?, ?)", ("a", big, exact))
    conn.execute("INSERT INTO t VALUES (?, ?, ?) ON CONFLICT DO NOTHING", ("a", 0, 0.0))
    row = conn.execute("SELECT k, n, x FROM t").fetchone()
    assert (row[0], row["n"], row["x"]) == ("a", big, exact)
    assert dict(row) == {"k": "a", "n": big, "x": exact}
    keys = ["m", "c", "x", "a"]  # insertion order is not key order
    conn.executemany("INSERT INTO log VALUES (?)", [(k,) for k in keys])
    order = conn.execute(f"SELECT k FROM log ORDER BY {conn.insertion_order}")
    assert [r[0] for r in order] == keys
    assert conn.execute("SELECT k FROM t WHERE k LIKE '%'").fetchall()[0][0] == "a"  # % as is
    assert conn.columns("t") == {"k", "n", "x"} and conn.columns("nope") == set()
    with pytest.raises(IntegrityError):
        conn.execute("INSERT INTO t VALUES (?, ?, ?)", ("a", 1, 1.0))
    conn.close()


def test_a_failed_transaction_leaves_nothing(location: Location) -> None:
    conn = connect(location)
    conn.schema(DDL)
    with pytest.raises(IntegrityError), conn.transaction():
        conn.execute("INSERT INTO t VALUES (?, ?, ?)", ("b", 1, 1.0))
        conn.execute("INSERT INTO t VALUES (?, ?, ?)", ("b", 2, 2.0))
    assert conn.execute("SELECT COUNT(*) FROM t")[0][0] == 0
    conn.close()


def test_a_snapshot_does_not_see_a_write_committed_during_it(location: Location) -> None:
    writer = connect(location)
    writer.schema(DDL)
    reader = connect(location, readonly=True)
    with reader.snapshot():
        before = reader.execute("SELECT COUNT(*) FROM t")[0][0]
        with writer.transaction():
            writer.execute("INSERT INTO t VALUES (?, ?, ?)", ("c", 1, 1.0))
        during = reader.execute("SELECT COUNT(*) FROM t")[0][0]
    after = reader.execute("SELECT COUNT(*) FROM t")[0][0]
    assert (before, during, after) == (0, 0, 1)
    with pytest.raises(database.Error):
        reader.execute("INSERT INTO t VALUES (?, ?, ?)", ("d", 1, 1.0))  # read-only
    reader.close()
    writer.close()


def test_a_password_never_shows() -> None:
    url = "postgresql://arena:s3cret@db.example.org:5432/ladder?sslmode=require"
    assert describe(url) == "postgresql://arena:***@db.example.org:5432/ladder?sslmode=require"
    assert describe("postgresql://arena@db/ladder") == "postgresql://arena@db/ladder"
    assert describe(Path("/x/y.db")) == "/x/y.db"
    assert database.locate("postgres://h/d", Path("/base")) == "postgres://h/d"
    assert database.locate("sub/l.db", Path("/base")) == Path("/base/sub/l.db")


def test_a_refused_open_lets_go_of_the_run_lock(location: Location) -> None:
    """A database of another game is refused, and its lock released: a server that tries again
    later is not shut out by its own earlier attempt."""
    Store.create(location, "happy_mochi").close()
    with pytest.raises(StoreError, match="holds a happy_mochi ladder, the file says mottainai"):
        Store.create(location, "mottainai")
    Store.create(location, "happy_mochi").close()
