"""What a match produced: its limits, each seat's record, the result and why it may be void.

Plain data with no ZeroMQ and no processes, so the ladder, the registry, the reports and the
server read results without importing the referee.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from protocol import codec

OK = "ok"
CLOCKS = ("wall", "cpu")  # what a seat is charged (arena.match.clock)


class VoidKind(StrEnum):
    """Whose failure voided a match; a void reason is ``"<kind>: <detail>"``.

    None of them is a bot's fault: a void match is never stored as a result, only retried.
    """

    HOST = "host"  # this machine could not start a bot (sandbox, cgroup, uid lease, fork)
    LOAD = "load"  # this machine kept a seat from running until its deadline's ceiling
    INTERNAL = "internal"  # the referee or the game engine raised
    WORKER = "worker"  # the worker process, outside the referee's guard
    EXECUTOR = "executor"  # the job as a whole (a dead worker, a lost cluster connection)

    def reason(self, detail: str) -> str:
        return f"{self.value}: {detail}"


def void_kind(reason: str) -> VoidKind:
    """The kind of a void ``reason``; one from an unknown source counts as the worker's."""
    prefix = reason.partition(":")[0]
    return VoidKind(prefix) if prefix in VoidKind.__members__.values() else VoidKind.WORKER


def is_load_void(reason: str | None) -> bool:
    """The void was this machine's load: replayed without blame, the run goes on."""
    return reason is not None and void_kind(reason) is VoidKind.LOAD


def is_host_void(reason: str | None) -> bool:
    """The void was this machine's failure: the run stops and no bot is blamed."""
    return reason is not None and void_kind(reason) is VoidKind.HOST


@dataclass(frozen=True)
class Limits:
    """Clock and size limits for every seat of a match (milliseconds, bytes)."""

    init_ms: int = 10_000
    move_ms: int = 1_000
    bank_ms: int = 10_000
    grace_ms: int = 50
    max_message_bytes: int = codec.MAX_MESSAGE_BYTES
    match_ms: int = 7_200_000  # wall-clock cap of the whole match: a backstop, 2 hours
    clock: str = "wall"  # what a seat is charged: its own wall time, or ("cpu") its CPU time
    wall_factor: int = 3  # on the CPU clock, the wall-clock ceiling in times a budget

    def as_dict(self) -> dict[str, int | str]:
        """Its fields (plain values all: a shallow copy, not ``asdict``'s deep one, which cost
        a short match as much as a decision)."""
        return dict(vars(self))


@dataclass
class SeatResult:
    """How one seat's bot fared: its place, every fault and warning, and what it used."""

    seat: int
    name: str
    score: float
    rank: int
    status: str = OK
    detail: str = ""
    decisions: int = 0
    time_ms: float = 0.0
    max_ms: float = 0.0
    bank_left_ms: float = 0.0
    exit_code: int | None = None
    warnings: dict[str, int] = field(default_factory=dict)
    log_tail: str = ""
    transport: str = "zmq"
    sandbox: str = ""
    signal: str | None = None
    cpu_ms: float | None = None
    peak_memory_kb: int | None = None
    strikes: int = 0
    incidents: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class MatchResult:
    match_id: str
    game: str
    game_version: str
    seed: int
    options: dict[str, Any]
    seats: list[SeatResult]
    outcome: dict[str, Any]
    decisions: int
    duration_ms: float
    sandbox: str
    replay_path: str | None = None
    void: str | None = None
    sched: dict[str, Any] = field(default_factory=dict)  # the referee's latency (match/sched.py)

    @property
    def ranks(self) -> list[int]:
        return [s.rank for s in self.seats]

    def as_dict(self) -> dict[str, Any]:
        """As plain data, what a worker sends back after every match: its seats made dicts,
        the rest shared with it (``asdict``'s deep copy of every list and dict cost a short
        match as much as two decisions)."""
        return {**vars(self), "seats": [dict(vars(seat)) for seat in self.seats]}
