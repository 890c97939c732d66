"""``arena bot ...``: submit bot folders to a registry and read what became of them.

A version that is rejected by its gate exits 1 with the reason; a folder or manifest that
cannot be stored exits 2 naming what and where; a machine that cannot build or check bots
exits 3 and blames no bot (the version is ``waiting``: ``arena bot recheck`` runs its gate
again once the machine is fixed); a server's gate that has not spoken when ``--timeout`` runs
out exits 4.
"""

from __future__ import annotations

import contextlib
import os
from datetime import datetime
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from tabulate import tabulate

from arena.cli.author import FORMATS, print_status
from arena.cli.plain_help import App
from arena.cli.serve import HOST_EXIT, WAIT_S, recheck_remote, submit_remote
from arena.ladder.config import LadderConfigError, load_ladder
from arena.ladder.store import Store, StoreError
from arena.registry.content import MAX_BYTES, MAX_FILES, ContentError
from arena.registry.gate import CHECK_GAMES, GateHostError, describe, run_gate, submit
from arena.registry.manifest import ManifestError
from arena.registry.store import (
    RECHECKABLE,
    Registry,
    RegistryError,
    Reports,
    Version,
    parse_ref,
)
from arena.sandbox import clean_output

bot_app = App(
    help="Submit bots to a registry (versioned, built, validated) and look at them.",
    no_args_is_help=True,
)

DEFAULT_REGISTRY = "registry"
BUILD_LINES = 15  # of a build log, shown without --log
RegistryOpt = Annotated[
    Path | None,
    typer.Option(
        "--registry",
        help=f"Registry folder [default: $ARENA_REGISTRY, else ./{DEFAULT_REGISTRY}].",
    ),
]
TokenOpt = Annotated[
    str | None,
    typer.Option(help="Your author token for --server [default: $ARENA_AUTHOR_TOKEN]."),
]
TimeoutOpt = Annotated[
    float,
    typer.Option(
        min=1, metavar="SECONDS", help="With --server: how long to follow the gate queue."
    ),
]


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"arena: error: {message}", err=True)
    raise typer.Exit(code)


def _open(path: Path | None) -> Registry:
    root = path or Path(os.environ.get("ARENA_REGISTRY") or DEFAULT_REGISTRY)
    try:
        return Registry(root)
    except RegistryError as exc:
        _fail(str(exc))


def _when(t: float) -> str:
    return datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M")


@bot_app.command("submit")
def submit_cmd(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="Bot folder with arena-bot.toml.")],
    name: Annotated[
        str | None,
        typer.Option(help="Registry name [default: the manifest's]; picks one of several bots."),
    ] = None,
    registry: RegistryOpt = None,
    check_games: Annotated[
        int, typer.Option(min=1, help="check-bot matches per game in the validation gate.")
    ] = CHECK_GAMES,
    max_mb: Annotated[int, typer.Option(min=1, help="Size limit of the folder.")] = MAX_BYTES >> 20,
    max_files: Annotated[int, typer.Option(min=1, help="File-count limit.")] = MAX_FILES,
    server: Annotated[
        str | None,
        typer.Option(metavar="URL", help="Submit to a competition server instead (arena serve)."),
    ] = None,
    token: TokenOpt = None,
    timeout: TimeoutOpt = WAIT_S,
) -> None:
    """Store a bot folder as a new version (when its content changed), build it in the
    sandbox, validate it with check-bot; print the version and its status. With --server the
    server queues its gate: the command follows it, a line per change, until it has spoken."""
    if server is not None:
        token = token or os.environ.get("ARENA_AUTHOR_TOKEN", "")
        submit_remote(path, server, token, name, timeout)
        return
    with _open(registry) as reg:
        try:
            done = submit(reg, path, name, check_games, max_mb << 20, max_files)
        except (ManifestError, ContentError, RegistryError) as exc:
            _fail(str(exc))
        except GateHostError as exc:
            _host_failed(exc)
    v = done.version
    if not done.new:
        typer.echo(f"{v.ref}: unchanged (same content as stored, {v.hash[:12]}): {v.status}")
    else:
        typer.echo(f"{v.ref}: stored ({v.files} files, {v.hash[:12]}): {v.status}")
    _rejected(v, again=not done.new)


def _host_failed(exc: GateHostError) -> NoReturn:
    _fail(f"{exc}; no bot was blamed: fix it, then `arena bot recheck` the version",
          code=HOST_EXIT)  # fmt: skip


def _rejected(v: Version, again: bool = False) -> None:
    """Exit 1 with the reason when ``v`` is rejected (``again``: by an earlier submission)."""
    if v.status != "rejected":
        return
    hint = f"`arena bot show {v.ref} --log` has the report"
    if again:
        hint += f"; `arena bot recheck {v.ref}` runs its gate again"
    _fail(clean_output(f"{v.ref} rejected: {v.reason} ({hint})"), code=1)


@bot_app.command("recheck")
def recheck_cmd(
    ref: Annotated[str, typer.Argument(metavar="NAME@N", help="A waiting or rejected version.")],
    registry: RegistryOpt = None,
    check_games: Annotated[
        int, typer.Option(min=1, help="check-bot matches per game in the validation gate.")
    ] = CHECK_GAMES,
    server: Annotated[
        str | None,
        typer.Option(metavar="URL", help="Ask a competition server instead (your own version)."),
    ] = None,
    token: TokenOpt = None,
    timeout: TimeoutOpt = WAIT_S,
) -> None:
    """Run a version's gate (build and validation) again: one that waits because this machine
    could not run it, or one rejected (after the machine was fixed, say). The same exit codes
    as submit."""
    if server is not None:
        recheck_remote(ref, server, token or os.environ.get("ARENA_AUTHOR_TOKEN", ""), timeout)
        return
    with _open(registry) as reg:
        try:
            v = reg.get(ref)
            if parse_ref(ref)[1] is None:
                raise RegistryError(f"{ref!r}: name one version (NAME@N, e.g. {v.ref})")
            with reg.working(v) as mine:
                if not mine:
                    raise RegistryError(f"{v.ref}: another process is running its gate")
                if not reg.move(v.ref, RECHECKABLE, "building"):
                    raise RegistryError(
                        f"{v.ref} is {v.status}: only a waiting or rejected version is rechecked"
                    )
                v = run_gate(reg, v.ref, check_games)
        except RegistryError as exc:
            _fail(str(exc))
        except GateHostError as exc:
            _host_failed(exc)
    typer.echo(f"{v.ref}: rechecked: {v.status}")
    _rejected(v)


@bot_app.command("status")
def status_cmd(
    server: Annotated[
        str, typer.Option(metavar="URL", help="The competition server (arena serve).")
    ],
    name: Annotated[
        str | None, typer.Argument(metavar="NAME", help="One of your bots [default: all].")
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(metavar="TOKEN", help="Your author token [default: $ARENA_AUTHOR_TOKEN]."),
    ] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format", metavar="FORMAT", help=f"Output: {', '.join(FORMATS)} (the server's JSON)."
        ),
    ] = "text",
    log: Annotated[
        bool,
        typer.Option(
            "--log", help="Print each latest version's whole build log and validation report."
        ),
    ] = False,
) -> None:
    """Your bots on a competition server: each latest version's status (and why it was
    rejected), its rating, and every crash, timeout or illegal move since your last upload with
    its stderr tail and where to watch the match (when that upload did not get in, those of the
    version that plays on, named)."""
    print_status(server, token or os.environ.get("ARENA_AUTHOR_TOKEN", ""), name, fmt, log)


@bot_app.command("list")
def list_cmd(registry: RegistryOpt = None) -> None:
    """Every bot with its versions: status, hash, when submitted."""
    with _open(registry) as reg:
        versions = reg.versions()
    if not versions:
        typer.echo("the registry holds no bot yet (`arena bot submit PATH`)")
        return
    rows = [
        [v.ref, v.status, v.hash[:12], _when(v.submitted_at), describe(v.manifest), v.reason[:60]]
        for v in versions
    ]
    headers = ["version", "status", "hash", "submitted", "runs as", "reason"]
    typer.echo(tabulate(rows, headers=headers, tablefmt="simple"))


@bot_app.command("show")
def show_cmd(
    ref: Annotated[str, typer.Argument(metavar="NAME[@N]", help="A bot, or one version.")],
    registry: RegistryOpt = None,
    ladder: Annotated[
        Path | None, typer.Option(help="A ladder file: show each version's rating there.")
    ] = None,
    log: Annotated[
        bool, typer.Option("--log", help="The whole build log (as kept), not its last lines.")
    ] = False,
) -> None:
    """A bot's versions (or one version): hash, status, build and validation reports."""
    with _open(registry) as reg:
        try:
            name, number = parse_ref(ref)
            versions = [reg.get(ref)] if number is not None else reg.versions(name)
            if not versions:
                raise RegistryError(f"no bot named {name!r} in the registry {reg.root}")
        except RegistryError as exc:
            _fail(str(exc))
        faults = {v.ref: reg.faults(v.ref) for v in versions}
        reports = {v.ref: reg.reports(v.ref) for v in versions}
    ratings = _ratings(ladder) if ladder is not None else {}
    for v in versions:
        lines = _describe(v, reports[v.ref], ratings.get(v.ref), log) + _faults(faults[v.ref])
        typer.echo(clean_output("\n".join(lines)))  # build logs hold what the bot's build printed
        typer.echo("")


def _faults(faults: list[dict[str, str]]) -> list[str]:
    """The faults that suspended a version: match, code, referee's words, stderr's last lines."""
    lines = [f"  faults     {len(faults)} kept by the crash policy"] if faults else []
    for f in faults:
        lines.append(f"  - {f['ladder']} match {f['match_id']}: {f['status']} ({f['detail']})")
        lines += [f"    | {line}" for line in f["log_tail"].strip().splitlines()[-3:]]
    return lines


def _describe(v: Version, reports: Reports, rating: str | None, log: bool) -> list[str]:
    lines = [
        f"{v.ref}: {v.status}" + (f" ({v.reason.splitlines()[0]})" if v.reason else ""),
        f"  hash       {v.hash}",
        f"  submitted  {_when(v.submitted_at)} from {v.source} ({v.files} files, {v.bytes} bytes)",
        f"  runs as    {' '.join(v.manifest.run)} ({describe(v.manifest)})",
        f"  stored in  {v.folder}",
    ]
    if rating is not None:
        lines.append(f"  rating     {rating}")
    if v.manifest.build:
        lines.append(f"  build      {v.manifest.build}")
        shown = reports.build_log.splitlines()
        lines += [f"  | {line}" for line in (shown if log else shown[-BUILD_LINES:])]
        if not log and len(shown) > BUILD_LINES:
            lines.append(f"  (the last {BUILD_LINES} of {len(shown)} lines: --log shows all)")
    if v.status == "rejected" and v.reason and "\n" in v.reason:
        lines += [f"  ! {line}" for line in v.reason.splitlines()]
    if reports.validation:
        lines.append("  validation")
        lines += [f"  | {line}" for line in reports.validation.splitlines()]
    return lines


def _ratings(path: Path) -> dict[str, str]:
    """Each rated bot of the ladder in ``path``, as ``mu 27.1, sigma 1.2 (conservative 23.5)``."""
    try:
        cfg = load_ladder(path, check_bots=False)
    except LadderConfigError as exc:
        _fail(exc.problems[0])
    try:
        store = Store.read(cfg.database, cfg.game.id)
    except StoreError as exc:
        _fail(str(exc))
    with contextlib.closing(store):
        ratings = store.ratings()
    return {
        bot: f"{r.mu:.1f} ± {r.sigma:.1f} (conservative {r.conservative:.1f}) in {cfg.name}"
        for bot, r in ratings.items()
    }


@bot_app.command("retire")
def retire_cmd(
    ref: Annotated[
        str, typer.Argument(metavar="NAME[@N]", help="One version, or every live one of a bot.")
    ],
    registry: RegistryOpt = None,
) -> None:
    """Stop a version (or every active and suspended version of a bot) from playing; its files
    and results are kept."""
    with _open(registry) as reg:
        try:
            name, number = parse_ref(ref)
            chosen = [reg.get(ref)] if number is not None else reg.versions(name)
            if not chosen:
                raise RegistryError(f"no bot named {name!r} in the registry {reg.root}")
        except RegistryError as exc:
            _fail(str(exc))
        live = [v for v in chosen if v.status in ("active", "suspended")]
        if not live:
            _fail(f"{ref}: nothing to retire ({', '.join(f'{v.ref} {v.status}' for v in chosen)})")
        for v in live:
            reg.set_status(v.ref, "retired", f"retired by its author from {v.status}")
            typer.echo(f"{v.ref}: retired")
