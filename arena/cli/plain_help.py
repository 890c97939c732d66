"""Help that names each value (``FILE``, ``--workers N``) for every ``arena`` command.

Typer 0.29 prints a value's type where people look for its name (``FILE <path>``,
``--workers <int range>``, ``--cluster <str>``) and braces round required arguments in the
usage line (``{FILE}``). Every ``arena`` app is an :class:`App`, whose commands are
:class:`PlainCommand`: same parsing, help with names only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import typer
from typer import _click as click  # typer 0.29 runs on its own copy of click
from typer.core import TyperArgument, TyperCommand, TyperOption

F = TypeVar("F", bound=Callable[..., Any])

VALUE_NAMES: dict[object, str] = {int: "N", Path: "PATH"}


def value_name(option: TyperOption) -> str:
    """What an option's value is called when the option does not say: N for a number, PATH
    for a path, else the long flag's name (``--format FORMAT``)."""
    long = max(option.opts, key=len).lstrip("-")
    return VALUE_NAMES.get(option.type_descriptor.annotation, long.upper())


def argument_name(argument: TyperArgument) -> str:
    """The argument as help lists it: its metavar, ``...`` when it takes several."""
    metavar = argument.metavar or (argument.name or "").upper()  # click's default
    return metavar + ("..." if argument.nargs != 1 else "")


class PlainCommand(TyperCommand):
    """A command whose help and usage line name values instead of typing them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, TyperArgument) and param.metavar is None:
                param.metavar = param.name.upper()
            elif isinstance(param, TyperOption) and not (param.is_flag or param.count):
                param.metavar = param.metavar or value_name(param)

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = argument_name(param)
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows: dict[str, list[tuple[str, str]]] = {"Arguments": [], "Options": []}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            name, text = record
            if isinstance(param, TyperArgument):
                rows["Arguments"].append((argument_name(param), text))
            else:
                rows["Options"].append((name, text))
        for title, section in rows.items():
            if section:
                with formatter.section(title):
                    formatter.write_dl(section)


class App(typer.Typer):
    """A typer app with plain help: no rich markup (which shows flags as ``<bool>`` and eats
    ``[default: ...]``) and every command a :class:`PlainCommand`."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(rich_markup_mode=None, **settings)

    def command(
        self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **settings: Any
    ) -> Callable[[F], F]:
        return super().command(name, cls=cls or PlainCommand, **settings)
