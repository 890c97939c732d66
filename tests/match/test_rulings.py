"""The rulings on a seat, as pure code: charges, faults by policy, strikes, noise, incidents."""

from __future__ import annotations

import pytest

from arena.games.base import Decision
from arena.match.clock import SeatClock, Timing
from arena.match.faults import SUBSTITUTE, FaultPolicy
from arena.match.results import OK, Limits
from arena.match.rulings import (
    MAX_INCIDENTS,
    MESSAGES_PER_TURN,
    NOISE_LIMIT,
    RESIGNED,
    Forfeit,
    Ledger,
    Rulings,
    Substitute,
    Warn,
)

LIMITS = Limits(move_ms=1000, bank_ms=2000, max_message_bytes=1000)
TURN = Decision(1, "turn", ({"a": 1},), "play")
EVERY_CLASS_SUBSTITUTED = FaultPolicy(
    crash=SUBSTITUTE,
    timeout=SUBSTITUTE,
    bank_exhausted=SUBSTITUTE,
    illegal_action=SUBSTITUTE,
    protocol=SUBSTITUTE,
    max_strikes=2,
)


def ask(seq: int = 3, bank_ms: float = 2000):
    clock = SeatClock(LIMITS)
    clock.bank_ms = bank_ms
    return clock.ask(seq, TURN, now=0.0)


def test_an_honest_turn_is_one_message_and_costs_nothing() -> None:
    ledger = Ledger()
    assert Rulings(FaultPolicy(), LIMITS).charge(ledger, 40) == ""
    assert (ledger.sent_messages, ledger.sent_bytes) == (1, 40)


def test_more_messages_than_the_turn_allows_is_a_flood_and_a_new_turn_starts_anew() -> None:
    rulings, ledger = Rulings(FaultPolicy(), LIMITS), Ledger()
    assert all(rulings.charge(ledger, 1) == "" for _ in range(MESSAGES_PER_TURN))
    assert (
        rulings.charge(ledger, 1) == f"more than {MESSAGES_PER_TURN} messages since its last turn"
    )
    ledger.new_turn()
    assert rulings.charge(ledger, 1) == ""


def test_more_bytes_than_twice_the_message_limit_is_a_flood() -> None:
    rulings, ledger = Rulings(FaultPolicy(), LIMITS), Ledger()
    assert rulings.charge(ledger, 1000) == rulings.charge(ledger, 1000) == ""
    assert rulings.charge(ledger, 1) == "more than 2000 bytes of messages since its last turn"


def test_by_default_a_fault_forfeits_and_is_recorded_with_its_decision() -> None:
    ledger = Ledger()
    ruling = Rulings(FaultPolicy(), LIMITS).fault(
        ledger, "illegal_action", "choice 9", "{...}", joined=True, ask=ask()
    )
    assert ruling == Forfeit("illegal_action", "choice 9", notify=True)
    assert (ledger.status, ledger.detail, ledger.strikes) == ("illegal_action", "choice 9", 0)
    assert ledger.incidents == [
        {
            "code": "illegal_action",
            "detail": "choice 9",
            "fatal": True,
            "seq": 3,
            "kind": "turn",
            "message": "{...}",
        }
    ]
    assert ledger.warnings == {}


def test_a_seat_already_out_is_not_ruled_again() -> None:
    rulings, ledger = Rulings(FaultPolicy(), LIMITS), Ledger()
    rulings.fault(ledger, "crashed", "exited", joined=True)
    assert rulings.fault(ledger, "timeout", "late", joined=True) is None
    assert (ledger.status, len(ledger.incidents)) == ("crashed", 1)


def test_substitute_counts_strikes_and_forfeits_past_the_limit() -> None:
    rulings, ledger = Rulings(EVERY_CLASS_SUBSTITUTED, LIMITS), Ledger()
    for strike in (1, 2):
        ruling = rulings.fault(ledger, "bad_field", "bad", joined=True, ask=ask())
        assert ruling == Substitute("bad_field", "bad")
        assert (ledger.status, ledger.strikes) == (OK, strike)
    assert ledger.warnings == {"bad_field": 2}
    assert [i["fatal"] for i in ledger.incidents] == [False, False]
    ruling = rulings.fault(ledger, "timeout", "late", joined=True, ask=ask())
    assert ruling == Forfeit("timeout", "late (strike 3, over the limit of 2)")
    assert ledger.status == "timeout" and ledger.incidents[-1]["fatal"]


@pytest.mark.parametrize("code", ["flood", "too_many_connections", "match_timeout", RESIGNED])
def test_faults_against_the_referee_and_resignations_always_forfeit(code: str) -> None:
    ruling = Rulings(EVERY_CLASS_SUBSTITUTED, LIMITS).fault(Ledger(), code, "x", joined=True)
    assert isinstance(ruling, Forfeit)


def test_a_seat_that_never_joined_forfeits_whatever_the_policy() -> None:
    ruling = Rulings(EVERY_CLASS_SUBSTITUTED, LIMITS).fault(
        Ledger(), "malformed", "x", joined=False
    )
    assert isinstance(ruling, Forfeit)


def test_a_resignation_is_not_answered() -> None:
    ruling = Rulings(FaultPolicy(), LIMITS).fault(
        Ledger(), RESIGNED, "gave up", joined=True, notify=False
    )
    assert ruling == Forfeit(RESIGNED, "gave up", notify=False)


def test_noise_is_warned_then_a_flood_past_the_limit() -> None:
    rulings, ledger = Rulings(FaultPolicy(), LIMITS), Ledger()
    for _ in range(NOISE_LIMIT):
        assert rulings.warn(ledger, "stale_seq", "old", "{}", seq=1) == Warn("stale_seq", "old")
    assert ledger.warnings == {"stale_seq": NOISE_LIMIT} and ledger.status == OK
    ruling = rulings.warn(ledger, "unexpected", "again", "{}")
    assert isinstance(ruling, Forfeit) and ruling.code == "flood"
    assert ledger.detail == f"more than {NOISE_LIMIT} stale or unexpected messages in the match"


def test_a_missed_deadline_is_a_timeout_with_a_whole_bank_else_bank_exhausted() -> None:
    rulings = Rulings(FaultPolicy(), LIMITS)
    full = rulings.late(Ledger(), ask(bank_ms=2000), joined=True)
    drawn = rulings.late(Ledger(), ask(bank_ms=500), joined=True)
    assert full == Forfeit("timeout", "no answer within 1000 ms + bank (decision turn)")
    assert drawn == Forfeit("bank_exhausted", "time bank of 2000 ms used up (decision turn)")


def test_a_slow_answer_is_an_incident_not_a_fault() -> None:
    rulings, ledger = Rulings(FaultPolicy(), LIMITS), Ledger()
    rulings.slow(ledger, ask(), Timing(900.0, 0.0), 2000, "{}")
    assert ledger.incidents == []
    rulings.slow(ledger, ask(), Timing(1500.0, 500.0), 1500, "{}")
    assert ledger.status == OK and ledger.warnings == {"slow": 1}
    assert ledger.incidents[0]["detail"] == (
        "answered in 1500 ms, over move_ms 1000; 1500 ms of bank left"
    )


def test_incidents_are_kept_in_full_up_to_the_cap_and_a_fatal_one_always() -> None:
    rulings, ledger = Rulings(FaultPolicy(), LIMITS), Ledger()
    for _ in range(MAX_INCIDENTS + 10):
        rulings.slow(ledger, ask(), Timing(1500.0, 500.0), 0, "{}")
    assert len(ledger.incidents) == MAX_INCIDENTS
    assert ledger.warnings == {"slow": MAX_INCIDENTS + 10}
    rulings.fault(ledger, "crashed", "exited", joined=True)
    assert len(ledger.incidents) == MAX_INCIDENTS + 1 and ledger.incidents[-1]["fatal"]
