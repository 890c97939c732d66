"""The shipped demo ladder, run as `make demo` runs it: greedy must come out on top."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import ROOT, arena, show_json

MATCHES = 60  # 4 tables x 3 seat rotations x 5 rounds


@pytest.mark.timeout(900)  # 60 real matches: a minute or two on 2 idle cores, many on a busy host
def test_demo_ranks_greedy_above_every_random_bot(tmp_path: Path) -> None:
    text = (ROOT / "ladders" / "demo.toml").read_text()
    assert 'root = ".."' in text
    path = tmp_path / "demo.toml"
    path.write_text(text.replace('root = ".."', f"root = {json.dumps(str(ROOT))}"))
    out = arena("ladder", "run", str(path), "--workers", "2", timeout=800)
    assert out.returncode == 0, out.stderr
    # greedy's place is established (it finishes ahead of every random bot in enough of the
    # sets they share: Holm over all 12 ordered pairs, at every look); three copies of one
    # program are not told apart
    lines = out.stdout.splitlines()
    assert lines[2].split()[:2] == ["1", "greedy"]
    assert [line.split()[0] for line in lines[3:6]] == ["2=", "2=", "2="]
    table = show_json(path)
    assert table["matches_stored"] == table["matches_scheduled"] == MATCHES
    greedy, *randoms = table["bots"]
    assert greedy["bot"] == "greedy" and greedy["faults"] == {}
    assert [(b["place"], b["tied"]) for b in table["bots"]] == [
        (1, False),
        (2, False),  # below greedy, established
        (2, True),
        (2, True),
    ]
    ahead = "greedy finishes ahead of {} in more sets (95%, anytime); mean score not "
    for other in randoms:
        assert greedy["relative_score"] > other["relative_score"]
        cmp = arena("ladder", "compare", str(path), "greedy", other["bot"], "--format", "json")
        result = json.loads(cmp.stdout)
        assert result["sets_won_ci"][0] > 0 and result["a_ahead"] > result["b_ahead"]
        assert result["difference_range"] == [-344, 344]
        assert result["verdict"].startswith(ahead.format(other["bot"]))
    text = arena("ladder", "compare", str(path), "greedy", "random-1").stdout
    assert text.splitlines()[-1].startswith(ahead.format("random-1"))
    replays = sorted((tmp_path / "demo.replays").iterdir())
    assert len(replays) == MATCHES
    verified = arena("replay", "verify", str(replays[0]))
    assert verified.returncode == 0, verified.stderr
