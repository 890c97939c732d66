"""The mutation check of the engines (bench/mutants.py, bench/mutate.py): the mutants it makes and
how it applies them, its fixed sample, and its verdicts on real child runs: a mutant that fails a
test, times out, hangs, is killed by a signal or runs out of memory counts as killed, and says why.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load(name: str) -> ModuleType:
    """A bench script as a module, without putting bench/ on sys.path for the whole session."""
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


mutants = load("mutants")
mutate = load("mutate")

SOURCE = '''"""A module docstring."""

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import os

LIMIT = 3


def score(cards: list[int], bonus: Literal[5] = 0) -> int:
    """Sum the cards."""
    total = 0
    for card in cards:
        if card > LIMIT and card != 7:
            total += card * 2
        elif not card:
            break
    assert total >= 10
    label = "café"; total = total - 1
    return total - bonus if cards else -1


def log(events):
    events.append(1)
    events.append(1)
    return
'''


def changes(source: str = SOURCE) -> set[tuple[int, str, str]]:
    return {(m.line, m.kind, m.change()) for m in mutants.mutants(source, "m.py")}


def test_every_kind_of_change_is_made():
    """Operators, comparisons, booleans, conditions, constants and removed statements."""
    assert {
        (8, "constant", "3  ->  (4)"),
        (15, "comparison", "card > LIMIT  ->  (card >= LIMIT)"),
        (15, "comparison", "card != 7  ->  (card == 7)"),
        (15, "boolean", "card > LIMIT and card != 7  ->  (card > LIMIT or card != 7)"),
        (15, "condition", "card > LIMIT and card != 7  ->  (not (card > LIMIT and card != 7))"),
        (16, "operator", "total += card * 2  ->  total -= card * 2"),
        (16, "operator", "card * 2  ->  (card + 2)"),
        (16, "statement", "total += card * 2  ->  pass"),
        (17, "boolean", "not card  ->  (card)"),
        (18, "statement", "break  ->  pass"),
        (21, "statement", "return total - bonus if cards else -1  ->  pass"),
        (21, "boolean", "-1  ->  (1)"),
        (25, "statement", "events.append(1)  ->  pass"),
    } <= changes()


def test_what_says_nothing_about_rules_is_left_alone():
    """Docstrings, imports, TYPE_CHECKING blocks, annotations, asserts, strings, local bindings
    (a removed one is only a NameError) and the bare return that ends a function."""
    lines = {line for line, _, _ in changes()}
    assert not lines & {1, 3, 5, 6, 12, 19, 27}
    assert (11, "constant", "0  ->  (1)") in changes()  # the default, not the Literal[5]
    assert not [c for c in changes() if c[1] == "statement" and c[0] in (13, 20)]
    assert not [c for c in changes() if "Literal" in c[2] or "café" in c[2]]


def test_a_mutant_changes_its_node_only():
    """The source with one node replaced: it compiles, differs, and keeps the other lines; byte
    columns are honoured after a non-ASCII character on the same line."""
    lines = SOURCE.splitlines()
    for m in mutants.mutants(SOURCE, "m.py"):
        changed = mutants.apply(SOURCE, m)
        assert changed != SOURCE
        ast.parse(changed)
        new_lines = changed.splitlines()
        assert len(new_lines) == len(lines)
        assert [i for i, (a, b) in enumerate(zip(lines, new_lines, strict=True)) if a != b] == [
            m.line - 1
        ]
    (minus,) = [m for m in mutants.mutants(SOURCE, "m.py") if m.original == "total - 1"]
    assert (
        mutants.apply(SOURCE, minus).splitlines()[19] == '    label = "café"; total = (total + 1)'
    )


def test_ids_are_stable_and_distinct():
    """An id does not move when lines are added above; two identical changes get two ids."""
    ids = [m.id for m in mutants.mutants(SOURCE, "m.py")]
    moved = [m.id for m in mutants.mutants("import sys\n\n\n" + SOURCE, "m.py")]
    assert ids == moved and len(set(ids)) == len(ids)
    other_file = {m.id for m in mutants.mutants(SOURCE, "n.py")}
    assert not other_file & set(ids)


def test_the_sample_is_fixed_by_its_seed():
    found = mutants.mutants(SOURCE, "m.py")
    first = mutate.sample(found, 5, seed=29)
    assert first == mutate.sample(list(reversed(found)), 5, seed=29)
    assert len(first) == 5 and set(first) <= set(found)
    assert first != mutate.sample(found, 5, seed=30)
    everything = mutate.sample(found, 1000, seed=29)
    assert set(everything) == set(found) and len(everything) == len(found)
    assert everything == sorted(everything, key=lambda m: (m.path, m.start))  # in source order


def test_rule_code_leaves_out_position_formats_and_determinization():
    for game in mutate.games():
        names = {p.name for p in mutate.rule_modules(game)}
        assert "state.py" in names and not names & mutate.NOT_RULES


def test_a_mutated_module_is_restored_even_after_an_error(tmp_path: Path):
    (tmp_path / "m.py").write_text(SOURCE)
    (m,) = [m for m in mutants.mutants(SOURCE, "m.py") if m.change() == "break  ->  pass"]
    with pytest.raises(RuntimeError), mutate.mutated(tmp_path, m):
        assert "            pass\n" in (tmp_path / "m.py").read_text()
        raise RuntimeError
    assert (tmp_path / "m.py").read_text() == SOURCE


CASES = {
    "passes": ("def test_ok():\n    assert True\n", False, ""),
    "fails": ("def test_no():\n    assert 1 == 2\n", True, "failed: "),
    "times_out": ("import time\ndef test_slow():\n    time.sleep(600)\n", True, "timeout: "),
    "hangs": (
        "import signal, time\n"
        "def test_deaf():\n"
        "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
        "    time.sleep(600)\n",
        True,
        "hang: no result after 6 s",
    ),
    "is_killed": ("import os, signal\ndef test_kill():\n    os.kill(os.getpid(), 9)\n", True, ""),
    "eats_memory": ("def test_greedy():\n    blob = bytearray(8 << 30)\n", True, "failed: "),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_verdicts_of_real_child_runs(case: str, tmp_path: Path):
    """A project whose one test passes, fails, outlives the per-test timeout, blocks that
    timeout's signal (the whole run's timeout then kills it), is killed by a signal, or asks for
    more memory than the child's limit."""
    code, killed, reason = CASES[case]
    copy = tmp_path / "copy"
    (copy / "tests" / "games" / "fake").mkdir(parents=True)
    (copy / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    (copy / "tests" / "games" / "fake" / "test_case.py").write_text(code)
    work = mutate.make_work(tmp_path / "work")
    baseline = mutate.Baseline(1.0, {}, test_timeout=2, run_timeout=6 if case == "hangs" else 600)
    status, report = mutate.run_tests(copy, "fake", baseline, work)
    verdict = mutate.verdict(status, report, 0.0)
    assert verdict.killed == killed and verdict.reason.startswith(reason), verdict
    if case == "is_killed":
        assert verdict.reason == "crash: SIGKILL"
    if case == "eats_memory":
        assert "MemoryError" in verdict.reason
    if case == "times_out":
        assert "Timeout" in verdict.reason
