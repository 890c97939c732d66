"""A version's reports live apart from its row and are capped: listings never read them, and a
registry made before (reports stored whole in ``versions``) is moved over when opened, capped,
nothing else lost."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from arena.registry.manifest import Manifest
from arena.registry.store import REPORT_BYTES, Registry, capped

OLD_SCHEMA = """
CREATE TABLE versions (
    name TEXT NOT NULL, number INTEGER NOT NULL, hash TEXT NOT NULL, status TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '', manifest TEXT NOT NULL, source TEXT NOT NULL,
    files INTEGER NOT NULL, bytes INTEGER NOT NULL, submitted_at REAL NOT NULL,
    updated_at REAL NOT NULL, build_log TEXT NOT NULL DEFAULT '',
    validation TEXT NOT NULL DEFAULT '', PRIMARY KEY (name, number)
);
"""


def test_capped_keeps_the_head_and_the_tail_and_says_what_it_cut() -> None:
    assert capped("short") == "short"
    text = "first error\n" + "x" * (4 * REPORT_BYTES) + "\nlast words"
    kept = capped(text)
    assert len(kept.encode()) <= REPORT_BYTES + 64
    assert kept.startswith("first error\n") and kept.endswith("\nlast words")
    assert f"[... {len(text) - REPORT_BYTES} bytes cut ...]" in kept


def test_a_registry_with_reports_in_its_versions_is_moved_over_capped(tmp_path: Path) -> None:
    root = tmp_path / "registry"
    root.mkdir()
    manifest = Manifest("alice", "python", ("python", "bot.py"))
    huge = "compiling\n" + "y" * (3 * REPORT_BYTES) + "\nerror: the end"
    with sqlite3.connect(root / "registry.db") as conn:
        conn.executescript(OLD_SCHEMA)
        conn.execute(
            "INSERT INTO versions VALUES ('alice', 1, 'abc', 'rejected', 'the build failed', "
            "?, '/src', 2, 10, 1.0, 2.0, ?, 'checked')",
            (json.dumps(manifest.as_dict()), huge),
        )
    with Registry(root) as registry:
        columns = {r[1] for r in registry.conn.execute("PRAGMA table_info(versions)")}
        assert "build_log" not in columns and "validation" not in columns
        (version,) = registry.versions()
        assert (version.ref, version.status, version.reason) == (
            "alice@1", "rejected", "the build failed",
        )  # fmt: skip
        reports = registry.reports("alice@1")
        assert reports.build_log == capped(huge) and reports.validation == "checked"
        assert reports.build_log.startswith("compiling\n")
        assert reports.build_log.endswith("error: the end")
    with Registry(root) as registry:  # opened again: nothing to move, nothing changed
        assert registry.reports("alice@1").build_log == capped(huge)
