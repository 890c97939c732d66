"""``arena ladder ...``: run a ladder file and read its results.

Errors in the file, a database at odds with it or an unreachable cluster print one line,
``arena: error: ...``, and exit 2 before any match starts. An interrupted run exits 130 and
resumes when the same command runs again; a match still void after its retries exits 1. A
machine that cannot run the bots (sandbox, interpreter, cgroup, uid) stops the run with exit 3,
blaming no bot; a database that cannot be written (read-only, disk full, deleted during the run)
exits 4, and what was stored before is safe.
"""

from __future__ import annotations

import shlex
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from arena import sandbox
from arena.cli.plain_help import App
from arena.ladder import database, loop
from arena.ladder import run as ladder
from arena.ladder.config import LadderConfig, LadderConfigError, load_ladder
from arena.ladder.executor import DaskExecutor, Executor, ExecutorError, LocalExecutor
from arena.ladder.ratings import ScoreOutOfRange
from arena.ladder.standings import comparison_of, standings
from arena.ladder.store import (
    CommandChanged,
    ProgramChanged,
    StorageError,
    Store,
    StoreError,
    storage_error,
)
from arena.report import tables as report
from arena.sandbox import cores

ladder_app = App(help="Run ladders (round-robin, gauntlet) and read their tables.")

FileArg = Annotated[Path, typer.Argument(metavar="FILE", help="Ladder file (TOML).")]
FormatOpt = Annotated[
    str,
    typer.Option("--format", "-f", metavar="FORMAT", help=f"Output: {', '.join(report.FORMATS)}."),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option(min=1, help="Local worker processes [default: the cores Arena may use]."),
]
ClusterOpt = Annotated[
    str | None,
    typer.Option(metavar="ADDRESS", help="Dask scheduler address, e.g. tcp://host:8786."),
]
PinOpt = Annotated[
    bool | None,
    typer.Option(
        "--pin/--no-pin",
        help="Each local worker and its bots on a core of their own, if there are enough "
        "[default: when the workers take every core].",
        show_default=False,
    ),
]


HOST_EXIT = 3  # this machine cannot run the bots: nothing blamed on them
STORAGE_EXIT = 4  # the database cannot be written: what was stored is safe


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"arena: error: {message}", err=True)
    raise typer.Exit(code)


def _config(path: Path, fmt: str = "table", check_bots: bool = False) -> LadderConfig:
    if fmt not in report.FORMATS:
        _fail(f"--format must be one of {', '.join(report.FORMATS)}, got {fmt!r}")
    try:
        return load_ladder(path, check_bots=check_bots)
    except LadderConfigError as exc:
        for problem in exc.problems[:-1]:  # every mistake of the file, one line each
            typer.echo(f"arena: error: {problem}", err=True)
        _fail(exc.problems[-1])


def _out_of_range(cfg: LadderConfig, exc: ScoreOutOfRange, remedy: str = "") -> str:
    """A stored score the game's declared range does not allow: every interval and verdict
    rests on that range, so none is computed; the organiser is told what to do."""
    remedy = remedy or (
        f"drop the match to read the rest: arena ladder forget {cfg.path} --match {exc.match_id}"
    )
    return (
        f"{cfg.path}: {exc}; every interval and verdict rests on that range, so none is "
        f"computed. The game ({cfg.game.id}) broke it: report this match to its maintainers "
        f"(its replay reproduces it), then {remedy}"
    )


@contextmanager
def _reading(cfg: LadderConfig) -> Iterator[Store]:
    """The database, read-only; a stored score outside the game's range exits 2, naming it."""
    try:
        store = Store.read(cfg.database, cfg.game.id)
    except StoreError as exc:
        _fail(str(exc))
    try:
        yield store
    except ScoreOutOfRange as exc:
        _fail(_out_of_range(cfg, exc))
    finally:
        store.close()


@contextmanager
def _writing(cfg: LadderConfig) -> Iterator[Store]:
    """The existing database, locked for writing; a failure to write it exits 4 (what was
    stored is safe), a database at odds with the file exits 2."""
    if not database.exists(cfg.database):
        _fail(f"{cfg.database}: no ladder database yet (run `arena ladder run` first)")
    try:
        store = Store.create(cfg.database, cfg.game.id)
    except StoreError as exc:
        _fail(str(exc))
    except StorageError as exc:
        _fail(str(exc), code=STORAGE_EXIT)
    try:
        yield store
        store.check_still_there()
    except ScoreOutOfRange as exc:
        _fail(_out_of_range(cfg, exc))
    except StorageError as exc:
        _fail(str(exc), code=STORAGE_EXIT)
    except database.Error as exc:
        _fail(str(storage_error(cfg.database, exc)), code=STORAGE_EXIT)
    finally:
        store.close()


def _header(cfg: LadderConfig, stored: int, scheduled: int) -> dict[str, object]:
    return {
        "ladder": cfg.name,
        "game": cfg.game.id,
        "seats": cfg.seats,
        "model": cfg.rating.model,
        "matches_stored": stored,
        "matches_scheduled": scheduled,
        "complete": stored == scheduled,
    }


def _show(cfg: LadderConfig, store: Store, fmt: str, wide: bool = False) -> None:
    table = standings(cfg, store)
    stats, stored, scheduled = table.stats, table.matches, table.scheduled
    width = None if wide else shutil.get_terminal_size().columns
    header = _header(cfg, stored, scheduled)
    typer.echo(report.ladder_table(stats, fmt, header, width))
    if fmt in ("table", "markdown"):
        if any(s.tied for s in stats):
            typer.echo(
                "=: not established that the bot above finishes ahead of it in more of the sets "
                "both played (Holm over every pair: family-wise error 5%, at every look)"
            )
        typer.echo(
            f"intervals: 95% confidence sequences, valid however often the table is looked at; "
            f"scores in [{cfg.rating.score_range[0]:g}, {cfg.rating.score_range[1]:g}]"
        )
        if stored < scheduled:
            typer.echo(
                f"{stored} of {scheduled} matches stored: the ladder is incomplete "
                f"(`arena ladder run {cfg.path}` plays the rest)"
            )
    known = store.commands()
    for bot in cfg.bots:
        before = known.get(bot.name)
        if before is not None and before != bot.command:
            typer.echo(
                f"note: {cfg.path}: bot {bot.name!r}: the file's command differs from the one its "
                f"stored results were played with ({shlex.join(before)!r}); `arena ladder run` "
                f"refuses to mix them: `arena ladder forget {cfg.path} --bot {bot.name}` drops "
                "its matches",
                err=True,
            )
    if table.outside:
        typer.echo(
            f"note: {table.outside} stored matches are not in this schedule (not counted)", err=True
        )


PROGRESS_EVERY_S = 10.0  # between progress lines when the output is not a terminal


@contextmanager
def _progress(name: str, quiet: bool) -> Iterator[loop.Progress | None]:
    """A bar named after the ladder (done/total, rate, ETA, faults) on a terminal; elsewhere
    (CI, ``nohup``, a pipe) a line on stderr every ``PROGRESS_EVERY_S`` seconds."""
    if quiet:
        yield None
    elif sys.stderr.isatty():
        with _bar(name) as update:
            yield update
    else:
        yield _lines(name)


def _lines(name: str) -> loop.Progress:
    started = time.monotonic()
    state = {"base": -1, "last": started}

    def update(done: int, total: int | None, faults: int, pace: str) -> None:
        total = done if total is None else total  # a following ladder: what it played
        now = time.monotonic()
        if state["base"] < 0:  # the first call reports what was stored before
            state["base"] = done
        if now - state["last"] < PROGRESS_EVERY_S and done < total:
            return
        state["last"] = now
        rate = (done - state["base"]) / max(1e-9, now - started)
        left = f", about {(total - done) / rate:.0f} s left" if rate > 0 and done < total else ""
        slowed = f" ({pace})" if pace else ""
        typer.echo(
            f"{name}: {done}/{total} matches, {rate:.2f}/s, {faults} bot faults{left}{slowed}",
            err=True,
        )

    return update


@contextmanager
def _bar(name: str) -> Iterator[loop.Progress]:
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
        TextColumn("faults {task.fields[faults]}"),
        TextColumn("{task.fields[pace]}"),
    )
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task(name, total=None, rate="", faults=0, pace="")
        started = time.monotonic()
        baseline: dict[str, int] = {}

        def update(done: int, total: int | None, faults: int, pace: str) -> None:
            base = baseline.setdefault("done", done)  # the first call reports what was stored
            rate = (done - base) / max(1e-9, time.monotonic() - started)
            total = done if total is None else total  # a following ladder: what it played
            bar.update(
                task, completed=done, total=total, rate=f"{rate:.2f}/s", faults=faults, pace=pace
            )

        yield update


def _executor(workers: int, cluster: str | None, pin: bool | None) -> Executor:
    if cluster is None:
        return LocalExecutor(workers, pin)
    try:
        return DaskExecutor(cluster)
    except ExecutorError as exc:
        _fail(str(exc))


def _runnable(path: Path, fmt: str, follow: bool) -> LadderConfig:
    """The ladder file, read and checked for ``run`` (its bots, ``--follow``, this host)."""
    cfg = _config(path, fmt, check_bots=True)
    if follow != (cfg.follow is not None):
        _fail(
            f"{path}: --follow runs a following ladder (a file with a [follow] table)"
            if follow
            else f"{path}: a following ladder ([follow] table) runs with --follow"
        )
    try:
        if loop.check_host(cfg) == "rlimits":
            typer.echo(f"arena: warning: {sandbox.UNSANDBOXED}", err=True)
    except loop.HostFailure as exc:
        _fail(str(exc), code=HOST_EXIT)
    return cfg


@ladder_app.command()
def run(
    path: FileArg,
    workers: WorkersOpt = None,
    cluster: ClusterOpt = None,
    pin: PinOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    fmt: FormatOpt = "table",
    follow: Annotated[
        bool,
        typer.Option(
            "--follow", help="Keep playing, taking new registry versions (a [follow] ladder)."
        ),
    ] = False,
) -> None:
    """Play every scheduled match not stored yet (resumes), then print the ladder table.

    Ctrl-C or SIGTERM stops at once (matches in flight are lost, the rest is stored); the same
    command resumes. With --follow (a ladder file with a [follow] table) it plays on until
    stopped, one duplicate set at a time, re-reading the file and the registry before each.
    """
    count = workers or len(cores.usable())
    # local workers start first: they import while the file is read and its bots checked
    local = LocalExecutor(count, pin) if cluster is None else None
    try:
        cfg = _runnable(path, fmt, follow)
    except BaseException:
        if local is not None:
            local.close(abort=True)
        raise
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # `kill` stops like Ctrl-C
    try:
        with (
            local or _executor(count, cluster, pin) as executor,
            _progress(cfg.name, quiet) as progress,
        ):  # a following ladder returns only when stopped (Ctrl-C, SIGTERM: below)
            summary = ladder.run_ladder(cfg, executor, progress)
    except LadderConfigError as exc:
        _fail(exc.problems[0])
    except (CommandChanged, ProgramChanged) as exc:
        _fail(
            f"{path}: {exc}; give the bot a new name, or drop its stored matches: "
            f"arena ladder forget {path} --bot {exc.bot}"
        )
    except StoreError as exc:
        _fail(str(exc))
    except ScoreOutOfRange as exc:  # every match is stored; the ratings' table cannot be read
        _fail(_out_of_range(cfg, exc))
    except loop.HostFailure as exc:
        _fail(str(exc), code=HOST_EXIT)
    except StorageError as exc:
        _fail(str(exc), code=STORAGE_EXIT)
    except KeyboardInterrupt:
        _fail(f"interrupted: {_stored(cfg)}; run the same command again to resume", code=130)
    # A void match is played again, up to MAX_ATTEMPTS tries: said only when it happened.
    again = f" ({summary.retries} replays of void matches)" if summary.retries else ""
    void = f"{summary.failed} void after {loop.MAX_ATTEMPTS} tries, " if summary.failed else ""
    typer.echo(
        f"{cfg.name}: {summary.scheduled} matches scheduled, {summary.already} stored before, "
        f"{summary.played} played{again}, {void}{summary.faults} bot faults, "
        f"{summary.elapsed_s:.1f} s",
        err=True,
    )
    with _reading(cfg) as store:
        _show(cfg, store, fmt)
    if summary.blocked:
        _fail(_blocked_message(cfg, summary), code=1)
    if summary.failed:
        _fail(f"{summary.failed} matches stayed void; run again to retry them", code=1)


def _stored(cfg: LadderConfig) -> str:
    """How much of the schedule is safely stored, for the organiser who just stopped a run."""
    try:
        store = Store.read(cfg.database, cfg.game.id)
    except StoreError:  # stopped before the database was made
        return "no match stored yet"
    try:
        schedule, stored = ladder.records(cfg, store)
    finally:
        store.close()
    return f"{len(stored)} of {len(schedule)} matches stored (those in flight are lost)"


def _blocked_message(cfg: LadderConfig, summary: ladder.RunSummary) -> str:
    """Which matches are no longer played because they keep voiding, and what to do."""
    shown = "; ".join(
        f"{b.match_id} ({', '.join(b.bots)}; last: {b.last})" for b in summary.blocked[:5]
    )
    more = f" and {len(summary.blocked) - 5} more" if len(summary.blocked) > 5 else ""
    suspects = summary.suspects()
    seated = f"; seated in every one of them: {', '.join(suspects)}" if suspects else ""
    return (
        f"{len(summary.blocked)} matches voided {loop.MAX_VOIDS} times by their own referee or "
        f"worker failing are no longer played (a bot may be crashing the referee to undo its "
        f"losses): {shown}{more}{seated}. Look into them, then `arena ladder forget {cfg.path} "
        "--match ID` to let one be played again, or `--bot NAME` to drop a bot's matches"
    )


@ladder_app.command()
def show(
    path: FileArg,
    fmt: FormatOpt = "table",
    wide: Annotated[
        bool, typer.Option("--wide", help="Every column, however wide the terminal.")
    ] = False,
) -> None:
    """The ladder table: conservative rating order, results, faults, relative-score CI."""
    cfg = _config(path, fmt)
    with _reading(cfg) as store:
        _show(cfg, store, fmt, wide)


@ladder_app.command()
def matches(
    path: FileArg,
    bot: Annotated[
        str | None, typer.Option(metavar="NAME", help="Only matches this bot played.")
    ] = None,
    fmt: FormatOpt = "table",
) -> None:
    """Stored matches in schedule order: seats, scores, ranks, faults."""
    cfg = _config(path, fmt)
    with _reading(cfg) as store:
        rows = store.match_rows(full=fmt == "json")
        listed = [
            rows[s.match_id] | {"position": s.position}
            for s in ladder.schedule_of(cfg)
            if s.match_id in rows and (bot is None or bot in s.bots)
        ]
    typer.echo(report.matches_table(listed, fmt))


@ladder_app.command()
def h2h(path: FileArg, fmt: FormatOpt = "table") -> None:
    """Head-to-head: how often the row bot finished ahead of the column bot when they met."""
    cfg = _config(path, fmt)
    with _reading(cfg) as store:
        table = standings(cfg, store)
    typer.echo(report.h2h_table(table.order, table.head_to_head(), fmt))


@ladder_app.command()
def seats(path: FileArg, fmt: FormatOpt = "table") -> None:
    """Seat effects: how each seat position fared, whoever sat in it, with a 95% interval
    valid however often you look."""
    cfg = _config(path, fmt)
    with _reading(cfg) as store:
        effects = standings(cfg, store).seat_effects()
    typer.echo(report.seats_table(effects, fmt))


@ladder_app.command("compare")
def compare_cmd(
    path: FileArg,
    a: Annotated[str, typer.Argument(metavar="A", help="A bot of the ladder.")],
    b: Annotated[str, typer.Argument(metavar="B", help="Another bot of the ladder.")],
    fmt: FormatOpt = "table",
) -> None:
    """A against B over the duplicate sets both played: mean difference and sets won, each
    with a 95% interval valid however often you look, and a verdict."""
    cfg = _config(path, fmt)
    for name in (a, b):
        if name not in cfg.bot_names:
            _fail(f"{path}: no bot named {name!r} (bots: {', '.join(cfg.bot_names)})")
    if a == b:
        _fail("compare needs two different bots")
    with _reading(cfg) as store:
        comparison = comparison_of(cfg, store, a, b)
    typer.echo(report.compare_table(comparison, fmt))


@ladder_app.command()
def rerate(path: FileArg, fmt: FormatOpt = "table") -> None:
    """Rebuild the ratings and their history from the stored results; print the table."""
    cfg = _config(path, fmt)
    with _writing(cfg) as store:
        ladder.rerate(cfg, store)
    with _reading(cfg) as reader:
        _show(cfg, reader, fmt)


@ladder_app.command()
def forget(
    path: FileArg,
    match: Annotated[
        list[str] | None,
        typer.Option(
            "--match", metavar="ID", help="A stored match id or unique prefix (repeatable)."
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            metavar="TIME",
            help="Every match stored at or after this ISO time (local unless zoned).",
        ),
    ] = None,
    bot: Annotated[
        str | None,
        typer.Option(
            metavar="NAME", help="Every match of this bot, and its record (to change its command)."
        ),
    ] = None,
    fmt: FormatOpt = "table",
) -> None:
    """Drop stored matches (their results and void attempts) and rebuild the ratings.

    For matches played under a broken set-up, or a bot whose command changed. The next `run`
    plays them again.
    """
    if sum(x is not None for x in (match, since, bot)) != 1:
        _fail("forget needs exactly one of --match ID ..., --since ISO-TIME, --bot NAME")
    cfg = _config(path, fmt)
    with _writing(cfg) as store:
        count = store.forget(_forgotten(store, match, since, bot), bot)
        ladder.rerate(cfg, store)
    typer.echo(f"{cfg.name}: forgot {count} stored matches; ratings rebuilt", err=True)
    with _reading(cfg) as reader:
        _show(cfg, reader, fmt)


def _forgotten(
    store: Store, match: list[str] | None, since: str | None, bot: str | None
) -> list[str]:
    """The stored match ids ``forget`` was asked for; exit 2 naming any that is not there."""
    if match is not None:
        ids = []
        for given in match:
            found = store.resolve(given)
            if len(found) != 1:
                what = "no stored match" if not found else f"{len(found)} stored matches"
                _fail(f"--match {given}: {what} with that id")
            ids += found
        return ids
    if since is not None:
        try:
            when = datetime.fromisoformat(since)
        except ValueError:
            _fail(f"--since {since!r}: not an ISO 8601 time (e.g. 2026-11-24T05:00)")
        return store.matches_since(when.timestamp())
    assert bot is not None
    ids = store.matches_of(bot)
    if not ids and not store.has_bot(bot):
        _fail(f"--bot {bot}: no such bot in {database.describe(store.location)}")
    return ids


@ladder_app.command("report")
def report_cmd(
    path: FileArg,
    out: Annotated[
        Path | None,
        typer.Option(help="Folder to write (default: beside the database, NAME.report/)."),
    ] = None,
) -> None:
    """Write the HTML report (standings, plots, faults, bot pages, replays); print its path."""
    cfg = _config(path)
    if not database.exists(cfg.database):
        _fail(f"{cfg.database}: no ladder database yet (run `arena ladder run` first)")
    target = out or database.beside(cfg.database, cfg.path, ".report")
    from arena.report.html import write_report  # matplotlib: only the report pays for it

    try:
        index = write_report(cfg, target)
    except StoreError as exc:
        _fail(str(exc))
    except ScoreOutOfRange as exc:
        _fail(_out_of_range(cfg, exc))
    except OSError as exc:
        _fail(f"{target}: cannot write the report ({exc.strerror or exc})")
    typer.echo(f"report: {index}")
