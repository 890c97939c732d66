"""The clocks of a match: each seat's deadline and time bank, and the match's wall-clock cap.

Arithmetic on moments and measurements the caller passes in (``time.monotonic()`` and the bot's
cgroup readings in the referee, any number in a test), so every clock rule is tested without a
process:

* ``init_ms`` to say hello, then per decision ``move_ms``; time beyond it is drawn from the
  seat's ``bank_ms``, and ``grace_ms`` absorbs scheduling noise: a decision's budget is
  ``move_ms + bank + grace`` from the moment it was sent;
* what a seat is charged is its **own** time, not the host's: on the wall clock (``clock =
  "wall"``, the default) the wall time less the time the host kept it from running (its bot's
  threads and the referee's waited for a CPU), never less than the CPU time the bot used; on
  the CPU clock (``clock = "cpu"``) the CPU time its bot used (see :class:`Spent`);
* the counters a charge is measured with (the bot's CPU time and waits, the referee's waits)
  are read when a decision has gone unanswered for ``MEASURE_AFTER_MS``, not when it is sent:
  an answer sooner is charged its wall time (well under ``move_ms``) and never needs them, so
  a fast bot's turn reads no counter at all. The moments between the turn sent and the
  counters read are counted as the referee's waits (see :class:`Spent`);
* an answer counts from the moment it was read. At a window's deadline the seat is judged
  (:meth:`SeatClock.judge`): if it has had its budget it is late (``FAULT``) and an answer read
  then is never accepted; if the host kept it from having it the deadline moves on by what it
  still has (``EXTEND``), up to a wall-clock ceiling: ``LOAD_CEILING`` times the budget on the
  wall clock, ``wall_factor`` times on the CPU clock. A seat the host starved up to the ceiling
  voids the match (``VOID``: a ``load:`` void, replayed, never a bot's fault); on the CPU
  clock a seat that idled (it had the wall time and did not use it) is late at the ceiling;
* ``match_ms`` caps the whole match: :meth:`MatchClock.reached` says so once, then the cap is
  disarmed (the seats still waited on are ruled, the others play on their own clocks).

Why these rules keep the hostile cases ruled: a bot that sleeps waits for nothing, so its own
time is the wall time and it is late at the first deadline, loaded host or not; a bot that
burns CPU has its budget of CPU time (its own time is at least that) sooner or later: on a
starved host later, so its deadline moves, but it is ruled as soon as it has had it, long
before the ceiling unless the host gives it less than ``1 / LOAD_CEILING`` of a core.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from arena.games.base import Decision
from arena.match.results import Limits
from arena.sandbox import Reading

LOAD_CEILING = 10
"""On the wall clock, how far (in times its budget, wall time) a seat's deadline may move while
the host keeps it from running. Ten: an honest bot that needs its whole budget still answers on
a host that gives it a tenth of a core (a load of 20 runnable tasks on 2 cores, about what
issue 27 saw), and a bot that burns CPU on such a host has its budget of CPU and is ruled.
Worse than that the match is not worth playing and is replayed (``load:``); the wait is bounded."""

MEASURE_AFTER_MS = 5.0
"""How long a decision goes unanswered on the wall clock before its counters are read (at most
a tenth of ``move_ms``): reading them costs the referee more than a fast bot's whole answer.
Not sooner than the kernel's tick (4 ms at 250 Hz): a shorter wake is the earliest timer on
its CPU, and arming and cancelling it at every decision cost the referee ~7 us a decision
on this project's hosts (a fifth of its work). The price: a slow answer has these moments
counted as the referee's waits (:class:`Spent`), the same for every seat."""

MIN_STEP_MS = 10.0
"""The least a deadline moves at a time: a seat is judged again no sooner (a bound on wakes)."""

UNMEASURED = Reading()


class Verdict(Enum):
    """What a seat's deadline comes to (:meth:`SeatClock.judge`)."""

    FAULT = "fault"  # it had its budget: ``timeout`` or ``bank_exhausted``
    EXTEND = "extend"  # the host kept it from having it: the deadline moved on
    VOID = "void"  # the host kept it from having it up to the ceiling: the match is void


@dataclass(slots=True)
class Window:
    """A span a seat has for something (its hello, a decision): when it began, its budget, when
    it is judged next, the wall-clock ceiling, and what the bot and the referee had had of the
    machine when it was measured: when it began, or a moment later (:meth:`measure`)."""

    sent_at: float
    deadline: float  # moved on (EXTEND) while the host starves the seat
    ceiling: float  # never moved past this
    budget_ms: float
    start: Reading
    referee_wait_ms: float | None
    measured_at: float | None  # when ``start`` was read (None: not yet, see ``measure_by``)
    measure_by: float  # when it is to be read at the latest

    def overdue(self, now: float) -> bool:
        return now >= self.deadline

    @property
    def wake_at(self) -> float:
        """When the referee must look at this window next: to read its counters, or to judge
        it at its deadline."""
        return self.deadline if self.measured_at is not None else self.measure_by

    def unmeasured(self, now: float) -> bool:
        """Its counters are still to be read, and it is time to."""
        return self.measured_at is None and now >= self.measure_by

    def measure(self, now: float, reading: Reading, referee_wait_ms: float | None) -> None:
        """Keep the bot's and the referee's readings at ``now`` as the window's start."""
        self.start, self.referee_wait_ms, self.measured_at = reading, referee_wait_ms, now


@dataclass(slots=True)
class Ask(Window):
    """A decision sent to a seat and not answered yet."""

    seq: int
    decision: Decision
    bank_full: bool  # its bank was whole when it was sent: missing it is a ``timeout``


@dataclass(frozen=True)
class Spent:
    """What a seat had of a window up to a moment (milliseconds; None: not measured here).

    ``wait_ms`` is the bot's waits for a CPU and the referee's own, added: a turn goes through
    the referee's threads (its ZeroMQ I/O thread writes it out), then the bot's, then the
    referee's again (it reads the answer), one after the other; each wait is the host's doing,
    not the bot's. (Waits at the same moment are counted twice: on a loaded host, in the bot's
    favour, and never below its CPU time.) A window measured after it began counts the moments
    before as the referee's waits: ``MEASURE_AFTER_MS``, or longer only when the referee could
    not run then; a seat whose referee waits are not counted (it flooded) has none of them.
    """

    wall_ms: float
    cpu_ms: float | None
    wait_ms: float | None

    @property
    def own_ms(self) -> float:
        """The wall time less the host's waits, never below the CPU time the bot used: what
        it would have taken on a machine of its own."""
        own = self.wall_ms - (self.wait_ms or 0.0)
        return max(own, self.cpu_ms or 0.0)

    @classmethod
    def of(
        cls, window: Window, now: float, reading: Reading, referee_wait_ms: float | None
    ) -> Spent:
        """From the bot's and the referee's readings at ``now`` and at the window's start."""

        def delta(end: float | None, begin: float | None) -> float | None:
            return None if end is None or begin is None else max(0.0, end - begin)

        assert window.measured_at is not None, "the window's counters are read first"
        referee = delta(referee_wait_ms, window.referee_wait_ms)
        if referee is not None:
            referee += (window.measured_at - window.sent_at) * 1000
        waits = [delta(reading.wait_ms, window.start.wait_ms), referee]
        known = [w for w in waits if w is not None]
        cpu = delta(reading.cpu_ms, window.start.cpu_ms)
        return cls((now - window.sent_at) * 1000, cpu, sum(known) if known else None)

    def shown(self) -> str:
        """For a fault's detail or a void's reason: what the seat had."""
        parts = [f"{self.wall_ms:.0f} ms wall"]
        if self.cpu_ms is not None:
            parts.append(f"{self.cpu_ms:.0f} ms of CPU")
        if self.wait_ms is not None:
            parts.append(f"{self.wait_ms:.0f} ms waiting for a CPU")
        return ", ".join(parts)


class Timing(NamedTuple):
    """An answer in time: how long the bot thought (its charged time), and how much of that
    was over ``move_ms`` (drawn from its bank). A tuple: one is made every answer."""

    elapsed_ms: float
    over_ms: float


class SeatClock:
    """One seat's clock over a match: its bank, its thinking time, its longest answer."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.cpu = limits.clock == "cpu"
        self.bank_ms = float(limits.bank_ms)
        self.time_ms = 0.0
        self.max_ms = 0.0
        # Worked out once: a decision is asked hundreds of times a match.
        self.ceiling_factor = limits.wall_factor if self.cpu else LOAD_CEILING
        self.measure_after_s = min(MEASURE_AFTER_MS, limits.move_ms / 10) / 1000
        # A decision's counters may be read after it is sent: on the wall clock (the CPU
        # clock charges every answer its CPU time, so it reads them at once).
        self.defers = not self.cpu

    def _ceiling(self, now: float, budget_ms: float) -> float:
        return now + self.ceiling_factor * budget_ms / 1000

    def hello(self, now: float, referee_wait_ms: float | None) -> Window:
        """The window to say hello in, from a bot's start (its cgroup new: nothing used yet)."""
        budget = self.limits.init_ms + self.limits.grace_ms
        deadline, ceiling = now + budget / 1000, self._ceiling(now, budget)
        start = Reading(0.0, 0.0)
        return Window(now, deadline, ceiling, budget, start, referee_wait_ms, now, now)

    def ask(
        self,
        seq: int,
        decision: Decision,
        now: float,
        reading: Reading = UNMEASURED,
        referee_wait_ms: float | None = None,
        measured: bool = True,
    ) -> Ask:
        """Start a decision sent at ``now``: its budget is ``move_ms`` + bank + ``grace_ms``.
        ``measured``: ``reading`` and ``referee_wait_ms`` were read at ``now``; else they are
        read later (:meth:`Window.measure`, by ``measure_by``)."""
        limits, bank = self.limits, self.bank_ms
        budget = limits.move_ms + bank + limits.grace_ms
        deadline, ceiling = now + budget / 1000, now + self.ceiling_factor * budget / 1000
        at, by = (now, now) if measured else (None, now + self.measure_after_s)
        full = bank >= limits.bank_ms
        return Ask(
            now, deadline, ceiling, budget, reading, referee_wait_ms, at, by, seq, decision, full
        )

    def charged(self, spent: Spent) -> float:
        """What the seat is charged for a window: its CPU time on the CPU clock (where it is
        measured), else its own time."""
        if self.cpu and spent.cpu_ms is not None:
            return spent.cpu_ms
        return spent.own_ms

    def measures(self, ask: Ask, received: float) -> bool:
        """Whether an answer read at ``received`` needs the bot's readings to be charged: on
        the CPU clock always, on the wall clock only past ``move_ms`` (it draws on the bank)."""
        return self.cpu or (received - ask.sent_at) * 1000 > self.limits.move_ms

    def judge(self, window: Window, spent: Spent, now: float) -> Verdict:
        """At a window's deadline: late, moved on, or void (see the module docstring)."""
        used = self.charged(spent)
        if used >= window.budget_ms:
            return Verdict.FAULT
        if now >= window.ceiling:
            return Verdict.FAULT if spent.own_ms >= window.budget_ms else Verdict.VOID
        step = max(MIN_STEP_MS, window.budget_ms - used)
        window.deadline = min(window.ceiling, now + step / 1000)
        return Verdict.EXTEND

    def answer(self, ask: Ask, received: float, spent: Spent | None = None) -> Timing | None:
        """Charge an answer read at ``received`` (``spent``: what the seat had, when
        :meth:`measures` says it is needed); None when it came at or after the deadline, or
        after the seat used its whole budget."""
        if ask.overdue(received):
            return None
        elapsed = (received - ask.sent_at) * 1000 if spent is None else self.charged(spent)
        if elapsed >= ask.budget_ms:
            return None
        self.time_ms += elapsed
        self.max_ms = max(self.max_ms, elapsed)
        over = max(0.0, elapsed - self.limits.move_ms)
        self.bank_ms = max(0.0, self.bank_ms - over)
        return Timing(elapsed, over)

    def expire(self) -> None:
        """The seat missed a deadline: nothing is left of its bank."""
        self.bank_ms = 0.0

    def told(self) -> dict[str, int]:
        """The ``clock`` of a ``turn`` message: what the bot may spend on this decision."""
        return {"move_ms": self.limits.move_ms, "bank_ms": int(self.bank_ms)}


class MatchClock:
    """The match's clocks as a whole: the hello deadline and the wall-clock cap ``match_ms``."""

    def __init__(self, limits: Limits, started: float) -> None:
        self.limits = limits
        self.started = started
        self.ends_at = started + limits.match_ms / 1000

    def reached(self, now: float) -> bool:
        """True once, the first time ``now`` is past the cap; the cap is disarmed then."""
        if now < self.ends_at:
            return False
        self.disarm()
        return True

    def disarm(self) -> None:
        """No cap any more: the seats it would rule were ruled, or the game is over."""
        self.ends_at = float("inf")
