"""Bot processes kept alive between matches: one worker's pool of idle, reusable processes.

Starting a bot costs far more than playing a short match, so a bot that offers it (``hello``
``reuse``, PROTOCOL.md section 10.1) and that the organiser lets be reused (``BotSpec.reuse``)
is kept after a match it finished cleanly, and the next match sends it a new ``welcome`` on
the same connection, whatever its transport.

A kept process sits in a **lane**: the ladder passes the seat rotation of the match, and each
duplicate set plays every deal once per rotation, so a process that plays only one rotation
never sees the same deal twice. A process is kept only when its match ended without any
incident for it (a fault, a warning, a late or stray message) and it holds no connection but
its own: anything of the kind and it is killed as without reuse.

Between matches a kept process carries nothing a fresh one would not have and costs nothing
(``arena.sandbox.kept``): every other process of the bot (children, daemons) is killed and the
bot is stopped until its next match, so it can neither compute, nor connect, nor send while it
waits. Idle processes are bounded per worker by count (``MAX_IDLE``) and by the memory they
hold (``IDLE_MEMORY_MB``); past either, the one idle longest goes. When a process is taken for
the next match it must still be running, hold no message it sent and have kept its one
connection, else it is killed and the match starts a fresh process; its connection cap counts
anew from its one connection. (A message it sends just as the next match begins is read in that
match and ruled as any stray message: ``unexpected``, a warning on its own seat.)
"""

from __future__ import annotations

import contextlib
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq

from arena import sandbox
from arena.match.channels import Channel
from arena.sandbox import kept as held

MAX_IDLE = 32  # kept processes per worker
IDLE_MEMORY_MB = 1024  # memory the idle processes of one worker may hold together


@dataclass
class Kept:
    """A process that finished its match cleanly, with its channel and seat token."""

    proc: sandbox.BotProcess
    channel: Channel
    token: str
    memory_kb: int = 0  # what it held when it was stopped

    def fit(self) -> bool:
        """Still running, silent since it was last read, and on its one connection only."""
        return self.proc.poll() is None and self.channel.idle()


class BotPool:
    """Idle kept processes by key (what a process must match to be taken: bot, lane, sandbox
    level and limits, message limit); their sockets and logs live in one private folder for
    the pool's lifetime, with a ZeroMQ context that outlives each match."""

    def __init__(self) -> None:
        self.ctx = zmq.Context()
        self._folder = contextlib.ExitStack()
        self.directory = self._folder.enter_context(sandbox.match_directory())
        self._idle: dict[Any, Kept] = {}
        self._names = itertools.count()

    def place(self, suffix: str) -> Path:
        """A fresh file name in the pool's folder (a socket or a log)."""
        return self.directory / f"{next(self._names)}{suffix}"

    def take(self, key: tuple[Any, ...]) -> Kept | None:
        """The idle process kept under ``key``, running again, if it is still fit for a
        match; else None."""
        kept = self._idle.pop(key, None)
        if kept is None:
            return None
        held.release(kept.proc)
        if not kept.fit():
            self.discard(kept)
            return None
        kept.channel.new_match()
        return kept

    def give(self, key: tuple[Any, ...], kept: Kept) -> None:
        """Hold ``kept`` for the next match under ``key`` if it is fit (else it is killed);
        past ``MAX_IDLE`` processes or ``IDLE_MEMORY_MB`` the one idle longest goes."""
        old = self._idle.pop(key, None)
        if old is not None:
            self.discard(old)
        held.hold(kept.proc)
        if not kept.fit():
            self.discard(kept)
            return
        kept.memory_kb = held.memory_kb(kept.proc)
        self._idle[key] = kept
        while len(self._idle) > MAX_IDLE or self.memory_kb() > IDLE_MEMORY_MB << 10:
            self.discard(self._idle.pop(next(iter(self._idle))))

    def memory_kb(self) -> int:
        """The memory the idle processes hold together."""
        return sum(kept.memory_kb for kept in self._idle.values())

    @staticmethod
    def discard(kept: Kept) -> None:
        kept.proc.kill()
        kept.channel.close()

    def __len__(self) -> int:
        return len(self._idle)

    def close(self) -> None:
        """Kill every idle process and remove the folder."""
        for kept in self._idle.values():
            self.discard(kept)
        self._idle.clear()
        self.ctx.term()
        self._folder.close()
