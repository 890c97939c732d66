"""Names that authors and organisers choose (bots, authors, house bots): one rule everywhere.

A name is 1-48 ASCII letters, digits, ``_``, ``-`` and ``.``, starting with a letter, a digit
or ``_``. So a name can never be a path component of its own (``.``, ``..``), a hidden file
(``.x``), an option (``-x``), hold a ``/`` or an ``@`` (``alice@3`` is version 3 of
``alice``), nor a character that a URL, a shell or a terminal reads differently; a registry
folder or log path built from it stays where it is put.

Two names are the same name when their keys are equal: case ignored and ``.``, ``_`` and
``-`` taken as one character, so ``House-Greedy`` or ``house_greedy`` cannot stand beside
``house-greedy`` and pass for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MAX_LENGTH = 48
NAME = re.compile(rf"[A-Za-z0-9_][A-Za-z0-9_.-]{{0,{MAX_LENGTH - 1}}}")
# A version number has at most 9 digits: a 5000-digit one is refused, never parsed.
REF = re.compile(rf"(?P<name>{NAME.pattern})(?:@(?P<number>[1-9][0-9]{{0,8}}))?")
RULE = f"1-{MAX_LENGTH} ASCII letters, digits, '_', '-' or '.', not starting with '-' or '.'"
_SEPARATORS = re.compile(r"[._-]")


class BadName(ValueError):
    """A name that breaks the rule, or that is too close to a name already taken."""


def shown(text: str, most: int = 60) -> str:
    """``text`` quoted for a message, cut to ``most`` characters (a name may be huge)."""
    return repr(text) if len(text) <= most else repr(text[:most]) + f"... ({len(text)} chars)"


def is_name(text: str) -> bool:
    return NAME.fullmatch(text) is not None


def check_name(name: object, what: str = "bot name") -> str:
    """``name`` when it follows the rule; BadName saying what is wrong otherwise."""
    if not isinstance(name, str):
        raise BadName(f"{what}: expected a string, got {type(name).__name__}")
    if not is_name(name):
        raise BadName(f"{what} {shown(name)}: expected {RULE}")
    return name


def name_key(name: str) -> str:
    """What two names are compared by: ``House_Greedy`` and ``house-greedy`` are one name."""
    return _SEPARATORS.sub("-", name.lower())


def clash(name: str, taken: Iterable[str]) -> str | None:
    """The name of ``taken`` that ``name`` would pass for (same key, another spelling), or
    None. The same spelling is not a clash: it is the same name."""
    key = name_key(name)
    return next((t for t in taken if t != name and name_key(t) == key), None)


def clash_message(name: str, other: str, what: str = "bot name") -> str:
    return (
        f"the {what} {name!r} is too close to the existing {other!r} (names are compared "
        "ignoring case, with '.', '_' and '-' alike): choose another"
    )


def parse_ref(text: str) -> tuple[str, int | None]:
    """``alice`` -> (alice, None); ``alice@3`` -> (alice, 3); BadName otherwise."""
    found = REF.fullmatch(text) if isinstance(text, str) else None
    if found is None:
        raise BadName(f"{shown(str(text))}: expected a bot name or NAME@VERSION (e.g. alice@3)")
    number = found.group("number")
    return found.group("name"), int(number) if number else None


def is_ref(text: str) -> bool:
    """A bot name, or a name and a version (``alice@3``)."""
    return REF.fullmatch(text) is not None
