"""``arena sandbox``: what isolation bots get on this machine, and what to fix when they cannot
get any. Exits 1 when bots could not run here: no confining level works (and none was asked for
by name), or Arena's Python, which Python bots run with, does not start as a bot at the level in
force."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from arena import sandbox
from arena.cli.plain_help import App

sandbox_app = App(help="Bot sandbox: which isolation level is in force here.")


@sandbox_app.command("probe")
def probe_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print the probe as JSON.")] = False,
) -> None:
    """Print the level bots run at here and, per layer and level, whether it works and why not.

    Every layer is tried for real: a throw-away bubblewrap sandbox, a cgroup created and written,
    and Arena's Python run as a bot uid at each confining level that works.
    """
    found = sandbox.probe()
    refusal = ""
    try:
        level: str | None = sandbox.choose(None)
    except sandbox.SandboxError as exc:
        level, refusal = None, str(exc)
    python = {
        name: sandbox.interpreter_problem(name)
        for name in sandbox.CONFINED
        if found.levels[name].works
    }
    if as_json:
        typer.echo(
            json.dumps(
                {**found.as_dict(), "in_force": level, "refusal": refusal, "python": python},
                indent=2,
            )
        )
    else:
        _print(found, level, refusal, python)
    if level is None or python.get(level):
        raise typer.Exit(1)


def _print(found: sandbox.Probe, level: str | None, refusal: str, python: dict[str, str]) -> None:
    if level is None:
        typer.echo(f"in force: none: {refusal}")
    else:
        typer.echo(f"in force: {found.levels[level].name}  (strongest here: {found.level})")
    if level == "rlimits":
        typer.echo(f"warning: {sandbox.UNSANDBOXED}")
    for title, items in (("layers", found.layers), ("levels", found.levels)):
        typer.echo(f"{title}:")
        for item in items.values():
            mark = "works" if item.works else f"no: {item.reason}"
            typer.echo(f"  {item.name:<22} {mark}")
    typer.echo("Arena's Python as a bot (Python bots run with it):")
    for name, problem in python.items():
        typer.echo(f"  {name:<22} {'works' if not problem else f'no: {problem}'}")
