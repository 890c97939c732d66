"""``arena test FILE A B``: play duplicate sets of A against B until a sequential test decides.

The statistic and its assumptions are in ``ladders/README.md`` (section "Sequential test");
the driving loop is :mod:`arena.ladder.sprt`. Errors print one ``arena: error: ...`` line and
exit as ``arena ladder run`` does: 2 for what was asked, 1 when a match stays void, 3 when this
machine cannot run the bots, 4 when the database cannot be written, 130 when interrupted (the
same command resumes).
"""

from __future__ import annotations

import json
import os
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
    WorkersOpt,
    _config,
    _executor,
    _fail,
)
from arena.ladder import sprt
from arena.ladder.loop import HostFailure
from arena.ladder.stats import SprtSettings, SprtState
from arena.ladder.store import StorageError, StoreError

LINE_EVERY_S = 5.0


def _status(state: SprtState, max_sets: int) -> str:
    """Sets, LLR between its bounds, and the estimate of A minus B so far."""
    est = state.estimate
    mean = "-" if est.mean is None else f"{est.mean:.2f}"
    ci = est.shortfall if est.ci is None else f"[{est.ci[0]:.2f}, {est.ci[1]:.2f}]"
    return (
        f"sets {state.sets}/{max_sets}  LLR {state.llr:+.2f} in [{state.lower:.2f}, "
        f"{state.upper:.2f}]  A-B {mean} {ci}"
    )


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
            where = (state.llr - state.lower) / (state.upper - state.lower)
            status = _status(state, max_sets)
            bar.update(task, completed=min(1.0, max(0.0, where)), status=status)

        yield update


def decision_line(state: SprtState, a: str, b: str, settings: SprtSettings, budget: int) -> str:
    """What the test concluded, in words."""
    if state.decision == "H1":
        return (
            f"H1 accepted: {a} is stronger than {b} (by {settings.d1:g} or more per set; a bot "
            f"ahead by {settings.d0:g} or less is called stronger at most {settings.alpha:.0%} of "
            "the time)"
        )
    if state.decision == "H0":
        return (
            f"H0 accepted: {a} is not stronger than {b} by {settings.d1:g} per set (its "
            f"difference is taken as {settings.d0:g} or less; a bot stronger by {settings.d1:g} "
            f"is missed at most {settings.beta:.0%} of the time)"
        )
    return f"no decision after {state.sets} sets: the budget (--max-sets {budget}) ran out"


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
    settings = SprtSettings(alpha=alpha, beta=beta, d0=d0, d1=d1)
    try:
        settings.check()
    except ValueError as exc:
        _fail(str(exc))
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # `kill` stops like Ctrl-C
    mode = "quiet" if quiet else "bar" if sys.stderr.isatty() else "lines"
    label = f"test {a} vs {b}"
    try:
        with (
            _executor(workers or os.cpu_count() or 1, cluster) as executor,
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
    except KeyboardInterrupt:
        _fail("interrupted; run the same command again to resume", code=130)
    state = outcome.state
    line = decision_line(state, a, b, settings, max_sets)
    if as_json:
        data = {
            "ladder": cfg.name,
            "a": a,
            "b": b,
            "settings": vars(settings),
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
    ci = est.shortfall if est.ci is None else f"[{est.ci[0]:.2f}, {est.ci[1]:.2f}] (95%)"
    typer.echo(
        f"{label}: {cfg.game.id}, {cfg.seats} seats; H0: difference <= {d0:g}, "
        f"H1: >= {d1:g}, alpha {alpha:g}, beta {beta:g}"
    )
    typer.echo(
        f"{state.sets} sets used ({outcome.complete} complete sets stored, "
        f"{outcome.stored_before} of them before this run; budget {max_sets}); "
        f"LLR {state.llr:+.2f}, bounds {state.lower:.2f} and {state.upper:.2f}"
    )
    mean = "-" if est.mean is None else f"{est.mean:.2f}"
    typer.echo(f"relative score per set, {a} minus {b}: {mean} {ci}")
    typer.echo(line)
