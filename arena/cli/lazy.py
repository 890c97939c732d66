"""Commands imported when run, not when ``arena`` starts.

``arena games`` or ``arena --help`` should not pay for the report's matplotlib, the server's
Starlette, the cluster's Dask or the statistics' numpy (seconds on a busy machine): the
commands that need them are listed with their one-line help and imported only when invoked.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, ClassVar

import typer
import typer.main
from typer import _click as click  # typer 0.29 runs on its own copy of click
from typer.core import TyperCommand, TyperGroup


@dataclass(frozen=True)
class Lazy:
    """A command (a function) or a command group (a typer app) at ``target`` (module:name),
    listed as ``help`` until it is imported (a test checks they agree)."""

    target: str
    help: str

    def load(self, name: str) -> click.Command:
        module, _, attribute = self.target.partition(":")
        found: Any = getattr(importlib.import_module(module), attribute)
        if not isinstance(found, typer.Typer):  # one command: its own one-command app
            from arena.cli.plain_help import App

            app = App()
            app.command(name)(found)
            found = app
        command = typer.main.get_command(found)
        command.name = name
        return command


class LazyGroup(TyperGroup):
    """The ``arena`` group: the commands of ``LAZY`` (in ``ORDER`` with the others) are
    imported on first use; the help lists them from their stored one-line help."""

    lazy: ClassVar[dict[str, Lazy]] = {}
    order: tuple[str, ...] = ()

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = [*self.commands, *(n for n in self.lazy if n not in self.commands)]
        return sorted(names, key=lambda n: self.order.index(n) if n in self.order else len(names))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            self.add_command(self.lazy[cmd_name].load(cmd_name), cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Click's listing, with a stand-in for each command not imported yet."""
        loaded = dict(self.commands)
        try:
            for name, lazy in self.lazy.items():
                self.commands.setdefault(name, TyperCommand(name, help=lazy.help))
            super().format_commands(ctx, formatter)
        finally:
            self.commands.clear()
            self.commands.update(loaded)
