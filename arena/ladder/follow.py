"""Following ladders: ``arena ladder run FILE --follow`` keeps playing and takes new versions.

A ladder file with a ``[follow]`` table has no fixed schedule. The runner plays one duplicate
set at a time, for ever (until stopped), and before each set reads the file again, so a bot
named ``bot = "alice"`` is whatever version of alice is active *now*: a new submission enters
at once, and its previous version leaves the schedule but keeps its results, shown in the
table. The next table is chosen by ``matchmaking.next_table`` (the new version's placement
sets first, then the table expected to teach the ratings the most), always as a complete
duplicate set.

Everything the choice depends on is in the database, so a runner killed at any moment and
started again first completes the set it was playing (its missing rotations, by the same
match ids: nothing is played twice), then chooses exactly as it would have. The set id of a
table's k-th set is a digest of the ladder seed, the configuration and (table, k).

**Crash policy**, per registry version and per ladder: a version with ``MAX_FAULTS`` faulted
seats, or faults in more than ``MAX_FAULT_SHARE`` of at least ``MIN_GAMES`` games, is
``suspended`` in the registry with the reason, and its faults (match ids, codes, stderr tails)
are kept there for ``arena bot show``. ``bot = "alice"`` then plays alice's latest version
still active, if any; while a bot has none the runner waits and says so.

Ratings of a following ladder are computed in the order matches were stored (its schedule is
that order), with each new version starting from its previous version's mu and a fresh sigma
(``start = "inherit"``), or from the prior (``"fresh"``).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from arena.ladder import database
from arena.ladder.config import LadderConfig, LadderConfigError, load_ladder
from arena.ladder.deal_key import deal_key
from arena.ladder.executor import Dispatcher, Executor, Job
from arena.ladder.matchmaking import next_table
from arena.ladder.ratings import MatchRecord, rate
from arena.ladder.run import (
    MAX_ATTEMPTS,
    HostFailure,
    Progress,
    check_host,
    check_replays,
    match_job,
    register,
    rerate,
    void_blame,
)
from arena.ladder.schedule import MatchSpec, digest, duplicate_set
from arena.ladder.store import Store, storage_error
from arena.match.results import OK, is_host_void
from arena.registry.store import Registry

MAX_FAULTS = 10
MAX_FAULT_SHARE = 0.5
MIN_GAMES = 6


def records(cfg: LadderConfig, store: Store) -> tuple[list[MatchSpec], list[MatchRecord]]:
    """Every stored match of the ladder's bots, in storage order, and the specs they had."""
    rows = store.match_rows()
    order = [i for i in store.stored_order() if i in rows]
    names = set(cfg.bot_names)
    specs = []
    for position, match_id in enumerate(order):
        row = rows[match_id]
        bots = tuple(r["bot"] for r in row["results"])
        if names.issuperset(bots):
            specs.append(
                MatchSpec(
                    position,
                    match_id,
                    row["set_id"],
                    row["round"],
                    tuple(sorted(bots)),
                    row["rotation"],
                    row["seed"],
                    bots,
                )
            )
    return specs, store.match_records({s.match_id: s.position for s in specs})


def next_set(cfg: LadderConfig, store: Store) -> list[MatchSpec]:
    """The matches to play next: the rest of a set left incomplete, else the next table's
    whole set; empty when fewer bots than seats are active."""
    playing = {b.name for b in cfg.bots}
    specs, stored = records(cfg, store)
    by_set: dict[str, list[MatchSpec]] = {}
    for spec in specs:
        by_set.setdefault(spec.set_id, []).append(spec)
    for set_id, done in sorted(by_set.items()):
        if len(done) < cfg.seats and playing.issuperset(done[0].table):
            have = {s.match_id for s in done}
            whole = duplicate_set(set_id, done[0].table, done[0].round, 0)
            return [s for s in whole if s.match_id not in have]
    if len(playing) < cfg.seats:
        return []
    ratings, _ = rate(stored, cfg.rating, cfg.bot_names)
    sets_played = Counter(b for done in by_set.values() for b in done[0].table)
    table_sets = Counter(done[0].table for done in by_set.values())
    table = next_table(
        sorted(playing),
        cfg.seats,
        {n: (r.mu, r.sigma) for n, r in ratings.items()},
        sets_played,
        cfg.rating.beta,
        cfg.follow.placement if cfg.follow else 0,
        table_sets,
    )
    k = table_sets[table]
    set_id = digest("follow", cfg.seed, cfg.fingerprint(), "\x1e".join(table), k)[:16]
    return duplicate_set(set_id, table, k, 0)


def follow_ladder(
    path: Path,
    executor: Executor,
    progress: Progress | None = None,
    stop: Callable[[], bool] = lambda: False,
    load: Callable[[], LadderConfig] | None = None,
) -> int:
    """Play sets of the following ladder in ``path`` until ``stop()``; the matches played.
    ``load`` reads the ladder instead of the file (a competition server builds it).

    Raises what ``run_ladder`` raises, and LadderConfigError when the file, read again before
    a set, is no longer valid.
    """
    read = load or (lambda: load_ladder(path, check_bots=True))
    cfg = read()
    check_host(cfg)
    check_replays(cfg.replays)
    store = Store.create(cfg.database, cfg.game.id)
    played = faults = 0
    waiting = ""
    try:
        while not stop():
            try:
                cfg = read()
            except LadderConfigError as exc:  # e.g. a bot with no active version left
                if str(exc) != waiting:
                    print(f"arena: waiting: {exc}", file=sys.stderr, flush=True)
                waiting = str(exc)
                time.sleep(cfg.follow.poll_s if cfg.follow else 1.0)
                continue
            waiting = ""
            register(cfg, store)
            specs = next_set(cfg, store)
            if not specs:
                time.sleep(cfg.follow.poll_s if cfg.follow else 1.0)
                continue
            played_now, faults_now = _play(cfg, executor, store, specs, deal_key(store))
            played += played_now
            faults += faults_now
            apply_crash_policy(cfg, store, {b for s in specs for b in s.bots})
            rerate(cfg, store)
            store.check_still_there()
            if progress is not None:
                progress(played, played, faults)
    except database.Error as exc:
        raise storage_error(cfg.database, exc) from None
    finally:
        store.close()
    return played


def _play(
    cfg: LadderConfig, executor: Executor, store: Store, specs: list[MatchSpec], key: bytes
) -> tuple[int, int]:
    """Play one set's matches (void ones retried) dealt from ``key``; (stored, bot faults)."""
    by_id = {s.match_id: s for s in specs}
    jobs = [Job(s.match_id, match_job(cfg, s, key)) for s in specs]
    dispatcher = Dispatcher(executor, jobs)
    played = faults = 0
    for job, result in dispatcher:
        spec = by_id[job.key]
        if result.get("void"):
            blame = void_blame(result, job)
            store.record_void(job.key, job.attempt, result["void"], spec.bots, blame)
            if is_host_void(result["void"]):
                raise HostFailure(f"the run stopped: {result['void']}")
            if job.attempt < MAX_ATTEMPTS:
                dispatcher.again(job, solo=True)
            continue
        store.record_match(spec, result, job.attempt)
        played += 1
        faults += sum(1 for s in result["seats"] if s["status"] != "ok")
    return played, faults


def apply_crash_policy(cfg: LadderConfig, store: Store, seated: set[str]) -> None:
    """Suspend every registry version of ``seated`` over the crash policy's limits."""
    versions = {name for name, _ in cfg.refs} & seated
    if not versions or cfg.registry is None:
        return
    with Registry(cfg.registry) as reg:
        for ref in sorted(versions):
            seats = store.seat_results(ref)
            faults = [s for s in seats if s["status"] != OK]
            share = len(faults) / len(seats) if seats else 0.0
            if len(faults) >= MAX_FAULTS or (len(seats) >= MIN_GAMES and share > MAX_FAULT_SHARE):
                codes = Counter(f["status"] for f in faults)
                kinds = ", ".join(f"{c} x{n}" for c, n in sorted(codes.items()))
                reason = (
                    f"{len(faults)} faults in {len(seats)} games of ladder {cfg.name} ({kinds}); "
                    f"limits: {MAX_FAULTS} faults, or over {MAX_FAULT_SHARE:.0%} after {MIN_GAMES}"
                )
                reg.suspend(ref, reason, cfg.name, faults)
