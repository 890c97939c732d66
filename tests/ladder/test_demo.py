"""The shipped demo ladder, run as `make demo` runs it: greedy must come out on top."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import ROOT, arena, show_json


@pytest.mark.timeout(900)  # 48 real matches: a minute on 2 idle cores, many on a busy host
def test_demo_ranks_greedy_above_every_random_bot(tmp_path: Path) -> None:
    text = (ROOT / "ladders" / "demo.toml").read_text()
    assert 'root = ".."' in text
    path = tmp_path / "demo.toml"
    path.write_text(text.replace('root = ".."', f"root = {json.dumps(str(ROOT))}"))
    out = arena("ladder", "run", str(path), "--workers", "2", timeout=800)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[2].split()[:2] == ["1", "greedy"]
    table = show_json(path)
    assert table["matches_stored"] == table["matches_scheduled"] == 48
    greedy, *randoms = table["bots"]
    assert greedy["bot"] == "greedy" and greedy["faults"] == {}
    for other in randoms:
        assert greedy["relative_score_ci"][0] > other["relative_score_ci"][1]
        cmp = arena("ladder", "compare", str(path), "greedy", other["bot"], "--format", "json")
        result = json.loads(cmp.stdout)
        assert result["ci"][0] > 0 and result["a_ahead"] > result["b_ahead"]
        assert result["verdict"] == "greedy is stronger (95%)"
    text = arena("ladder", "compare", str(path), "greedy", "random-1").stdout
    assert text.splitlines()[-1] == "greedy is stronger (95%)"
    replays = sorted((tmp_path / "demo.replays").iterdir())
    assert len(replays) == 48
    verified = arena("replay", "verify", str(replays[0]))
    assert verified.returncode == 0, verified.stderr
