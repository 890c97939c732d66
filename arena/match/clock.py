"""The clocks of a match: each seat's deadline and time bank, and the match's wall-clock cap.

Arithmetic on moments the caller passes in (``time.monotonic()`` in the referee, any number in a
test), so every clock rule is tested without a process:

* ``init_ms`` to say hello, then per decision ``move_ms``; time beyond it is drawn from the
  seat's ``bank_ms``, and ``grace_ms`` absorbs scheduling noise: a decision's deadline is
  ``move_ms + bank + grace`` after it was sent;
* an answer counts from the moment it was read; one read at or after its deadline is late and
  never accepted (:meth:`SeatClock.answer` returns None);
* ``match_ms`` caps the whole match: :meth:`MatchClock.reached` says so once, then the cap is
  disarmed (the seats still waited on are ruled, the others play on their own clocks).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.base import Decision
from arena.match.results import Limits


@dataclass
class Ask:
    """A decision sent to a seat and not answered yet."""

    seq: int
    decision: Decision
    sent_at: float
    deadline: float
    bank_full: bool  # its bank was whole when it was sent: missing it is a plain ``timeout``

    def overdue(self, now: float) -> bool:
        return now >= self.deadline


@dataclass(frozen=True)
class Timing:
    """An answer in time: how long the bot thought, and how much of that was over ``move_ms``
    (drawn from its bank)."""

    elapsed_ms: float
    over_ms: float


class SeatClock:
    """One seat's clock over a match: its bank, its thinking time, its longest answer."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.bank_ms = float(limits.bank_ms)
        self.time_ms = 0.0
        self.max_ms = 0.0

    def ask(self, seq: int, decision: Decision, now: float) -> Ask:
        """Start a decision sent at ``now``: its deadline is ``move_ms`` + bank + ``grace_ms``."""
        budget = self.limits.move_ms + self.bank_ms + self.limits.grace_ms
        full = self.bank_ms >= self.limits.bank_ms
        return Ask(seq, decision, now, now + budget / 1000, full)

    def answer(self, ask: Ask, received: float) -> Timing | None:
        """Charge an answer read at ``received``; None when it came at or after the deadline."""
        if ask.overdue(received):
            return None
        elapsed = (received - ask.sent_at) * 1000
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

    def hello_deadline(self, now: float) -> float:
        return now + (self.limits.init_ms + self.limits.grace_ms) / 1000

    def reached(self, now: float) -> bool:
        """True once, the first time ``now`` is past the cap; the cap is disarmed then."""
        if now < self.ends_at:
            return False
        self.disarm()
        return True

    def disarm(self) -> None:
        """No cap any more: the seats it would rule were ruled, or the game is over."""
        self.ends_at = float("inf")
