"""``arena serve COMPETITION.toml``: the competition server, and its organiser's commands.

A competition file that cannot be used prints one ``arena: error:`` line per mistake and
exits 2 before anything listens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from arena.ladder import database
from arena.ladder.config import LadderConfigError
from arena.ladder.store import StorageError, Store, StoreError
from arena.registry.store import UNFINISHED
from arena.sandbox import clean_output
from arena.web.accounts import AccountError, Accounts
from arena.web.competition import Competition, load_competition

KEEP_ALIVE_S = 5  # an idle kept-alive connection is closed after this
GRACEFUL_S = 5  # on SIGTERM, requests still unanswered after this are abandoned
HOST_EXIT = 3  # this machine could not run the gate: no bot blamed, the version waits
TIMEOUT_EXIT = 4  # the gate had not spoken when --timeout ran out
WAIT_S = 1800


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"arena: error: {message}", err=True)
    raise typer.Exit(code)


def serve(
    competition: Annotated[
        Path, typer.Argument(metavar="FILE", help="The competition file (TOML).")
    ],
    host: Annotated[
        str, typer.Option(metavar="ADDRESS", help="Address to listen on.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8000,
    add_author: Annotated[
        str | None,
        typer.Option(
            "--add-author", metavar="NAME", help="Create an author, print its token once, exit."
        ),
    ] = None,
    no_ladder: Annotated[
        bool, typer.Option("--no-ladder", help="Serve pages and uploads, run no matches.")
    ] = False,
) -> None:
    """Run a competition: authors submit bots over HTTP, the ladder plays continuously behind
    it, everyone sees the standings, the queue and every replay."""
    try:
        comp = load_competition(competition)
    except LadderConfigError as exc:
        for problem in exc.problems:
            typer.echo(f"arena: error: {problem}", err=True)
        raise typer.Exit(2) from None
    if add_author is not None:
        accounts = _accounts(comp)
        try:
            token = accounts.add_author(add_author)
        except AccountError as exc:
            _fail(str(exc))
        finally:
            accounts.close()
        typer.echo(f"author {add_author} created; their token (shown only this once):")
        typer.echo(token)
        return
    if not no_ladder:
        try:  # in use by another server, or not writable: said before anything listens
            Store.create(comp.database, str(comp.data["game"])).close()
        except (StoreError, StorageError) as exc:
            _fail(str(exc))
    _accounts(comp).close()
    import uvicorn

    from arena.web import events
    from arena.web.app import create_app
    from arena.web.http import guarded

    settings = comp.server
    typer.echo(f"arena: serving {comp.path} on http://{host}:{port}/", err=True)
    events.to_stderr()  # the organiser's log: uploads, refusals, gates, matches
    uvicorn.run(
        create_app(comp, run_ladder=not no_ladder),
        host=host,
        port=port,
        log_level="warning",
        http=guarded(settings.header_timeout_s, settings.connections_per_address),
        limit_concurrency=settings.max_connections,
        timeout_keep_alive=KEEP_ALIVE_S,
        timeout_graceful_shutdown=GRACEFUL_S,
    )


def _accounts(comp: Competition) -> Accounts:
    """The competition's authors, or one error line when their database cannot be opened."""
    try:
        return Accounts(comp.server.accounts)
    except database.Error as exc:
        _fail(f"{database.describe(comp.server.accounts)}: cannot open the authors ({exc})")


def submit_remote(path: Path, server: str, token: str, name: str | None, timeout: float) -> None:
    """``arena bot submit PATH --server URL``: upload, then follow the version through the
    server's gate queue (a line per change) and print its outcome as ``arena bot submit``
    does; exit 1 when the gate rejected it, 2 when the server refused the upload, 3 when the
    server could not run the gate (the version waits), 4 when ``timeout`` ran out first."""
    from arena.web.client import ClientError, upload

    if not token:
        _fail("--server needs your author token (--token, or $ARENA_AUTHOR_TOKEN)")
    try:
        done = upload(server, token, path, name)
    except ClientError as exc:
        _fail(str(exc))
    state = "stored" if done["new"] else "unchanged (same content as stored)"
    typer.echo(f"{done['version']}: {state} ({done['files']} files, {done['hash'][:12]})")
    _outcome(server, token, done, timeout)


def recheck_remote(ref: str, server: str, token: str, timeout: float) -> None:
    """``arena bot recheck NAME@N --server URL``: ask the server to run the gate again, then
    follow it as ``submit_remote`` does (same exit codes)."""
    from arena.web.client import ClientError, recheck

    if not token:
        _fail("--server needs your author token (--token, or $ARENA_AUTHOR_TOKEN)")
    try:
        done = recheck(server, token, ref)
    except ClientError as exc:
        _fail(str(exc))
    _outcome(server, token, done, timeout)


def _outcome(server: str, token: str, answer: dict[str, Any], timeout: float) -> None:
    from arena.web.client import ClientError, follow

    try:
        final = follow(server, token, answer, timeout, _progress)
    except ClientError as exc:
        _fail(str(exc))
    ref, status = final["version"], final["status"]
    if status in UNFINISHED:
        _fail(f"{ref} is still {status} after {timeout:.0f} s; `arena bot status --server "
              f"{server}` shows it later", code=TIMEOUT_EXIT)  # fmt: skip
    if status == "waiting":
        _fail(clean_output(final["reason"]), code=HOST_EXIT)
    if status == "rejected":
        typer.echo(clean_output(final["build_log"] or final["validation"]), err=True)
        _fail(clean_output(f"{ref} rejected: {final['reason']}"), code=1)


def _progress(answer: dict[str, Any]) -> None:
    """One line per state of a version in the gate queue: ``alice@3: queued (2 ahead)``."""
    ahead = answer.get("ahead")
    where = f" ({ahead} ahead in the gate queue)" if ahead else ""
    typer.echo(f"{answer['version']}: {answer['status']}{where}")
