"""The referee: plays one match between bot processes and adjudicates every fault.

It owns the authoritative game state and talks to each bot through a channel
(``arena.match.channels``): its own ZeroMQ ROUTER on an ``ipc://`` socket file in a private
temporary directory, or JSON lines on the bot's stdin and stdout. A bot proves its seat with the
per-seat token it was given in ``ARENA_TOKEN``. One ``zmq.Poller`` watches every channel and
every bot's pidfd, so a crash is seen the moment it happens and a hang by a monotonic deadline.
Bots are started by ``arena.sandbox`` at the strongest level this machine allows.

Rulings (DESIGN.md section 4; the error codes are protocol v1's):

* clocks: ``init_ms`` to say hello, then per decision ``move_ms``; time beyond it is taken from
  the seat's ``bank_ms`` (recorded as a ``slow`` incident); ``grace_ms`` absorbs scheduling
  noise. No answer by ``move_ms + bank + grace`` is ``timeout`` when the bank was still full at
  the start of that decision (the bot stopped answering) and ``bank_exhausted`` when earlier
  slow answers had already drawn on it;
* faults (``crashed``, ``oom``, ``cpu_limit``, ``timeout``, ``bank_exhausted``, ``malformed``,
  ``bad_field``, ``unknown_type``, ``too_large``, ``illegal_action``) are ruled by the match's
  :class:`~arena.match.faults.FaultPolicy`: by default they forfeit the seat: its processes are
  killed, it is ranked below every seat without a fault (all forfeited seats share the lowest
  rank) and the game goes on with seeded random legal choices in its place, so the others' game
  is not spoiled. Under ``substitute`` the random choice stands in for that one answer and a
  strike is counted. ``bad_token``, ``version_mismatch``, a missed hello and a resignation
  (the bot sends ``error``) always forfeit;
* ``stale_seq`` and ``unexpected`` messages are discarded and counted, never fatal;
* a decision with a single option is applied without asking (``ask_forced`` turns this off);
* answers to a simultaneous choice are applied in seat order once all are in, so the replay
  does not depend on which bot answered first;
* an exception inside the referee or the engine voids the match (``void`` is set): it is never
  counted against a bot.
* a bot this machine could not start (``sandbox.HostError``: sandbox set-up, cgroup, uid lease,
  fork, an interpreter the bot's uid cannot run) voids the match with a ``host:`` reason, and
  never counts as the bot's crash.

Every seat's record (:class:`SeatResult`) keeps what a bot author or an organiser needs to see:
status and fault, exit code or signal, wall and CPU time, bank left, strikes, peak memory, the
sandbox level, the sanitised tail of its stderr, and every incident with the message that
caused it.
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import zmq

from arena import sandbox
from arena.games.base import Decision, Game, State, competition_ranks
from arena.match import replay
from arena.match.bots import BotSpec
from arena.match.channels import Inbound, StdioChannel, ZmqChannel, printable
from arena.match.faults import FORFEIT, FaultPolicy, exit_fault, signal_name
from protocol import codec, messages

OK = "ok"
RESIGNED = "resigned"
MAX_INCIDENTS = 50  # per seat; later ones are only counted in ``warnings``
GAME_OVER_S = 0.5  # how long bots may take to leave after game_over before they are killed
DRAIN_ROUNDS = 64  # reads taken from a channel when its bot has exited
EOF_GRACE_S = 0.5  # how long a dead stdio bot's unfinished line may wait for its pipe to close
HOST_VOID = "host: "  # a void that is this machine's failure (sandbox, cgroup, uid, fork)


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


Channel = ZmqChannel | StdioChannel


class _Seat:
    """The referee's side of one bot: its channel, process, clock and record."""

    def __init__(self, index: int, spec: BotSpec, bank_ms: int, rng: random.Random) -> None:
        self.index = index
        self.spec = spec
        self.channel: Channel | None = None
        self.rng = rng  # substitute choices
        self.token = secrets.token_hex(16)
        self.proc: sandbox.BotProcess | None = None
        self.watched = False  # its pidfd is in the poller
        self.greeted = False
        self.alive = True  # its process runs (or is still to start)
        self.status = OK
        self.detail = ""
        self.bank_ms = float(bank_ms)
        self.time_ms = 0.0
        self.max_ms = 0.0
        self.decisions = 0
        self.strikes = 0
        self.last_seq = 0  # per seat: a shared counter would tell how often others are asked
        self.cursor = 0
        self.ask: _Ask | None = None
        self.answer: tuple[int, str, float] | None = None  # choice, by, ms
        self.warnings: Counter[str] = Counter()
        self.incidents: list[dict[str, Any]] = []
        self.exit_code: int | None = None
        self.usage = sandbox.Usage()

    @property
    def playing(self) -> bool:
        """Not forfeited and its process still there: it is asked and heard."""
        return self.status == OK and self.alive


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
        policy: FaultPolicy | None = None,
        sandbox_limits: sandbox.SandboxLimits | None = None,
        sandbox_level: str | None = None,
        position: Mapping[str, Any] | None = None,
    ) -> None:
        self.game = game
        self.bots = list(bots)
        self.seed = seed
        self.position = position  # a full position to start from (Game.load) instead of a deal
        self.options = game.resolve_options(options, len(self.bots))
        self.limits = limits or Limits()
        names = [b.name for b in self.bots]
        self.match_id = match_id or default_match_id(game.id, seed, names, self.options)
        self.ask_forced = ask_forced
        self.policy = policy or FaultPolicy()
        self.sandbox_limits = sandbox_limits or sandbox.SandboxLimits()
        self.sandbox_level = sandbox_level
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
        if self.position is None:
            state = self.game.new(len(self.bots), self.seed, self.options)
        else:
            state = self.game.load(self.position)
        void = None
        with sandbox.match_directory() as tmp:
            ctx = zmq.Context()
            try:
                self._start(ctx, Path(tmp))
                self._handshake()
                self._play(state)
                self._finish(state)
            except sandbox.HostError as exc:  # this machine failed to start a bot
                void = f"{HOST_VOID}{exc}"
            except Exception as exc:  # a fault of the referee or engine voids the match
                void = f"internal: {type(exc).__name__}: {exc}"
            finally:
                for seat in self.seats:
                    self._stop(seat)
                    if seat.channel is not None:
                        seat.channel.close()
                ctx.term()
            result = self._result(state, void, (time.monotonic() - started) * 1000)
        if replay_path is not None and void is None:
            replay.write(replay_path, replay.build(self, state, result))
            result.replay_path = str(replay_path)
        return result

    def _start(self, ctx: zmq.Context, tmp: Path) -> None:
        for seat in self.seats:
            if seat.spec.transport == "stdio":
                seat.channel = StdioChannel(self.limits.max_message_bytes)
            else:
                path = str(tmp / f"seat{seat.index}.sock")
                seat.channel = ZmqChannel(ctx, path, self.limits.max_message_bytes)
                for handle in seat.channel.handles:
                    self.poller.register(handle, zmq.POLLIN)
        for seat in self.seats:
            self._launch(seat, tmp)

    def _launch(self, seat: _Seat, tmp: Path) -> None:
        channel = seat.channel
        assert channel is not None
        env = sandbox.bot_environment(
            {
                **channel.env(),
                "ARENA_TOKEN": seat.token,
                "ARENA_BOT_NAME": seat.spec.name,
                "ARENA_SEAT": str(seat.index),
            }
        )
        try:
            seat.proc = sandbox.launch(
                seat.spec.argv(),
                cwd=seat.spec.cwd,
                env=env,
                log_path=tmp / f"seat{seat.index}.log",
                limits=self._limits_of(seat),
                socket_path=Path(channel.endpoint[6:]) if isinstance(channel, ZmqChannel) else None,
                stdio=isinstance(channel, StdioChannel),
                level=self.sandbox_level,
            )
        except sandbox.SandboxError as exc:  # the level is not available on this machine
            raise sandbox.HostError(str(exc)) from None
        except OSError as exc:  # the bot's own program does not exist or is not a program
            seat.alive = False
            self._fault(seat, "crashed", f"could not start: {exc}")
            return
        if isinstance(channel, StdioChannel):
            assert seat.proc.stdin is not None and seat.proc.stdout is not None
            channel.attach(seat.proc.stdin, seat.proc.stdout)
            self.poller.register(seat.proc.stdout, zmq.POLLIN)
        self.poller.register(seat.proc.pidfd, zmq.POLLIN)
        seat.watched = True

    def _limits_of(self, seat: _Seat) -> sandbox.SandboxLimits:
        return seat.spec.limits or self.sandbox_limits

    def _handshake(self) -> None:
        deadline = time.monotonic() + (self.limits.init_ms + self.limits.grace_ms) / 1000
        while any(s.playing and not s.greeted for s in self.seats):
            if time.monotonic() >= deadline:
                for seat in self.seats:
                    if seat.playing and not seat.greeted:
                        self._fault(seat, "timeout", no_hello(seat.spec, self.limits.init_ms))
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
                elif seat.answer is not None:
                    answers[seat.index], seat.answer = seat.answer, None
                elif not seat.playing:
                    answers[seat.index] = (self._substitute(seat, decision), "substitute", 0.0)
                elif seat.ask is None:
                    self._send_turn(state, seat, decision)
            if len(answers) == len(pending):
                return answers
            self._expire_deadlines()
            deadlines = [s.ask.deadline for s in self.seats if s.playing and s.ask is not None]
            if deadlines:
                self._wait(min(deadlines))

    def _expire_deadlines(self) -> None:
        """Fault every seat whose answer is past its deadline (see the module's clock ruling)."""
        now = time.monotonic()
        for seat in self.seats:
            ask = seat.ask
            if not seat.playing or ask is None or now < ask.deadline:
                continue
            if ask.bank_full:
                code, why = "timeout", f"no answer within {self.limits.move_ms} ms + bank"
            else:
                code, why = "bank_exhausted", f"time bank of {self.limits.bank_ms} ms used up"
            seat.bank_ms = 0.0
            self._fault(seat, code, f"{why} (decision {ask.decision.kind})")

    def _substitute(self, seat: _Seat, decision: Decision) -> int:
        return seat.rng.randrange(len(decision.options))

    def _send_turn(self, state: State, seat: _Seat, decision: Decision) -> None:
        seq = seat.last_seq + 1
        events, seat.cursor = state.events_since(seat.index, seat.cursor)
        clock = {"move_ms": self.limits.move_ms, "bank_ms": int(seat.bank_ms)}
        msg = messages.turn(
            seq,
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
        seat.ask = _Ask(seq, decision, now, now + budget / 1000, full)
        seat.last_seq = seq
        self._send(seat, msg)

    def _finish(self, state: State) -> None:
        self.finished = True
        outcome = state.outcome().as_dict()
        for seat in self.seats:
            if seat.playing and seat.greeted:
                events, seat.cursor = state.events_since(seat.index, seat.cursor)
                msg = messages.game_over(outcome, seat.status, state.view(seat.index), events)
                self._send(seat, msg)
        # Give bots a moment to read game_over and leave on their own; the rest are killed.
        deadline = time.monotonic() + GAME_OVER_S
        while time.monotonic() < deadline and any(s.watched for s in self.seats):
            self._wait(min(deadline, time.monotonic() + 0.02))

    # -- events from bots --------------------------------------------------------------------

    def _wait(self, until: float) -> None:
        """Poll every channel and pidfd until ``until`` or the first activity; handle it all."""
        for seat in self.seats:
            self._watch_output(seat)
        timeout = max(0.0, (until - time.monotonic()) * 1000)
        ready = dict(self.poller.poll(timeout))
        if not ready:
            return
        for seat in self.seats:
            if seat.channel is not None and any(h in ready for h in self._handles(seat)):
                for item in seat.channel.receive(ready):
                    self._on_message(seat, item)
                if isinstance(seat.channel, ZmqChannel) and seat.channel.reconnected:
                    self._on_oversized(seat)
        for seat in self.seats:
            if seat.watched and seat.proc is not None and seat.proc.pidfd in ready:
                self._on_exit(seat)

    def _handles(self, seat: _Seat) -> list[Any]:
        channel = seat.channel
        assert channel is not None
        if isinstance(channel, StdioChannel):
            return [h for h in (*channel.handles, channel.writing) if h is not None]
        return channel.handles

    def _watch_output(self, seat: _Seat) -> None:
        """Poll a stdio bot's stdin for room while output waits, and its stdout until EOF."""
        channel = seat.channel
        if not isinstance(channel, StdioChannel) or channel.stdin is None:
            return
        if channel.writing is not None:
            self.poller.register(channel.stdin, zmq.POLLOUT)
        elif channel.stdin in self.poller:
            self.poller.unregister(channel.stdin)
        if channel.closed and channel.stdout in self.poller:
            self.poller.unregister(channel.stdout)

    def _on_message(self, seat: _Seat, item: Inbound) -> None:
        received = time.monotonic()
        if not seat.playing:
            return
        if item.foreign:
            self._warn(seat, "unexpected", "message from a second connection", item.excerpt)
            return
        if item.error is not None:
            self._fault(seat, item.error.code, item.error.message, item.excerpt)
            return
        msg = item.msg
        assert msg is not None
        kind = msg["type"]
        if kind == "hello":
            self._on_hello(seat, msg, item.excerpt)
        elif not seat.greeted:
            self._warn(seat, "unexpected", f"{kind} before hello", item.excerpt)
        elif kind == "error":
            why = f"bot gave up: {printable(msg['code'], 80)}"
            self._fault(seat, RESIGNED, why, item.excerpt, notify=False)
        else:
            self._on_action(seat, msg, received, item.excerpt)

    def _on_hello(self, seat: _Seat, msg: dict[str, Any], excerpt: str) -> None:
        if seat.greeted:
            self._warn(seat, "unexpected", "second hello", excerpt)
            return
        if not secrets.compare_digest(msg["token"], seat.token):
            self._fault(seat, "bad_token", "hello carries a wrong token", excerpt)
        elif codec.PROTOCOL_VERSION not in msg["versions"]:
            supported = codec.PROTOCOL_VERSION
            why = f"bot speaks {msg['versions']}, referee {supported}"
            self._fault(seat, "version_mismatch", why, excerpt)
        else:
            seat.greeted = True
            game = game_info(self.game, self.options)
            limits = self.limits.as_dict()
            welcome = messages.welcome(self.match_id, seat.index, len(self.seats), game, limits)
            self._send(seat, welcome)

    def _on_action(self, seat: _Seat, msg: dict[str, Any], received: float, excerpt: str) -> None:
        ask = seat.ask
        if ask is None or msg["seq"] != ask.seq:
            stale = msg["seq"] <= seat.last_seq
            code = "stale_seq" if stale else "unexpected"
            why = f"action for seq {msg['seq']} is not awaited"
            self._warn(seat, code, why, excerpt, seq=msg["seq"])
            return
        elapsed = (received - ask.sent_at) * 1000
        seat.ask = None
        seat.time_ms += elapsed
        seat.max_ms = max(seat.max_ms, elapsed)
        over = elapsed - self.limits.move_ms
        if over > 0:
            seat.bank_ms = max(0.0, seat.bank_ms - over)
            why = (
                f"answered in {elapsed:.0f} ms, over move_ms {self.limits.move_ms}; "
                f"{seat.bank_ms:.0f} ms of bank left"
            )
            self._note(seat, "slow", why, excerpt, fatal=False, seq=ask.seq, kind=ask.decision.kind)
        choice = msg["choice"]
        options = ask.decision.options
        if not 0 <= choice < len(options):
            shown = excerpt_options(options)
            n = len(options)
            why = f"choice {choice} for kind {ask.decision.kind!r}: options 0..{n - 1} were {shown}"
            self._fault(seat, "illegal_action", why, excerpt, ask=ask)
            return
        seat.decisions += 1
        seat.answer = (choice, "bot", elapsed)

    def _drain(self, seat: _Seat) -> None:
        """Take every message a bot left behind, waiting only for the end of a half line."""
        channel = seat.channel
        assert channel is not None
        deadline = time.monotonic() + EOF_GRACE_S
        for _ in range(DRAIN_ROUNDS):
            items = channel.receive(dict.fromkeys(channel.handles, zmq.POLLIN))
            for item in items:
                self._on_message(seat, item)
            if not items and not self._awaits_eof(channel, deadline):
                return

    @staticmethod
    def _awaits_eof(channel: StdioChannel | ZmqChannel, deadline: float) -> bool:
        """Wait (bounded) for the end of a dead stdio bot's output if it left half a line.

        The pidfd can fire while a process of the bot's sandbox (bwrap's init) still holds the
        pipe, so the end of file that makes the half line ``malformed`` may come a moment later.
        """
        if not isinstance(channel, StdioChannel) or channel.closed or not channel.inbox:
            return False
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        readable, _, hung_up = zmq.select(channel.handles, [], channel.handles, remaining)
        return bool(readable or hung_up)  # a pipe at end of file reports POLLHUP only

    def _on_oversized(self, seat: _Seat) -> None:
        """libzmq dropped the bot's connection for a frame over the limit, and it came back."""
        assert isinstance(seat.channel, ZmqChannel)
        seat.channel.dropped = seat.channel.reconnected = False
        if seat.playing and not self.finished:
            limit = self.limits.max_message_bytes
            self._fault(seat, "too_large", f"a message over {limit} bytes (connection dropped)")

    def _on_exit(self, seat: _Seat) -> None:
        assert seat.proc is not None
        self._drain(seat)  # what it said before it went counts (and is ruled) first
        seat.exit_code = seat.proc.poll()
        self._stop(seat)
        if seat.playing and not self.finished:
            code, why = exit_fault(seat.exit_code, seat.usage.oom_killed)
            seat.alive = False
            self._fault(seat, code, why)
        seat.alive = False

    # -- faults ------------------------------------------------------------------------------

    def _fault(
        self,
        seat: _Seat,
        code: str,
        detail: str,
        excerpt: str = "",
        notify: bool = True,
        ask: _Ask | None = None,
    ) -> None:
        """Rule on a fault by the policy: forfeit the seat, or substitute this answer."""
        if seat.status != OK:
            return
        ask = ask or seat.ask
        seq, kind = (ask.seq, ask.decision.kind) if ask is not None else (None, None)
        substitute = seat.greeted and self.policy.action(code) != FORFEIT
        if substitute:
            seat.strikes += 1
            if seat.strikes > self.policy.max_strikes:
                substitute = False
                detail += f" (strike {seat.strikes}, over the limit of {self.policy.max_strikes})"
        self._note(seat, code, detail, excerpt, fatal=not substitute, seq=seq, kind=kind)
        if substitute:
            if ask is not None and seat.answer is None:
                seat.answer = (self._substitute(seat, ask.decision), "substitute", 0.0)
            seat.ask = None
            if seat.alive:
                self._send(seat, messages.error(code, detail, fatal=False))
            return
        seat.status, seat.detail = code, detail
        seat.ask = None
        seat.answer = None
        if notify:
            self._send(seat, messages.error(code, detail, fatal=True))
        self._stop(seat)

    def _warn(
        self, seat: _Seat, code: str, detail: str, excerpt: str, seq: int | None = None
    ) -> None:
        self._note(seat, code, detail, excerpt, fatal=False, seq=seq)
        self._send(seat, messages.error(code, detail, fatal=False))

    def _note(
        self,
        seat: _Seat,
        code: str,
        detail: str,
        excerpt: str,
        fatal: bool,
        seq: int | None = None,
        kind: str | None = None,
    ) -> None:
        """Record an incident for the seat's report (the first ones in full, then counted)."""
        if not fatal:
            seat.warnings[code] += 1
        if len(seat.incidents) < MAX_INCIDENTS or fatal:
            incident = {"code": code, "detail": detail, "fatal": fatal, "seq": seq, "kind": kind}
            seat.incidents.append({**incident, "message": excerpt})

    def _send(self, seat: _Seat, msg: dict[str, Any]) -> None:
        if seat.channel is not None and seat.alive:
            seat.channel.send(msg)

    def _stop(self, seat: _Seat) -> None:
        """Kill every process of the seat's bot (once) and keep what it used."""
        proc = seat.proc
        if proc is None or proc.pidfd < 0:
            return
        for fd in (proc.pidfd, proc.stdout, proc.stdin):
            if fd is not None and fd in self.poller:
                self.poller.unregister(fd)
        seat.watched = False
        proc.kill()
        seat.usage = proc.usage()
        if seat.exit_code is None:
            seat.exit_code = proc.poll()

    # -- the result --------------------------------------------------------------------------

    def _result(self, state: State, void: str | None, duration_ms: float) -> MatchResult:
        seats = self.seats
        outcome = state.outcome().as_dict() if void is None else {}
        scores = outcome.get("scores", [0.0] * len(seats))
        game_ranks = outcome.get("ranks", [0] * len(seats))
        keys = [(s.status != OK, 0 if s.status != OK else game_ranks[s.index]) for s in seats]
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
                log_tail=s.proc.log_tail(self._limits_of(s).output_kb << 10) if s.proc else "",
                transport=s.spec.transport,
                sandbox=s.proc.level if s.proc is not None else "",
                signal=signal_name(s.exit_code),
                cpu_ms=s.usage.cpu_ms,
                peak_memory_kb=s.usage.peak_memory_kb,
                strikes=s.strikes,
                incidents=s.incidents,
            )
            for s in seats
        ]
        levels = sorted({r.sandbox for r in results if r.sandbox})
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
            sandbox="+".join(levels) or "none",
            void=void,
        )


def excerpt_options(options: Sequence[dict[str, Any]], limit: int = 200) -> str:
    text = json.dumps(list(options), separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def game_info(game: Game, options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``game`` field of ``welcome``: id, version, options and the game's public data."""
    return {
        "id": game.id,
        "version": game.version,
        "options": dict(options),
        "data": game.public_data(options),
    }


def no_hello(spec: BotSpec, init_ms: int) -> str:
    """Why a bot timed out before its first message; a stdio bot's usual cause is named."""
    why = f"no hello within {init_ms} ms (init_ms)"
    if spec.transport == "stdio":
        why += "; a stdio bot must flush stdout after each line (a pipe is block-buffered)"
    return why


def play_match(
    game: Game,
    bots: Sequence[BotSpec],
    seed: int,
    options: Mapping[str, Any] | None = None,
    limits: Limits | None = None,
    replay_path: Path | None = None,
    match_id: str | None = None,
    **settings: Any,
) -> MatchResult:
    """Play one match between bot processes; the result, and a replay file if a path is given.

    ``settings`` go to :class:`Referee`: ``ask_forced``, ``policy``, ``sandbox_limits``,
    ``sandbox_level``, ``position`` (a full position to start from; its options are the match's).
    """
    referee = Referee(game, bots, seed, options, limits, match_id, **settings)
    return referee.run(replay_path)
