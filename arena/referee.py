"""The referee: plays one match between bot processes and adjudicates every fault.

It owns the authoritative game state and talks to each bot over its own ZeroMQ ROUTER socket,
bound to an ``ipc://`` socket file in a private temporary directory (mode 0700). A bot proves
its seat with the per-seat token it was given in ``ARENA_TOKEN``. One ``zmq.Poller`` watches
every bot socket and every bot's pidfd, so a crash is seen the moment it happens and a hang by a
monotonic deadline.

Rulings (DESIGN.md section 4; the error codes are protocol v1's):

* clocks: ``init_ms`` to say hello, then per decision ``move_ms``; time beyond it is taken from
  the seat's ``bank_ms``; ``grace_ms`` absorbs scheduling noise. No answer by
  ``move_ms + bank + grace`` is ``timeout`` when the bank was still full at the start of that
  decision (the bot stopped answering) and ``bank_exhausted`` when earlier slow answers had
  already drawn on it;
* faults (``crashed``, ``timeout``, ``bank_exhausted``, ``malformed``, ``bad_field``,
  ``unknown_type``, ``too_large``, ``bad_token``, ``version_mismatch``, ``illegal_action``)
  forfeit the seat: its process is killed, it is ranked below every seat without a fault (all
  forfeited seats share the lowest rank) and the game goes on with seeded random legal choices
  in its place, so the others' game is not spoiled;
* ``stale_seq`` and ``unexpected`` messages are discarded and counted, never fatal;
* a decision with a single option is applied without asking (``ask_forced`` turns this off);
* answers to a simultaneous choice are applied in seat order once all are in, so the replay
  does not depend on which bot answered first;
* an exception inside the referee or the engine voids the match (``void`` is set): it is never
  counted against a bot.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import secrets
import signal
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import zmq

from protocol import codec, messages
from protocol.codec import ProtocolError

from . import replay, sandbox
from .bots import BotSpec
from .games.base import Decision, Game, State, competition_ranks

OK = "ok"
RESIGNED = "resigned"
RCVHWM = 64


@dataclass(frozen=True)
class Limits:
    """Clock and size limits for every seat of a match (milliseconds, bytes)."""

    init_ms: int = 10_000
    move_ms: int = 1_000
    bank_ms: int = 10_000
    grace_ms: int = 50
    max_message_bytes: int = codec.MAX_MESSAGE_BYTES

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass
class SeatResult:
    """How one seat's bot fared: its place, and every fault and warning recorded."""

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

    @property
    def ranks(self) -> list[int]:
        return [s.rank for s in self.seats]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def default_match_id(game: str, seed: int, names: Sequence[str], options: Mapping[str, Any]) -> str:
    """A stable id, so the same match played twice has the same id and replay header."""
    key = json.dumps([game, seed, list(names), dict(sorted(options.items()))], default=str)
    return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass
class _Ask:
    seq: int
    decision: Decision
    sent_at: float
    deadline: float
    bank_full: bool


class _Seat:
    """The referee's side of one bot: its socket, process, clock and record."""

    def __init__(self, index: int, spec: BotSpec, bank_ms: int, rng: random.Random) -> None:
        self.index = index
        self.spec = spec
        self.socket: zmq.Socket | None = None
        self.endpoint = ""
        self.rng = rng  # substitute choices after a fault
        self.token = secrets.token_hex(16)
        self.proc: sandbox.BotProcess | None = None
        self.watched = False  # its pidfd is in the poller
        self.identity: bytes | None = None
        self.greeted = False
        self.status = OK
        self.detail = ""
        self.bank_ms = float(bank_ms)
        self.time_ms = 0.0
        self.max_ms = 0.0
        self.decisions = 0
        self.last_seq = 0
        self.cursor = 0
        self.ask: _Ask | None = None
        self.answer: tuple[int, float] | None = None
        self.warnings: Counter[str] = Counter()
        self.exit_code: int | None = None

    @property
    def active(self) -> bool:
        return self.status == OK


class Referee:
    """Plays one match; use :func:`play_match` unless you need the pieces."""

    def __init__(
        self,
        game: Game,
        bots: Sequence[BotSpec],
        seed: int,
        options: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
        match_id: str | None = None,
        ask_forced: bool = False,
    ) -> None:
        self.game = game
        self.bots = list(bots)
        self.seed = seed
        self.options = game.resolve_options(options, len(self.bots))
        self.limits = limits or Limits()
        names = [b.name for b in self.bots]
        self.match_id = match_id or default_match_id(game.id, seed, names, self.options)
        self.ask_forced = ask_forced
        self.seq = 0
        self.finished = False
        self.records: list[dict[str, Any]] = []
        self.poller = zmq.Poller()
        self.seats = [
            _Seat(i, spec, self.limits.bank_ms, random.Random(f"{seed}/substitute/{i}"))
            for i, spec in enumerate(self.bots)
        ]

    # -- the match ---------------------------------------------------------------------------

    def run(self, replay_path: Path | None = None) -> MatchResult:
        started = time.monotonic()
        state = self.game.new(len(self.bots), self.seed, self.options)
        void = None
        with tempfile.TemporaryDirectory(prefix="arena-") as tmp:
            ctx = zmq.Context()
            try:
                self._start(ctx, Path(tmp))
                self._handshake()
                self._play(state)
                self._finish(state)
            except Exception as exc:  # a fault of the referee or engine voids the match
                void = f"internal: {type(exc).__name__}: {exc}"
            finally:
                self._stop_all()
                for seat in self.seats:
                    if seat.socket is not None:
                        seat.socket.close(linger=0)
                ctx.term()
            result = self._result(state, void, (time.monotonic() - started) * 1000)
        if replay_path is not None and void is None:
            replay.write(replay_path, replay.build(self, state, result))
            result.replay_path = str(replay_path)
        return result

    def _start(self, ctx: zmq.Context, tmp: Path) -> None:
        for seat in self.seats:
            sock = seat.socket = ctx.socket(zmq.ROUTER)
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
            sock.setsockopt(zmq.MAXMSGSIZE, self.limits.max_message_bytes)
            sock.setsockopt(zmq.RCVHWM, RCVHWM)
            seat.endpoint = f"ipc://{tmp}/seat{seat.index}.sock"
            sock.bind(seat.endpoint)
            self.poller.register(sock, zmq.POLLIN)
        for seat in self.seats:
            env = sandbox.bot_environment(
                {
                    "ARENA_ENDPOINT": seat.endpoint,
                    "ARENA_TOKEN": seat.token,
                    "ARENA_BOT_NAME": seat.spec.name,
                    "ARENA_SEAT": str(seat.index),
                }
            )
            log = tmp / f"seat{seat.index}.log"
            try:
                seat.proc = sandbox.launch(
                    seat.spec.argv(), cwd=seat.spec.cwd, env=env, log_path=log
                )
            except OSError as exc:
                self._fault(seat, "crashed", f"could not start: {exc}")
                continue
            self.poller.register(seat.proc.pidfd, zmq.POLLIN)
            seat.watched = True

    def _handshake(self) -> None:
        deadline = time.monotonic() + (self.limits.init_ms + self.limits.grace_ms) / 1000
        while any(s.active and not s.greeted for s in self.seats):
            if time.monotonic() >= deadline:
                for seat in self.seats:
                    if seat.active and not seat.greeted:
                        self._fault(seat, "timeout", f"no hello within {self.limits.init_ms} ms")
                break
            self._wait(deadline)

    def _play(self, state: State) -> None:
        while pending := state.pending():
            answers = self._collect(state, pending)
            for decision in sorted(pending, key=lambda d: d.seat):
                choice, by, ms = answers[decision.seat]
                self.records.append(
                    {
                        "seat": decision.seat,
                        "kind": decision.kind,
                        "choice": choice,
                        "option": decision.options[choice],
                        "by": by,
                        "ms": round(ms, 3),
                        "events": state.event_count(),
                    }
                )
                state.act(decision.seat, choice)

    def _collect(self, state: State, pending: tuple[Decision, ...]) -> dict[int, tuple]:
        """Get one answer per pending decision: from the bot, or auto / substitute."""
        answers: dict[int, tuple[int, str, float]] = {}
        while True:
            for decision in pending:
                if decision.seat in answers:
                    continue
                seat = self.seats[decision.seat]
                if len(decision.options) == 1 and not self.ask_forced:
                    answers[seat.index] = (0, "auto", 0.0)
                elif not seat.active:
                    answers[seat.index] = (self._substitute(seat, decision), "substitute", 0.0)
                elif seat.answer is not None:
                    choice, ms = seat.answer
                    seat.answer = None
                    answers[seat.index] = (choice, "bot", ms)
                elif seat.ask is None:
                    self._send_turn(state, seat, decision)
            if len(answers) == len(pending):
                return answers
            self._expire_deadlines()
            deadlines = [s.ask.deadline for s in self.seats if s.active and s.ask is not None]
            if deadlines:
                self._wait(min(deadlines))

    def _expire_deadlines(self) -> None:
        """Fault every seat whose answer is past its deadline (see the module's clock ruling)."""
        now = time.monotonic()
        for seat in self.seats:
            ask = seat.ask
            if not seat.active or ask is None or now < ask.deadline:
                continue
            if ask.bank_full:
                code, why = "timeout", f"no answer within {self.limits.move_ms} ms + bank"
            else:
                code, why = "bank_exhausted", f"time bank of {self.limits.bank_ms} ms used up"
            self._fault(seat, code, f"{why} (decision {ask.decision.kind})")

    def _substitute(self, seat: _Seat, decision: Decision) -> int:
        return seat.rng.randrange(len(decision.options))

    def _send_turn(self, state: State, seat: _Seat, decision: Decision) -> None:
        self.seq += 1
        events, seat.cursor = state.events_since(seat.index, seat.cursor)
        clock = {"move_ms": self.limits.move_ms, "bank_ms": int(seat.bank_ms)}
        msg = messages.turn(
            self.seq,
            decision.kind,
            decision.prompt,
            list(decision.options),
            state.view(seat.index),
            events,
            clock,
        )
        now = time.monotonic()
        budget = self.limits.move_ms + seat.bank_ms + self.limits.grace_ms
        full = seat.bank_ms >= self.limits.bank_ms
        seat.ask = _Ask(self.seq, decision, now, now + budget / 1000, full)
        seat.last_seq = self.seq
        self._send(seat, msg)

    def _finish(self, state: State) -> None:
        self.finished = True
        outcome = state.outcome().as_dict()
        for seat in self.seats:
            if seat.active and seat.greeted:
                events, seat.cursor = state.events_since(seat.index, seat.cursor)
                msg = messages.game_over(outcome, seat.status, state.view(seat.index), events)
                self._send(seat, msg)
        # Give bots a moment to read game_over and leave on their own; the rest are killed.
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline and any(
            s.proc is not None and s.proc.poll() is None for s in self.seats
        ):
            self._wait(min(deadline, time.monotonic() + 0.02))

    # -- events from bots --------------------------------------------------------------------

    def _wait(self, until: float) -> None:
        """Poll every socket and pidfd until ``until`` or the first activity; handle it all."""
        timeout = max(0.0, (until - time.monotonic()) * 1000)
        ready = dict(self.poller.poll(timeout))
        if not ready:
            return
        for seat in self.seats:
            if seat.socket in ready:
                self._drain(seat)
        for seat in self.seats:
            if seat.proc is not None and seat.proc.pidfd in ready:
                self._on_exit(seat)

    def _drain(self, seat: _Seat) -> None:
        while True:
            try:
                frames = seat.socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            if seat.active:
                self._on_message(seat, frames)

    def _on_message(self, seat: _Seat, frames: list[bytes]) -> None:
        received = time.monotonic()
        if len(frames) != 2:
            self._fault(seat, "malformed", f"a message must be one frame, got {len(frames) - 1}")
            return
        identity, payload = frames
        try:
            msg = messages.check_bot_message(codec.decode(payload, self.limits.max_message_bytes))
        except ProtocolError as exc:
            seat.identity = seat.identity or identity
            self._fault(seat, exc.code, exc.message)
            return
        kind = msg["type"]
        if kind == "hello":
            self._on_hello(seat, identity, msg)
        elif not seat.greeted or identity != seat.identity:
            self._warn(seat, "unexpected", f"{kind} before hello or from another connection")
        elif kind == "error":
            self._fault(seat, RESIGNED, f"bot gave up: {msg['code'][:80]}", notify=False)
        else:
            self._on_action(seat, msg, received)

    def _on_hello(self, seat: _Seat, identity: bytes, msg: dict[str, Any]) -> None:
        if seat.greeted:
            self._warn(seat, "unexpected", "second hello")
            return
        seat.identity = identity
        if not secrets.compare_digest(msg["token"], seat.token):
            self._fault(seat, "bad_token", "hello carries a wrong token")
        elif codec.PROTOCOL_VERSION not in msg["versions"]:
            supported = codec.PROTOCOL_VERSION
            self._fault(
                seat, "version_mismatch", f"bot speaks {msg['versions']}, referee {supported}"
            )
        else:
            seat.greeted = True
            game = game_info(self.game, self.options)
            limits = self.limits.as_dict()
            welcome = messages.welcome(self.match_id, seat.index, len(self.seats), game, limits)
            self._send(seat, welcome)

    def _on_action(self, seat: _Seat, msg: dict[str, Any], received: float) -> None:
        ask = seat.ask
        if ask is None or msg["seq"] != ask.seq:
            stale = msg["seq"] <= seat.last_seq
            code = "stale_seq" if stale else "unexpected"
            self._warn(seat, code, f"action for seq {msg['seq']} is not awaited")
            return
        elapsed = (received - ask.sent_at) * 1000
        seat.ask = None
        seat.time_ms += elapsed
        seat.max_ms = max(seat.max_ms, elapsed)
        seat.bank_ms = max(0.0, seat.bank_ms - max(0.0, elapsed - self.limits.move_ms))
        choice = msg["choice"]
        if not 0 <= choice < len(ask.decision.options):
            n = len(ask.decision.options)
            self._fault(
                seat,
                "illegal_action",
                f"choice {choice} for {ask.decision.kind}: options 0..{n - 1}",
            )
            return
        seat.decisions += 1
        seat.answer = (choice, elapsed)

    def _on_exit(self, seat: _Seat) -> None:
        assert seat.proc is not None
        self._unwatch(seat)
        seat.exit_code = seat.proc.poll()
        if seat.active and not self.finished:
            self._fault(seat, "crashed", describe_exit(seat.exit_code))

    # -- faults ------------------------------------------------------------------------------

    def _fault(self, seat: _Seat, code: str, detail: str, notify: bool = True) -> None:
        """Forfeit the seat: record the fault, tell the bot, kill it. The first fault counts."""
        if not seat.active:
            return
        seat.status, seat.detail = code, detail
        seat.ask = None
        seat.answer = None
        if notify and seat.identity is not None:
            self._send(seat, messages.error(code, detail, fatal=True))
        self._kill(seat)

    def _warn(self, seat: _Seat, code: str, detail: str) -> None:
        seat.warnings[code] += 1
        if seat.identity is not None:
            self._send(seat, messages.error(code, detail, fatal=False))

    def _send(self, seat: _Seat, msg: dict[str, Any]) -> None:
        assert seat.socket is not None
        # A peer gone (EHOSTUNREACH) or not reading (EAGAIN) is judged by its pidfd or clock.
        with contextlib.suppress(zmq.ZMQError):
            seat.socket.send_multipart([seat.identity, codec.encode(msg)], zmq.NOBLOCK)

    def _unwatch(self, seat: _Seat) -> None:
        if seat.watched:
            seat.watched = False
            self.poller.unregister(seat.proc.pidfd)

    def _kill(self, seat: _Seat) -> None:
        if seat.proc is not None and seat.proc.pidfd >= 0:
            self._unwatch(seat)
            seat.proc.kill()
            if seat.exit_code is None:
                seat.exit_code = seat.proc.poll()

    def _stop_all(self) -> None:
        for seat in self.seats:
            self._kill(seat)

    # -- the result --------------------------------------------------------------------------

    def _result(self, state: State, void: str | None, duration_ms: float) -> MatchResult:
        seats = self.seats
        outcome = state.outcome().as_dict() if void is None else {}
        scores = outcome.get("scores", [0.0] * len(seats))
        game_ranks = outcome.get("ranks", [0] * len(seats))
        keys = [(not s.active, 0 if not s.active else game_ranks[s.index]) for s in seats]
        ranks = competition_ranks(keys)
        results = [
            SeatResult(
                seat=s.index,
                name=s.spec.name,
                score=scores[s.index],
                rank=ranks[s.index],
                status=s.status,
                detail=s.detail,
                decisions=s.decisions,
                time_ms=round(s.time_ms, 3),
                max_ms=round(s.max_ms, 3),
                bank_left_ms=round(s.bank_ms, 3),
                exit_code=s.exit_code,
                warnings=dict(sorted(s.warnings.items())),
                log_tail=s.proc.log_tail() if s.proc is not None else "",
            )
            for s in seats
        ]
        return MatchResult(
            match_id=self.match_id,
            game=self.game.id,
            game_version=self.game.version,
            seed=self.seed,
            options=self.options,
            seats=results,
            outcome=outcome,
            decisions=len(self.records),
            duration_ms=round(duration_ms, 3),
            sandbox=sandbox.LEVEL,
            void=void,
        )


def game_info(game: Game, options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``game`` field of ``welcome``: id, version, options and the game's public data."""
    return {
        "id": game.id,
        "version": game.version,
        "options": dict(options),
        "data": game.public_data(options),
    }


def describe_exit(code: int | None) -> str:
    if code is None:
        return "connection lost"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with code {code} during the match"


def play_match(
    game: Game,
    bots: Sequence[BotSpec],
    seed: int,
    options: Mapping[str, Any] | None = None,
    limits: Limits | None = None,
    replay_path: Path | None = None,
    match_id: str | None = None,
) -> MatchResult:
    """Play one match between bot processes; the result, and a replay file if a path is given."""
    referee = Referee(game, bots, seed, options, limits, match_id)
    return referee.run(replay_path)
