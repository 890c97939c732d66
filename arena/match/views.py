"""Views sent as deltas and game data sent once (protocol 1.2, PROTOCOL.md section 8.5).

A bot that offers ``hello.deltas`` is sent, in each ``turn`` and ``game_over``, only the
top-level keys of its view whose value changed since the last view sent to its seat in this
match, and the keys that were dropped; the first of a match is whole (a delta against nothing).
A kept process that offered it is also spared the game's data in a ``welcome`` when its last
welcome carried the same game: the data is a function of the game and its options alone.

A delta is computed from the seat's own two views and nothing else, so it cannot tell a seat
more than its full views would (PROTOCOL.md section 13).
"""

from __future__ import annotations

import weakref
from typing import Any

_ABSENT = object()  # of a type no value has: a key the last view lacked is always sent


def same_value(old: Any, new: Any) -> bool:
    """The value a bot holds needs no resending: equal and of the same type at the top (so a
    flag going from ``1`` to ``True`` or a count from ``3`` to ``3.0`` is sent)."""
    return type(old) is type(new) and old == new


class SeatViews:
    """The last view sent to one seat in this match. Engines build a fresh view on each call
    (never sharing lists with their state), so keeping it costs no copy."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: dict[str, Any] = {}

    def delta(self, view: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """What to send for ``view``: the changed keys with their values, the dropped keys.
        It runs at every turn, so :func:`same_value` is written out in the loop."""
        last, self.last = self.last, view
        if not last:
            return view, []
        get = last.get
        changed = {
            key: value
            for key, value in view.items()
            if type(old := get(key, _ABSENT)) is not type(value) or old != value
        }
        if view.keys() >= last.keys():  # the usual case, checked without a Python loop
            return changed, []
        return changed, [key for key in last if key not in view]  # in order: never a set's


class Process:
    """What a bot process has been told across the matches it plays (it outlives a match
    when kept, PROTOCOL.md 10.1): whether it takes deltas, and the game of its last welcome."""

    __slots__ = ("deltas", "game")

    def __init__(self) -> None:
        self.deltas = False  # its hello offered deltas
        self.game = ""  # the id, version and options of the game its last welcome carried

    def welcome_game(self, game: dict[str, Any], options: str) -> dict[str, Any]:
        """The ``welcome.game`` to send: whole, or for a process that takes deltas and was
        sent the same game last time, without its data and marked ``same``. ``options`` are
        the game's options as canonical JSON (which the referee has at hand)."""
        if not self.deltas:
            return game
        key = f"{game['id']} {game['version']} {options}"
        if key != self.game:
            self.game = key
            return game
        return {key: game[key] for key in ("id", "version", "options")} | {"same": True}


# Keyed by the channel, the one object a kept process takes from match to match; forgotten
# with it.
_PROCESSES: weakref.WeakKeyDictionary[object, Process] = weakref.WeakKeyDictionary()


def process(channel: object) -> Process:
    """The memory of the bot process on ``channel`` (a new one for a new channel)."""
    known = _PROCESSES.get(channel)
    if known is None:
        known = _PROCESSES[channel] = Process()
    return known
