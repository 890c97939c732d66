"""``arena replay view``: write a replay's viewer page and open it in the browser."""

from __future__ import annotations

import os
import sys
import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from arena.match.replay import ReplayError, read
from arena.report.viewer import write_viewer


def _can_open() -> bool:
    """A browser can be shown: a desktop session (or macOS / Windows, which always have one)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def replay_view(
    path: Annotated[Path, typer.Argument(metavar="REPLAY", help="Replay file.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Page to write [default: the replay's name with .html]."),
    ] = None,
    seat: Annotated[
        int | None,
        typer.Option(
            "--seat",
            help="Only what this seat was shown (a bot author's page); default: every seat "
            "and the omniscient mode.",
        ),
    ] = None,
    open_page: Annotated[
        bool,
        typer.Option(
            "--open/--no-open", help="Open the page in the browser when a display is available."
        ),
    ] = True,
) -> None:
    """Write a replay's viewer (one offline HTML page) and open it; prints its path."""
    name = path.name.removesuffix(".gz").removesuffix(".json")
    suffix = "" if seat is None else f"-seat{seat}"
    target = out or path.with_name(f"{name}{suffix}.html")
    try:
        written = write_viewer(read(path), target, seat)
    except ReplayError as exc:
        typer.echo(f"arena: error: {path}: {exc}", err=True)
        raise typer.Exit(2) from None
    except OSError as exc:
        typer.echo(f"arena: error: cannot write {target}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"viewer: {written}")
    if open_page and _can_open():
        webbrowser.open(written.resolve().as_uri())
