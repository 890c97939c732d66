"""``arena test FILE A B``: play duplicate sets of A against B until a sequential test decides.

The test (:func:`arena.ladder.stats.sprt`: two e-processes, error rates guaranteed for any
scores inside the game's score range) is described in ``ladders/README.md`` ("Sequential test");
the driving loop is :mod:`arena.ladder.sprt`. Errors print one ``arena: error: ...`` line and
exit as ``arena ladder run`` does: 2 for what was asked, 1 when a match stays void, 3 when this
machine cannot run the bots, 4 when the database cannot be written, 130 when interrupted (the
same command resumes).
"""

from __future__ import annotations

import json
import math
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn

from arena.cli.ladder import (
    HOST_EXIT,
    STORAGE_EXIT,
    ClusterOpt,
    FileArg,
    PinOpt,
    WorkersOpt,
    _config,
    _executor,
    _fail,
    _out_of_range,
)
from arena.ladder import sprt
from arena.ladder.config import LadderConfig
from arena.ladder.loop import HostFailure
from arena.ladder.ratings import ScoreOutOfRange, check_scores
from arena.ladder.stats import OutOfRange, SprtSettings, SprtState, difference_bounds
from arena.ladder.store import StorageError, Store, StoreError
from arena.sandbox import cores

LINE_EVERY_S = 5.0


def _status(state: SprtState, max_sets: int) -> str:
    """Sets, each bettor's capital against its threshold, and the estimate of A minus B."""
    est = state.estimate
    mean = "-" if est.mean is None else f"{est.mean:.2f}"
    ci = "" if est.ci is None else f" [{est.ci[0]:.2f}, {est.ci[1]:.2f}]"
    return (
        f"sets {state.sets}/{max_sets}  evidence for H1 {_times(state.for_h1)} of "
        f"{_times(state.h1_at)}, for H0 {_times(state.for_h0)} of {_times(state.h0_at)}  "
        f"A-B {mean}{ci}"
    )


def _times(log_capital: float) -> str:
    """A bettor's capital as a multiple of its stake (the e-value), e.g. ``x3.2``."""
    value = math.exp(log_capital)
    return f"x{value:.3g}" if value < 1e6 else "x>1e6"


@contextmanager
def _progress(label: str, max_sets: int, mode: str) -> Iterator[sprt.Progress | None]:
    """On a terminal, a bar from the H0 bound to the H1 bound at the current LLR; elsewhere a
    line on stderr every few seconds; nothing when quiet."""
    if mode == "quiet":
        yield None
        return
    if mode == "lines":
        last = [0.0]

        def line(state: SprtState, _complete: int) -> None:
            """Every few seconds until the decision; the matches still in flight then finish
            without a line."""
            if last[0] >= 0 and (time.monotonic() - last[0] >= LINE_EVERY_S or state.decision):
                last[0] = -1.0 if state.decision else time.monotonic()
                typer.echo(f"{label}: {_status(state, max_sets)}", err=True)

        yield line
        return
    columns = (TextColumn(f"{label}  H0"), BarColumn(), TextColumn("H1  {task.fields[status]}"))
    with Progress(*columns) as bar:
        task = bar.add_task(label, total=1.0, status="")

        def update(state: SprtState, _complete: int) -> None:
            bar.update(task, completed=state.progress, status=_status(state, max_sets))

        yield update


def decision_line(state: SprtState, a: str, b: str, settings: SprtSettings, budget: int) -> str:
    """What the test concluded, in words."""
    if state.decision == "H1":
        return (
            f"H1 accepted: {a} is stronger than {b} (by {settings.d1:g} or more per set; a bot "
            f"ahead by {settings.d0:g} or less is called stronger at most {settings.alpha:.0%} of "
            "the time, whatever the shape of its scores)"
        )
    if state.decision == "H0":
        return (
            f"H0 accepted: {a} is not stronger than {b} by {settings.d1:g} per set (its "
            f"difference is taken as {settings.d0:g} or less; a bot stronger by {settings.d1:g} "
            f"is missed at most {settings.beta:.0%} of the time, whatever the shape of its "
            "scores)"
        )
    return f"no decision after {state.sets} sets: the budget (--max-sets {budget}) ran out"


def _check_scores(cfg: LadderConfig, a: str, b: str, max_sets: int) -> None:
    """Exit 2 naming the first stored score of the test outside the game's declared range:
    the test's error rates rest on that range, so no decision from such scores is printed."""
    path = sprt.database(cfg, a, b)
    positions = {
        m.match_id: m.position for i in range(max_sets) for m in sprt.set_matches(cfg, a, b, i)
    }
    store = Store.read(path, cfg.game.id)
    try:
        check_scores(store.match_records(positions), cfg.rating.score_range)
    except ScoreOutOfRange as exc:
        _fail(_out_of_range(cfg, exc, f"delete {path} to start the test afresh"))
    finally:
        store.close()


def test_command(
    path: FileArg,
    a: Annotated[str, typer.Argument(metavar="A", help="The bot under test.")],
    b: Annotated[str, typer.Argument(metavar="B", help="The bot it is tested against.")],
    d1: Annotated[
        float,
        typer.Option(
            help="H1: A is ahead by at least this much: relative score per set, in the game's "
            "points."
        ),
    ],
    d0: Annotated[float, typer.Option(help="H0: A is ahead by at most this much.")] = 0.0,
    alpha: Annotated[float, typer.Option(help="Chance of accepting H1 when H0 holds.")] = 0.05,
    beta: Annotated[float, typer.Option(help="Chance of accepting H0 when H1 holds.")] = 0.05,
    max_sets: Annotated[
        int, typer.Option(min=1, help="Stop without a decision after this many sets.")
    ] = 500,
    workers: WorkersOpt = None,
    cluster: ClusterOpt = None,
    pin: PinOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome as JSON.")] = False,
) -> None:
    """Play duplicate sets of A against B until a sequential test accepts H0 or H1.

    Uses the ladder file's game, seats, options, limits and sandbox; with more than two seats
    the file's other bots fill the other seats in turn. Results go to their own database
    beside the ladder's; killed and run again, the test resumes and reaches the same decision.
    """
    cfg = _config(path, check_bots=True)
    for name in (a, b):
        if name not in cfg.bot_names:
            _fail(f"{path}: no bot named {name!r} (bots: {', '.join(cfg.bot_names)})")
    if a == b:
        _fail("test needs two different bots")
    bounds = difference_bounds(cfg.rating.score_range)
    settings = SprtSettings(alpha=alpha, beta=beta, d0=d0, d1=d1, bounds=bounds)
    try:
        settings.check()
    except ValueError as exc:
        _fail(str(exc))
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # `kill` stops like Ctrl-C
    mode = "quiet" if quiet else "bar" if sys.stderr.isatty() else "lines"
    label = f"test {a} vs {b}"
    try:
        with (
            _executor(workers or len(cores.usable()), cluster, pin) as executor,
            _progress(label, max_sets, mode) as progress,
        ):
            outcome = sprt.play_until_decided(cfg, a, b, settings, max_sets, executor, progress)
    except StoreError as exc:
        _fail(str(exc))
    except HostFailure as exc:
        _fail(str(exc), code=HOST_EXIT)
    except StorageError as exc:
        _fail(str(exc), code=STORAGE_EXIT)
    except sprt.Stopped as exc:
        _fail(str(exc), code=1)
    except OutOfRange:  # a per-set value outside the range: a score is, named below
        outcome = None
    except KeyboardInterrupt:
        _fail("interrupted; run the same command again to resume", code=130)
    _check_scores(cfg, a, b, max_sets)
    assert outcome is not None, "a per-set value out of range comes from a score out of range"
    state = outcome.state
    line = decision_line(state, a, b, settings, max_sets)
    if as_json:
        data = {
            "ladder": cfg.name,
            "a": a,
            "b": b,
            "settings": {
                "alpha": alpha,
                "beta": beta,
                "d0": d0,
                "d1": d1,
                "difference_range": [bounds.low, bounds.high],
            },
            "max_sets": max_sets,
            "stored_before": outcome.stored_before,
            "complete_sets": outcome.complete,
            "database": str(sprt.database(cfg, a, b)),
            **state.as_dict(),
            "conclusion": line,
        }
        typer.echo(json.dumps(data, indent=2))
        return
    est = state.estimate
    ci = (
        ""
        if est.ci is None
        else (
            f" [{est.ci[0]:.2f}, {est.ci[1]:.2f}] (95%, anytime; an interval bets on no particular "
            "difference, so it is wider than the test, which bets on d1 and may decide first)"
        )
    )
    typer.echo(
        f"{label}: {cfg.game.id}, {cfg.seats} seats; H0: difference <= {d0:g}, "
        f"H1: >= {d1:g}, alpha {alpha:g}, beta {beta:g}; a set's difference can range over "
        f"[{bounds.low:g}, {bounds.high:g}]"
    )
    typer.echo(
        f"{state.sets} sets used ({outcome.complete} complete sets stored, "
        f"{outcome.stored_before} of them before this run; budget {max_sets}); evidence for "
        f"H1 {_times(state.for_h1)} (decides at {_times(state.h1_at)}), for H0 "
        f"{_times(state.for_h0)} (at {_times(state.h0_at)})"
    )
    mean = "-" if est.mean is None else f"{est.mean:.2f}"
    typer.echo(f"relative score per set, {a} minus {b}: {mean}{ci}")
    typer.echo(line)
