"""The rulings on one seat: what it is charged for what it sends, and what each fault leads to.

Pure code over a seat's :class:`Ledger`: a ruling updates the ledger (status, strikes,
warnings, incidents) and returns what the referee must carry out, so every rule is tested
without a process:

* :class:`Forfeit`: the seat is out (told so unless it resigned itself, its processes killed,
  seeded random choices in its place). By the match's :class:`FaultPolicy` a fault forfeits
  unless its class is ``substitute``; a seat that never joined (no hello, wrong token or
  version) and a resignation always forfeit, and so does a strike past ``max_strikes``;
* :class:`Substitute`: one answer is replaced by a seeded random choice and a strike counted;
* :class:`Warn`: a stale or unexpected message, discarded and counted; past ``NOISE_LIMIT`` of
  them in a match it is a ``flood`` (a forfeit);
* every seat pays for what it sends: more than ``MESSAGES_PER_TURN`` messages or
  ``BYTES_PER_TURN`` times ``max_message_bytes`` bytes between two of its turns is a ``flood``,
  ruled before the excess is even decoded;
* a missed deadline is a ``timeout`` when the bank was whole when the decision was sent (the bot
  stopped answering) and ``bank_exhausted`` when earlier slow answers had drawn on it; a slow
  answer in time is a ``slow`` incident.

Incidents keep the message that caused them; the first ``MAX_INCIDENTS`` of a seat are kept in
full (fatal ones always), the rest only counted in ``warnings``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from arena.match.clock import Ask, Spent, Timing
from arena.match.faults import FORFEIT, FaultPolicy
from arena.match.results import OK, Limits

RESIGNED = "resigned"
MAX_INCIDENTS = 50  # per seat; later ones are only counted in ``warnings``
MESSAGES_PER_TURN = 32  # messages a seat may send between two of its turns (an honest bot: 1)
BYTES_PER_TURN = 2  # times max_message_bytes a seat may send between two of its turns
NOISE_LIMIT = 64  # stale_seq and unexpected messages per seat and match before a flood fault


@dataclass(frozen=True)
class Forfeit:
    """The seat is out of the match; ``notify``: tell it with a fatal ``error``."""

    code: str
    detail: str
    notify: bool = True


@dataclass(frozen=True)
class Substitute:
    """This one answer is a seeded random choice; the seat plays on, told with an ``error``."""

    code: str
    detail: str


@dataclass(frozen=True)
class Warn:
    """A message discarded and counted; the seat is told with a non-fatal ``error``."""

    code: str
    detail: str


Ruling = Forfeit | Substitute | Warn


@dataclass
class Ledger:
    """What the rulings know of one seat over one match."""

    status: str = OK  # OK, or the code of the fault that forfeited it
    detail: str = ""
    strikes: int = 0
    sent_messages: int = 0  # since its last turn (the charge, see MESSAGES_PER_TURN)
    sent_bytes: int = 0
    noise: int = 0  # stale_seq and unexpected messages over the match
    warnings: Counter[str] = field(default_factory=Counter)
    incidents: list[dict[str, Any]] = field(default_factory=list)

    def new_turn(self) -> None:
        """The seat is asked again: its allowance of messages and bytes starts anew."""
        self.sent_messages = self.sent_bytes = 0


class Rulings:
    """The rules of one match, by its fault policy and limits."""

    def __init__(self, policy: FaultPolicy, limits: Limits) -> None:
        self.policy = policy
        self.limits = limits

    def charge(self, ledger: Ledger, size: int) -> str:
        """Count a message of ``size`` bytes; past the allowance, why it is a ``flood``."""
        ledger.sent_messages += 1
        ledger.sent_bytes += size
        allowed = BYTES_PER_TURN * self.limits.max_message_bytes
        if ledger.sent_messages > MESSAGES_PER_TURN:
            return f"more than {MESSAGES_PER_TURN} messages since its last turn"
        if ledger.sent_bytes > allowed:
            return f"more than {allowed} bytes of messages since its last turn"
        return ""

    def fault(
        self,
        ledger: Ledger,
        code: str,
        detail: str,
        excerpt: str = "",
        *,
        joined: bool,
        ask: Ask | None = None,
        notify: bool = True,
    ) -> Forfeit | Substitute | None:
        """Rule on a fault by the policy; None when the seat was already forfeited.

        ``joined``: the seat said a proper hello (before that every fault forfeits); ``ask``:
        the decision the fault is about, if any (recorded with the incident).
        """
        if ledger.status != OK:
            return None
        seq, kind = (ask.seq, ask.decision.kind) if ask is not None else (None, None)
        substitute = joined and self.policy.action(code) != FORFEIT
        if substitute:
            ledger.strikes += 1
            if ledger.strikes > self.policy.max_strikes:
                substitute = False
                limit = self.policy.max_strikes
                detail += f" (strike {ledger.strikes}, over the limit of {limit})"
        note(ledger, code, detail, excerpt, fatal=not substitute, seq=seq, kind=kind)
        if substitute:
            return Substitute(code, detail)
        ledger.status, ledger.detail = code, detail
        return Forfeit(code, detail, notify)

    def warn(
        self, ledger: Ledger, code: str, detail: str, excerpt: str, seq: int | None = None
    ) -> Ruling | None:
        """A stale or unexpected message; past ``NOISE_LIMIT`` in the match, a ``flood``."""
        ledger.noise += 1
        if ledger.noise > NOISE_LIMIT:
            why = f"more than {NOISE_LIMIT} stale or unexpected messages in the match"
            return self.fault(ledger, "flood", why, excerpt, joined=True)
        note(ledger, code, detail, excerpt, fatal=False, seq=seq)
        return Warn(code, detail)

    def late(
        self, ledger: Ledger, ask: Ask, joined: bool, spent: Spent | None = None
    ) -> Forfeit | Substitute | None:
        """The seat's deadline passed without an answer read in time; ``spent``: what it had
        of the machine meanwhile (shown to its author)."""
        if ask.bank_full:
            code, why = "timeout", f"no answer within {self.limits.move_ms} ms + bank"
        else:
            code, why = "bank_exhausted", f"time bank of {self.limits.bank_ms} ms used up"
        detail = f"{why} (decision {ask.decision.kind})"
        if spent is not None:
            detail += f"; it had {spent.shown()}"
        return self.fault(ledger, code, detail, joined=joined, ask=ask)

    def slow(self, ledger: Ledger, ask: Ask, timing: Timing, bank_ms: float, excerpt: str) -> None:
        """An answer in time that drew on the bank: a ``slow`` incident, not a fault."""
        if timing.over_ms <= 0:
            return
        why = (
            f"answered in {timing.elapsed_ms:.0f} ms, over move_ms {self.limits.move_ms}; "
            f"{bank_ms:.0f} ms of bank left"
        )
        note(ledger, "slow", why, excerpt, fatal=False, seq=ask.seq, kind=ask.decision.kind)


def note(
    ledger: Ledger,
    code: str,
    detail: str,
    excerpt: str,
    fatal: bool,
    seq: int | None = None,
    kind: str | None = None,
) -> None:
    """Record an incident for the seat's report (the first ones in full, then counted)."""
    if not fatal:
        ledger.warnings[code] += 1
    if len(ledger.incidents) < MAX_INCIDENTS or fatal:
        incident = {"code": code, "detail": detail, "fatal": fatal, "seq": seq, "kind": kind}
        ledger.incidents.append({**incident, "message": excerpt})
