"""Which cores a local worker and the bots it starts run on: one core of its own each.

A decision is a round trip: the referee writes a turn and waits, the bot reads it, answers and
waits. When the two run on different cores, every message wakes a process on the other core
(an interrupt between processors; on a virtual machine, an exit to the hypervisor as well),
and the sender pays for it. On one core, a write only makes the reader runnable, and the
writer's wait hands it the core. On a 2-core virtual machine, Happy Mochi between two C++ bots
that answer at once took 92-115 us of wall time and 62-75 us of the referee's CPU per decision
spread over both cores, against 44 us and 34 us on one (``bench/decision_loop.py``).

So a ladder whose local workers take every usable core (the default: one worker per core)
pins each to a core of its own (``LocalExecutor``); with fewer workers only when asked
(``--pin``: a machine kept for the ladder), since a pinned process cannot move away from a
core that something else keeps busy; with more workers than cores never. Its bots inherit the
core, kept ones included, so a match never spreads over cores, and concurrent matches do not
share one: what one match's bots burn is taken from its own core only. A bot allowed more than
one core (``SandboxLimits.cpus``) is started on every core the worker could use before it was
pinned, so its allowance is not cut to one. Fastchess's ``-use-affinity`` likewise gives each
concurrent game a core.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

_BEFORE: frozenset[int] | None = None  # the cores this process could use before pin()


def usable() -> tuple[int, ...]:
    """The cores this process may run on, in order."""
    return tuple(sorted(os.sched_getaffinity(0)))


def assign(workers: int, cores: Sequence[int], pin: bool | None = None) -> list[int | None]:
    """A core of its own for each of ``workers``: when they take every one of ``cores``
    (``pin`` None), or when ``pin`` and the cores are enough; else None for each (the kernel
    places them)."""
    pinned = workers == len(cores) if pin is None else pin and workers <= len(cores)
    return list(cores[:workers]) if pinned else [None] * workers


def pin(core: int) -> None:
    """Run this process (its calling thread, and every thread and process it starts from now)
    on ``core`` alone."""
    global _BEFORE
    if _BEFORE is None:
        _BEFORE = frozenset(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})


def for_bot(cpus: int) -> frozenset[int] | None:
    """The cores a bot allowed ``cpus`` cores is started on, when not the one it inherits: all
    the worker could use before it was pinned, when one core is too few (None: inherited)."""
    return _BEFORE if cpus > 1 else None
