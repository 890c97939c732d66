"""Ladders over registry bots, and the program edited in place that must not be pooled."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.registry.helpers import ROOT, arena, bot_folder

RANDOM = ROOT / "sample_bots" / "python" / "random_bot.py"


def _ladder(path: Path, bots: str, rounds: int = 1, extra: str = "") -> Path:
    path.write_text(
        f'game = "happy_mochi"\nseats = 2\nrounds = {rounds}\nseed = 3\n{extra}\n{bots}'
    )
    return path


def test_a_script_edited_in_place_is_refused_under_its_old_name(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir(mode=0o755)  # bot uids read it
    script = tmp_path / "bots" / "mine.py"
    script.write_text(RANDOM.read_text())
    bots = (
        f'[[bots]]\nname = "mine"\ncommand = "python {script}"\n'
        f'[[bots]]\nname = "other"\ncommand = "python {RANDOM} --seed 4"\n'
    )
    ladder = _ladder(tmp_path / "l.toml", bots)
    first = arena("ladder", "run", str(ladder), "-q")
    assert first.returncode == 0, first.stderr
    script.write_text(script.read_text().replace("random.Random(seed)", "random.Random(seed + 1)"))
    _ladder(ladder, bots, rounds=2)
    refused = arena("ladder", "run", str(ladder), "-q")
    assert refused.returncode == 2
    line = refused.stderr.strip()
    assert line.startswith("arena: error: ") and "\n" not in line, line
    assert "'mine': its program changed" in line and "(changed: bots/mine.py)" in line, line
    assert f"arena ladder forget {ladder} --bot mine" in line
    with sqlite3.connect(tmp_path / "l.db") as db:
        assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 2  # nothing played
    assert arena("ladder", "forget", str(ladder), "--bot", "mine").returncode == 0
    again = arena("ladder", "run", str(ladder), "-q")
    assert again.returncode == 0, again.stderr
    assert "mine" in again.stdout and "4 played" in again.stderr


@pytest.mark.timeout(600)  # two submissions with their check games, then a ladder
def test_a_ladder_over_registry_bots_stores_results_per_version(tmp_path: Path) -> None:
    reg = ["--registry", str(tmp_path / "registry")]
    folder = bot_folder(tmp_path / "alice")
    assert arena("bot", "submit", str(folder), "--check-games", "1", *reg).returncode == 0
    bots = f'[[bots]]\nbot = "alice"\n[[bots]]\nname = "other"\ncommand = "python {RANDOM}"\n'
    ladder = _ladder(tmp_path / "r.toml", bots, extra='registry = "registry"')
    out = arena("ladder", "run", str(ladder), "-q")
    assert out.returncode == 0, out.stderr
    assert "alice@1" in out.stdout
    (folder / "bot.py").write_text((folder / "bot.py").read_text() + "\n# v2\n")
    assert arena("bot", "submit", str(folder), "--check-games", "1", *reg).returncode == 0
    out = arena("ladder", "run", str(ladder), "-q")
    assert out.returncode == 0, out.stderr
    assert "alice@2" in out.stdout
    with sqlite3.connect(tmp_path / "r.db") as db:
        played = dict(db.execute("SELECT bot, COUNT(*) FROM results GROUP BY bot").fetchall())
    assert played == {"alice@1": 2, "alice@2": 2, "other": 4}
    shown = arena("bot", "show", "alice", "--ladder", str(ladder), *reg).stdout
    assert "alice@2: active" in shown and "in r" in shown
    report = arena("ladder", "report", str(ladder), "--out", str(tmp_path / "site"))
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "site" / "bots" / "alice-2.html").read_text()
    versions = page[
        page.index('id="versions"') : page.index("</table>", page.index('id="versions"'))
    ]
    assert versions.index("alice@2") < versions.index("alice@1")  # newest first, both listed
    assert versions.count("active") == 2 and 'class="current"' in versions
    pinned = _ladder(tmp_path / "p.toml", bots.replace('"alice"', '"alice@3"'),
                     extra='registry = "registry"')  # fmt: skip
    missing = arena("ladder", "run", str(pinned), "-q")
    assert missing.returncode == 2 and "bots[0].bot: alice has no version 3" in missing.stderr
