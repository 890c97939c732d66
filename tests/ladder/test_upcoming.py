"""What comes next in a ladder file's schedule (the server's queue): the next sets only, found
from where the last call left off, and the same as the whole schedule minus what is stored.
A real SQLite store, filled through ``Store.record_match`` in a shuffled order and partly
forgotten, so sets complete out of order and come back."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena.ladder import schedule as schedule_module
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.loop import register
from arena.ladder.run import RoundRobin, schedule_of
from arena.ladder.schedule import MatchSpec
from arena.ladder.store import Store
from tests.ladder.helpers import SyntheticExecutor, write_ladder

LADDERS = {
    "pairs": {"bots": 5, "seats": 2, "rounds": 3},
    "threes": {"bots": 6, "seats": 3, "rounds": 2},
    "design": {"bots": 9, "seats": 3, "rounds": 3, "extra": "max_tables = 10"},
    "gauntlet": {"bots": 5, "seats": 3, "rounds": 2,
                 "extra": 'format = "gauntlet"\ncandidate = "r1"'},
}  # fmt: skip
SHOWN = 4  # sets, fewer than any ladder here has


def _old(specs: list[MatchSpec], store: Store, sets: int) -> list[MatchSpec]:
    """The computation before: the whole schedule, less every stored match, then its first
    ``sets`` sets."""
    done = store.done_ids()
    pending = [s for s in specs if s.match_id not in done]
    first = list(dict.fromkeys(s.set_id for s in pending))[:sets]
    return [s for s in pending if s.set_id in first]


def _record(store: Store, cfg: LadderConfig, spec: MatchSpec) -> None:
    bots = [SimpleNamespace(name=b) for b in spec.bots]
    job = SimpleNamespace(match_id=spec.match_id, seed=spec.seed, game=cfg.game.id, options={},
                          bots=bots)  # fmt: skip
    store.record_match(spec, SyntheticExecutor._play(job), 1)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(LADDERS))
def test_the_next_sets_are_those_of_the_whole_schedule_less_what_is_stored(
    tmp_path: Path, name: str
) -> None:
    cfg = load_ladder(write_ladder(tmp_path, **LADDERS[name]), check_bots=False)  # type: ignore[arg-type]
    specs = schedule_of(cfg)
    rng = random.Random(name)
    order = specs[:]  # nearly schedule order: each match moved a few sets at most
    order.sort(key=lambda s: s.position + rng.uniform(0, 4 * cfg.seats))
    kept = RoundRobin(cfg)  # asked after every step, as the server's queue is
    first = {s.set_id for s in specs[: SHOWN * cfg.seats]}
    assert kept.upcoming(None, SHOWN) == [s for s in specs if s.set_id in first]
    store = Store.create(cfg.database, cfg.game.id)
    try:
        register(cfg, store)
        for step, spec in enumerate(order):
            _record(store, cfg, spec)
            if step == len(order) // 2:  # a few stored matches forgotten: they come back
                store.forget([s.match_id for s in order[: 3 * cfg.seats : 2]])
            expected = _old(specs, store, SHOWN)
            assert kept.upcoming(store, SHOWN) == expected, step
            assert RoundRobin(cfg).upcoming(store, SHOWN) == expected, step
        assert kept.upcoming(store, SHOWN) == [] or store.count_matches() < len(specs)
    finally:
        store.close()


def test_the_next_sets_cost_what_they_show(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked again after each stored match, the next sets are drawn once from the schedule:
    the sets made (their digests) are those stored and shown, never the whole schedule."""
    cfg = load_ladder(write_ladder(tmp_path, bots=12, seats=2, rounds=4), check_bots=False)
    specs = schedule_of(cfg)  # 264 sets
    made = []
    duplicate_set = schedule_module.duplicate_set
    monkeypatch.setattr(schedule_module, "duplicate_set",
                        lambda *a: made.append(a[0]) or duplicate_set(*a))  # fmt: skip
    kept = RoundRobin(cfg)
    store = Store.create(cfg.database, cfg.game.id)
    try:
        register(cfg, store)
        for spec in specs[:40]:
            _record(store, cfg, spec)
            assert kept.upcoming(store, SHOWN) == _old(specs, store, SHOWN)
    finally:
        store.close()
    assert len(made) == len(set(made)) == 20 + SHOWN  # 20 sets stored, 4 shown
