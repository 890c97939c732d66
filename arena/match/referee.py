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
* ``stale_seq`` and ``unexpected`` messages are discarded and counted; more than
  ``NOISE_LIMIT`` of them in a match is a ``flood``;
* every seat pays for what it sends: more than ``MESSAGES_PER_TURN`` messages or
  ``BYTES_PER_TURN`` times ``max_message_bytes`` bytes between two of its turns is a ``flood``,
  ruled before the excess is even decoded; a stdio bot that leaves more than the outbox holds
  unread on its stdin is a ``flood`` too; more than ``channels.MAX_CONNECTIONS`` connections to
  its socket is ``too_many_connections`` (its socket is closed at once, also after the game);
* an answer is stamped when it is read; one read after its deadline is not accepted, and
  deadlines are checked between messages, not only between wakes. Each wake reads at most
  ``channels.WAKE_MESSAGES`` messages or one message's worth of bytes per seat, and handles
  what was read in the order it was read, so a flood on one seat cannot make another late;
* ``match_ms`` caps the whole match's wall-clock time: when it is reached, every seat being
  waited on at that moment (for its hello or an answer) is ruled ``match_timeout`` (a forfeit);
  the other seats play the game out on their own clocks and the result stands: a bot cannot
  void a match, nor hold it open, by stalling it;
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

import json
import random
import resource
import secrets
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq

from arena import sandbox
from arena.games.base import Decision, Game, State, competition_ranks
from arena.games.rng import KeyedRandom
from arena.match import replay
from arena.match.bots import BotSpec
from arena.match.channels import (
    EXCERPT_CHARS,
    MAX_CONNECTIONS,
    OUTBOX_BYTES,
    Frame,
    Inbound,
    StdioChannel,
    ZmqChannel,
    excerpt,
    printable,
)
from arena.match.faults import FORFEIT, FaultPolicy, exit_fault, signal_name
from arena.match.pool import BotPool, Kept
from arena.match.results import OK, Limits, MatchResult, SeatResult, VoidKind
from protocol import codec, messages

RESIGNED = "resigned"
MAX_INCIDENTS = 50  # per seat; later ones are only counted in ``warnings``
GAME_OVER_S = 0.5  # how long bots may take to leave after game_over before they are killed
DRAIN_ROUNDS = 64  # reads taken from a channel when its bot has exited
EOF_GRACE_S = 0.5  # how long a dead stdio bot's unfinished line may wait for its pipe to close
MESSAGES_PER_TURN = 32  # messages a seat may send between two of its turns (an honest bot: 1)
BYTES_PER_TURN = 2  # times max_message_bytes a seat may send between two of its turns
NOISE_LIMIT = 64  # stale_seq and unexpected messages per seat and match before a flood fault


def new_match_id() -> str:
    """A fresh random id for a match that was not given one. Never derived from the seed: a bot
    sees the id, and a digest of a guessable seed would tell it which seed deals its cards."""
    return secrets.token_hex(8)


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
        self.rng = rng  # substitute choices: the others see them, so never an MT of the seed
        self.token = secrets.token_hex(16)
        self.proc: sandbox.BotProcess | None = None
        self.watched = False  # its pidfd is in the poller
        self.greeted = False
        self.offers_reuse = False  # its hello said it can play more matches (hello.reuse)
        self.reused = False  # a kept process from an earlier match (arena.match.pool)
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
        self.sent_messages = 0  # since its last turn (the charge, see MESSAGES_PER_TURN)
        self.sent_bytes = 0
        self.noise = 0  # stale_seq and unexpected messages over the match
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
        pool: BotPool | None = None,
        lane: int = 0,
    ) -> None:
        self.game = game
        self.pool = pool  # keeps reusable bots' processes between matches
        self.lane = lane  # the seat rotation: a kept process plays only its own lane
        self.bots = list(bots)
        self.seed = seed
        self.position = position  # a full position to start from (Game.load) instead of a deal
        self.options = game.resolve_options(options, len(self.bots))
        self.limits = limits or Limits()
        self.match_id = match_id or new_match_id()
        self.ask_forced = ask_forced
        self.policy = policy or FaultPolicy()
        self.sandbox_limits = sandbox_limits or sandbox.SandboxLimits()
        self.sandbox_level = sandbox_level
        self.finished = False
        self.ends_at = float("inf")  # the wall-clock cap, set when the match starts
        self.records: list[dict[str, Any]] = []
        self.poller = zmq.Poller()
        self.seats = [
            _Seat(i, spec, self.limits.bank_ms, KeyedRandom(f"{seed}/substitute/{i}"))
            for i, spec in enumerate(self.bots)
        ]

    # -- the match ---------------------------------------------------------------------------

    def run(self, replay_path: Path | None = None) -> MatchResult:
        started = time.monotonic()
        raise_open_files_limit()
        self.ends_at = started + self.limits.match_ms / 1000
        if self.position is None:
            state = self.game.new(len(self.bots), self.seed, self.options)
        else:
            state = self.game.load(self.position)
        void = None
        with sandbox.match_directory() as tmp:
            ctx = self.pool.ctx if self.pool is not None else zmq.Context()
            try:
                self._start(ctx, Path(tmp))
                self._handshake()
                self._play(state)
                self._finish(state)
            except sandbox.HostError as exc:  # this machine failed to start a bot
                void = VoidKind.HOST.reason(str(exc))
            except Exception as exc:  # a fault of the referee or engine voids the match
                void = VoidKind.INTERNAL.reason(f"{type(exc).__name__}: {exc}")
            finally:
                for seat in self.seats:
                    if void is None and self._keep(seat):
                        continue
                    self._stop(seat)
                    if seat.channel is not None:
                        seat.channel.close()
                if self.pool is None:
                    ctx.term()
            result = self._result(state, void, (time.monotonic() - started) * 1000)
        if replay_path is not None and void is None:
            replay.write(replay_path, replay.build(self, state, result))
            result.replay_path = str(replay_path)
        return result

    def _start(self, ctx: zmq.Context, tmp: Path) -> None:
        for seat in self.seats:
            kept = self.pool.take(self._pool_key(seat)) if self._may_keep(seat) else None
            if kept is not None:
                seat.channel, seat.proc, seat.token = kept.channel, kept.proc, kept.token
                seat.reused = seat.offers_reuse = True
            elif seat.spec.transport == "stdio":
                seat.channel = StdioChannel(self.limits.max_message_bytes)
            else:
                path = tmp / f"seat{seat.index}.sock"
                if self.pool is not None and self._may_keep(seat):
                    path = self.pool.place(".sock")  # unique over the pool's lifetime
                seat.channel = ZmqChannel(ctx, str(path), self.limits.max_message_bytes)
            for handle in seat.channel.handles:
                if isinstance(seat.channel, ZmqChannel):
                    self.poller.register(handle, zmq.POLLIN)
        for seat in self.seats:
            if seat.reused:
                assert seat.proc is not None
                self.poller.register(seat.proc.pidfd, zmq.POLLIN)
                seat.watched = True
                self._welcome(seat)  # it said hello in its first match
            else:
                self._launch(seat, tmp)

    def _may_keep(self, seat: _Seat) -> bool:
        """Reuse is possible for this seat: a pool, a ZeroMQ bot the organiser lets be kept."""
        return self.pool is not None and seat.spec.reuse and seat.spec.transport == "zmq"

    def _pool_key(self, seat: _Seat) -> tuple[Any, ...]:
        limits, size = self._limits_of(seat), self.limits.max_message_bytes
        return (seat.spec, self.lane, self.sandbox_level, limits, size)

    def _keep(self, seat: _Seat) -> bool:
        """Give the seat's process to the pool if it may play another match: it offered, it
        was told so in its welcome and its match ended without a single incident."""
        clean = seat.status == OK and seat.alive and not seat.incidents and seat.greeted
        if not (clean and seat.offers_reuse and self._may_keep(seat) and self.finished):
            return False
        assert self.pool is not None and seat.proc is not None
        assert isinstance(seat.channel, ZmqChannel)
        self.pool.give(self._pool_key(seat), Kept(seat.proc, seat.channel, seat.token))
        return True

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
                log_path=self._log_path(seat, tmp),
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

    def _log_path(self, seat: _Seat, tmp: Path) -> Path:
        """Beside the socket in the pool's folder when the process may be kept (it outlives
        the match's folder), else in the match's folder."""
        channel = seat.channel
        if self._may_keep(seat) and isinstance(channel, ZmqChannel):
            return Path(channel.endpoint.removeprefix("ipc://")).with_suffix(".log")
        return tmp / f"seat{seat.index}.log"

    def _limits_of(self, seat: _Seat) -> sandbox.SandboxLimits:
        return seat.spec.limits or self.sandbox_limits

    def _handshake(self) -> None:
        deadline = time.monotonic() + (self.limits.init_ms + self.limits.grace_ms) / 1000
        while any(s.playing and not s.greeted for s in self.seats):
            if self._over_time():
                break
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
            if self._over_time():
                continue
            self._expire_deadlines()
            deadlines = [s.ask.deadline for s in self.seats if s.playing and s.ask is not None]
            if deadlines:
                self._wait(min(deadlines))

    def _expire_deadlines(self, now: float | None = None) -> None:
        """Fault every seat whose answer is past its deadline at ``now`` (the clock ruling)."""
        now = time.monotonic() if now is None else now
        for seat in self.seats:
            ask = seat.ask
            if seat.playing and ask is not None and now >= ask.deadline:
                self._late(seat, ask)

    def _late(self, seat: _Seat, ask: _Ask) -> None:
        if ask.bank_full:
            code, why = "timeout", f"no answer within {self.limits.move_ms} ms + bank"
        else:
            code, why = "bank_exhausted", f"time bank of {self.limits.bank_ms} ms used up"
        seat.bank_ms = 0.0
        self._fault(seat, code, f"{why} (decision {ask.decision.kind})")

    def _over_time(self) -> bool:
        """Past the match's wall-clock cap: rule every seat being waited on, once. The others
        play on, each on its own clock (which bounds the rest of the game)."""
        if time.monotonic() < self.ends_at:
            return False
        self.ends_at = float("inf")
        for seat in self.seats:
            if seat.playing and (seat.ask is not None or not seat.greeted):
                why = f"the match reached its wall-clock cap of {self.limits.match_ms} ms"
                self._fault(seat, "match_timeout", why + " while waiting for this seat")
        return True

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
        seat.sent_messages = seat.sent_bytes = 0
        self._send(seat, msg)

    def _finish(self, state: State) -> None:
        self.finished = True
        self.ends_at = float("inf")  # the wall-clock cap has nobody left to rule
        outcome = state.outcome().as_dict()
        for seat in self.seats:
            if seat.playing and seat.greeted:
                events, seat.cursor = state.events_since(seat.index, seat.cursor)
                msg = messages.game_over(outcome, seat.status, state.view(seat.index), events)
                self._send(seat, msg)
        # Give bots a moment to read game_over and leave on their own; the rest are killed.
        # A bot told it is kept stays: it waits for the next welcome.
        leaving = [s for s in self.seats if not (s.offers_reuse and self._may_keep(s))]
        deadline = time.monotonic() + GAME_OVER_S
        while time.monotonic() < deadline and any(s.watched for s in leaving):
            self._wait(min(deadline, time.monotonic() + 0.02))

    # -- events from bots --------------------------------------------------------------------

    def _wait(self, until: float) -> None:
        """Poll every channel and pidfd until ``until`` or the first activity; handle it all."""
        for seat in self.seats:
            self._watch_output(seat)
        pending = any(s.channel is not None and s.channel.pending for s in self.seats)
        until = min(until, self.ends_at)
        timeout = 0.0 if pending else max(0.0, (until - time.monotonic()) * 1000)
        ready = dict(self.poller.poll(timeout))
        read: list[tuple[float, int, Frame]] = []
        for seat in self.seats:
            channel = seat.channel
            if channel is not None and (channel.pending or self._ready(seat, ready)):
                read += [(f.received, seat.index, f) for f in channel.receive(ready)]
        # What was read is handled in the order it was read, with the clock checked between.
        for received, index, frame in sorted(read, key=lambda r: r[:2]):
            self._expire_deadlines(received)
            self._on_frame(self.seats[index], frame)
        for seat in self.seats:
            self._check_channel(seat)
        for seat in self.seats:
            if seat.watched and seat.proc is not None and seat.proc.pidfd in ready:
                self._on_exit(seat)

    def _ready(self, seat: _Seat, ready: dict[Any, int]) -> bool:
        return any(h in ready for h in self._handles(seat))

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

    def _on_frame(self, seat: _Seat, frame: Frame) -> None:
        """Charge the seat for the message, then decode it and act on it."""
        if not seat.playing or not self._charge(seat, frame):
            return
        assert seat.channel is not None
        item = seat.channel.check(frame)
        if frame.foreign:
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
            self._on_action(seat, msg, frame.received, item)

    def _charge(self, seat: _Seat, frame: Frame) -> bool:
        """Count what the seat sent since its last turn; past the allowance it is a flood."""
        seat.sent_messages += 1
        seat.sent_bytes += len(frame.data)
        allowed = BYTES_PER_TURN * self.limits.max_message_bytes
        if seat.sent_messages > MESSAGES_PER_TURN:
            why = f"more than {MESSAGES_PER_TURN} messages since its last turn"
        elif seat.sent_bytes > allowed:
            why = f"more than {allowed} bytes of messages since its last turn"
        else:
            return True
        self._fault(seat, "flood", why, excerpt(frame.data[:EXCERPT_CHARS]))
        return False

    def _on_hello(self, seat: _Seat, msg: dict[str, Any], excerpt: str) -> None:
        if seat.greeted:
            self._warn(seat, "unexpected", "second hello", excerpt)
            return
        # As bytes: compare_digest refuses a str with non-ASCII characters.
        token = msg["token"].encode("utf-8", "surrogatepass")
        if not secrets.compare_digest(token, seat.token.encode()):
            self._fault(seat, "bad_token", "hello carries a wrong token", excerpt)
        elif codec.PROTOCOL_VERSION not in msg["versions"]:
            supported = codec.PROTOCOL_VERSION
            why = f"bot speaks {msg['versions']}, referee {supported}"
            self._fault(seat, "version_mismatch", why, excerpt)
        else:
            seat.offers_reuse = msg.get("reuse") is True
            self._welcome(seat)

    def _welcome(self, seat: _Seat) -> None:
        """Start the seat's match: ``welcome``, saying whether its process will be kept."""
        seat.greeted = True
        game = game_info(self.game, self.options)
        reuse = seat.offers_reuse and self._may_keep(seat)
        n = len(self.seats)
        msg = messages.welcome(self.match_id, seat.index, n, game, self.limits.as_dict(), reuse)
        self._send(seat, msg)

    def _on_action(self, seat: _Seat, msg: dict[str, Any], received: float, item: Inbound) -> None:
        ask = seat.ask
        if ask is None or msg["seq"] != ask.seq:
            stale = msg["seq"] <= seat.last_seq
            code = "stale_seq" if stale else "unexpected"
            why = f"action for seq {msg['seq']} is not awaited"
            self._warn(seat, code, why, item.excerpt, seq=msg["seq"])
            return
        if received >= ask.deadline:  # read after the deadline: never accepted
            self._late(seat, ask)
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
            kind = ask.decision.kind
            self._note(seat, "slow", why, item.excerpt, fatal=False, seq=ask.seq, kind=kind)
        choice = msg["choice"]
        options = ask.decision.options
        if not 0 <= choice < len(options):
            shown = excerpt_options(options)
            n = len(options)
            why = f"choice {choice} for kind {ask.decision.kind!r}: options 0..{n - 1} were {shown}"
            self._fault(seat, "illegal_action", why, item.excerpt, ask=ask)
            return
        seat.decisions += 1
        seat.answer = (choice, "bot", elapsed)

    def _drain(self, seat: _Seat) -> None:
        """Take every message a bot left behind, waiting only for the end of a half line."""
        channel = seat.channel
        assert channel is not None
        deadline = time.monotonic() + EOF_GRACE_S
        for _ in range(DRAIN_ROUNDS):
            frames = channel.receive(dict.fromkeys(channel.handles, zmq.POLLIN))
            for frame in frames:
                self._on_frame(seat, frame)
            if not frames and not self._awaits_eof(channel, deadline):
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

    def _check_channel(self, seat: _Seat) -> None:
        """Rule on what a channel saw besides messages: connections, an unread outbox."""
        channel = seat.channel
        if isinstance(channel, ZmqChannel):
            if channel.overrun:
                if seat.playing and not self.finished:
                    why = f"opened more than {MAX_CONNECTIONS} connections to its socket"
                    self._fault(seat, "too_many_connections", why)
                self._stop(seat)  # closes the socket and every connection, also after the game
            elif channel.oversized:
                self._on_oversized(seat, channel)
        elif isinstance(channel, StdioChannel) and channel.overflowed and seat.playing:
            why = f"left over {OUTBOX_BYTES} bytes of referee messages unread on its stdin"
            self._fault(seat, "flood", why)

    def _on_oversized(self, seat: _Seat, channel: ZmqChannel) -> None:
        """libzmq dropped the bot's connection for a frame over the limit, and it came back."""
        channel.dropped = channel.reconnected = False
        if seat.playing and not self.finished:
            limit = self.limits.max_message_bytes
            why = f"a message over {limit} bytes (its connection was dropped and it reconnected)"
            self._fault(seat, "too_large", why)

    def _on_exit(self, seat: _Seat) -> None:
        assert seat.proc is not None
        self._drain(seat)  # what it said before it went counts (and is ruled) first
        seat.exit_code = seat.proc.poll()
        self._stop(seat)
        if seat.playing and not self.finished:
            when = "during the match" if seat.greeted else "before its hello"
            code, why = exit_fault(seat.exit_code, seat.usage.oom_killed, when)
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
        seat.noise += 1
        if seat.noise > NOISE_LIMIT:
            why = f"more than {NOISE_LIMIT} stale or unexpected messages in the match"
            self._fault(seat, "flood", why, excerpt)
            return
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
        """Kill every process of the seat's bot (once) and keep what it used; close its socket,
        which frees every connection it made."""
        channel = seat.channel
        if isinstance(channel, ZmqChannel) and not channel.closed:
            for handle in channel.handles:
                self.poller.unregister(handle)
            channel.close()
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


def raise_open_files_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit; return the limit.

    Every connection a bot makes to its socket holds a descriptor of the referee until the seat
    is ruled and its socket closed, and libzmq aborts the whole process when it cannot accept
    one, so the referee keeps as much room as the machine gives it (``MAX_CONNECTIONS`` is the
    real bound; this is the margin for a burst accepted before the referee could react).
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else _nr_open()
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):  # a hard limit of infinity above the kernel's nr_open
            return soft
        return target
    return soft


def _nr_open() -> int:
    try:
        return int(Path("/proc/sys/fs/nr_open").read_text())
    except (OSError, ValueError):
        return 1 << 20


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
