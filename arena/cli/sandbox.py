"""``arena sandbox``: what isolation bots get on this machine."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from arena import sandbox

sandbox_app = typer.Typer(help="Bot sandbox: which isolation level is in force here.")


@sandbox_app.command("probe")
def probe_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print the probe as JSON.")] = False,
) -> None:
    """Print the level bots run at here and, per layer and level, whether it works and why not."""
    found = sandbox.probe()
    try:
        level = sandbox.choose(None)
    except sandbox.SandboxError as exc:  # $ARENA_SANDBOX names a level this machine lacks
        typer.echo(f"warning: {exc}", err=True)
        level = found.level
    if as_json:
        typer.echo(json.dumps({**found.as_dict(), "in_force": level}, indent=2))
        return
    typer.echo(f"in force: {found.levels[level].name}  (strongest here: {found.level})")
    for title, items in (("layers", found.layers), ("levels", found.levels)):
        typer.echo(f"{title}:")
        for item in items.values():
            mark = "works" if item.works else f"no: {item.reason}"
            typer.echo(f"  {item.name:<22} {mark}")
