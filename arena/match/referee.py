"""The referee: plays one match between bot processes, asking, collecting and acting.

It owns the authoritative game state and follows the protocol (``protocol/PROTOCOL.md``): each
seat's bot says ``hello`` with the token it was given and is sent ``welcome``; then, decision by
decision, the seats the game waits on are sent a ``turn`` and their answers collected; every
answer is applied; at the end each seat is sent ``game_over``. The parts it is made of:

* ``connection``: each seat's channel and process (launched, or kept from an earlier match),
  watched in one ``connection.Poller`` so a crash is seen the moment it happens;
* ``clock``: deadlines, time banks and the match's wall-clock cap, on moments passed in;
* ``rulings``: what a seat is charged for what it sends and what each fault leads to (forfeit,
  substitute, warning), by the match's :class:`~arena.match.faults.FaultPolicy`;
* ``replay``: the match record written as a replay; ``results``: the result;
* ``heap``: the process's heap left out of the garbage collector's passes while the game is
  played (a full pass walks all of it), and a full pass of its own now and then between games.

How it reads and rules, beyond what the parts say:

* an answer is stamped when it is read; deadlines are checked between messages, not only between
  wakes. Each wake reads at most ``channels.WAKE_MESSAGES`` messages or one message's worth of
  bytes per seat, and handles what was read in the order it was read, so a flood on one seat
  cannot make another late;
* when the match's wall-clock cap is reached, every seat being waited on at that moment (for its
  hello or an answer) is ruled ``match_timeout`` (a forfeit); the other seats play the game out
  on their own clocks and the result stands: a bot cannot void a match, nor hold it open, by
  stalling it;
* a forfeited seat is ranked below every seat without a fault (all forfeited seats share the
  lowest rank) and the game goes on with seeded random legal choices in its place;
* an answer's ``info`` (the bot's note on its choice) is kept with its decision in the replay,
  made printable and cut to ``INFO_CHARS``, up to ``INFO_CHARS_PER_SEAT`` a seat;
* a decision with a single option is applied without asking (``ask_forced`` turns this off);
* answers to a simultaneous choice are applied in seat order once all are in, so the replay
  does not depend on which bot answered first;
* an exception inside the referee or the engine voids the match (``internal:``), and a bot this
  machine could not start (``sandbox.HostError``) voids it with a ``host:`` reason: neither is
  ever counted against a bot.

Every seat's record (:class:`SeatResult`) keeps what a bot author or an organiser needs to see:
status and fault, exit code or signal, wall and CPU time, bank left, strikes, peak memory, the
sandbox level, the sanitised tail of its stderr, and every incident with the message that
caused it.
"""

from __future__ import annotations

import functools
import json
import math
import random
import secrets
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import zmq

from arena import sandbox
from arena.games.base import Decision, Game, State, competition_ranks
from arena.games.rng import KeyedRandom
from arena.match import heap, replay, views
from arena.match.bots import BotSpec
from arena.match.channels import EXCERPT_CHARS, Frame, Inbound, Trouble, excerpt, printable
from arena.match.clock import Ask, MatchClock, SeatClock, Spent, Verdict, Window
from arena.match.connection import Connection, Poller, Seating
from arena.match.faults import FaultPolicy, exit_fault, signal_name
from arena.match.pool import BotPool
from arena.match.results import OK, Limits, MatchResult, SeatResult, VoidKind
from arena.match.rulings import RESIGNED, Forfeit, Ledger, Ruling, Rulings, Substitute
from arena.match.sched import Latency
from arena.sandbox.descriptors import raise_open_files_limit
from protocol import codec, messages

GAME_OVER_S = 0.5  # how long bots may take to leave after game_over before they are killed

Answer = tuple[int, str, float, str]  # choice, by (bot, auto, substitute), thinking ms, info
INFO_CHARS = messages.MAX_INFO_LEN  # of one answer's ``info`` kept in the replay
INFO_CHARS_PER_SEAT = 64 * INFO_CHARS  # of all its answers' ``info``: a replay stays small


def new_match_id() -> str:
    """A fresh random id for a match that was not given one. Never derived from the seed: a bot
    sees the id, and a digest of a guessable seed would tell it which seed deals its cards."""
    return secrets.token_hex(8)


class _Seat:
    """The referee's side of one bot: its connection, clock, ledger and place in the game."""

    def __init__(self, index: int, spec: BotSpec, limits: Limits, rng: random.Random) -> None:
        self.index = index
        self.spec = spec
        self.rng = rng  # substitute choices: the others see them, so never an MT of the seed
        self.conn: Connection | None = None
        self.clock = SeatClock(limits)
        self.ledger = Ledger()
        self.greeted = False
        self.offers_reuse = False  # its hello said it can play more matches (hello.reuse)
        self.alive = True  # its process runs (or is still to start)
        # Not forfeited and its process still there: it is asked and heard. A flag, not worked
        # out from the ledger: it is read several times a decision.
        self.playing = True
        self.decisions = 0
        self.last_seq = 0  # per seat: a shared counter would tell how often others are asked
        self.cursor = 0
        self.ask: Ask | None = None
        self.answer: Answer | None = None
        self.info_left = INFO_CHARS_PER_SEAT  # of its notes still kept in the replay
        self.hello: Window | None = None  # the window to say hello in, once launched
        self.views: views.SeatViews | None = None  # its last view, when it takes deltas (1.2)

    def gone(self) -> None:
        """Its process has ended (or could not start): it is no longer asked nor heard."""
        self.alive = self.playing = False


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
        self.bots = list(bots)
        self.seed = seed
        self.position = position  # a full position to start from (Game.load) instead of a deal
        self.options = game.resolve_options(options, len(self.bots))
        self.limits = limits or Limits()
        self._limits = self.limits.as_dict()  # as every welcome and the replay carry them
        self._options_key = json.dumps(self.options, sort_keys=True)  # the welcome's game
        self.match_id = match_id or new_match_id()
        self.ask_forced = ask_forced
        self.rulings = Rulings(policy or FaultPolicy(), self.limits)
        self.pool = pool  # keeps reusable bots' processes between matches
        self.lane = lane  # the seat rotation: a kept process plays only its own lane
        self.sandbox_limits = sandbox_limits or sandbox.SandboxLimits()
        self.sandbox_level = sandbox_level
        self.finished = False
        self.clock = MatchClock(self.limits, time.monotonic())
        self.records: list[dict[str, Any]] = []  # each decision, for the replay
        self.recording = True  # whether they are kept (run: only when a replay is written)
        self.decided = 0  # decisions applied
        self.poller = Poller()
        self.latency = Latency()  # how late this referee wakes: the host's load, as it sees it
        self.seating: Seating | None = None
        self.connected: list[tuple[_Seat, Connection]] = []  # every seat, once its bot is seated
        self.seats = [
            _Seat(i, spec, self.limits, KeyedRandom(f"{seed}/substitute/{i}"))
            for i, spec in enumerate(self.bots)
        ]

    # -- the match ---------------------------------------------------------------------------

    def run(self, replay_path: Path | None = None) -> MatchResult:
        started = time.monotonic()
        self.recording = replay_path is not None
        self.latency.begin()
        raise_open_files_limit()
        self.clock = MatchClock(self.limits, started)
        if self.position is None:
            state = self.game.new(len(self.bots), self.seed, self.options)
        else:
            state = self.game.load(self.position)
        void = None
        with sandbox.MatchFolder() as folder:
            ctx = self.pool.ctx if self.pool is not None else zmq.Context()
            self.seating = seating = Seating(
                self.poller,
                ctx,
                folder,
                self.limits.max_message_bytes,
                self.sandbox_limits,
                self.sandbox_level,
                self.pool,
                self.lane,
            )
            try:
                self._start(seating)
                self._handshake()
                with heap.frozen():
                    self._play(state)
                self._finish(state)
            except sandbox.HostError as exc:  # this machine failed to start a bot
                void = VoidKind.HOST.reason(str(exc))
            except Starved as exc:  # this machine kept a seat from running: replayed
                void = VoidKind.LOAD.reason(str(exc))
            except Exception as exc:  # a fault of the referee or engine voids the match
                void = VoidKind.INTERNAL.reason(f"{type(exc).__name__}: {exc}")
            finally:
                for seat in self.seats:
                    if seat.conn is not None and not (void is None and self._keep(seat)):
                        seat.conn.close()
                if self.pool is None:
                    ctx.term()
            try:  # the result reads the referee's waits one last time: closed after it
                result = self._result(state, void, (time.monotonic() - started) * 1000)
            finally:
                self.latency.close()
        if replay_path is not None and void is None:
            replay.write(replay_path, replay.build(self._record(state, result)))
            result.replay_path = str(replay_path)
        heap.played(self.decided)
        return result

    def _start(self, seating: Seating) -> None:
        for seat in self.seats:
            seat.conn = seating.open(seat.index, seat.spec)
            self.connected.append((seat, seat.conn))
        if any(not conn.reused and conn.stream is None for _, conn in self.connected):
            self.latency.list_threads()  # with ZeroMQ's I/O thread, started by a first socket
        for seat in self.seats:
            assert seat.conn is not None
            if seat.conn.reused:
                seat.offers_reuse = True
                self._welcome(seat)  # it said hello in its first match
                continue
            try:
                seating.launch(seat.conn, seat.index, seat.spec)
            except OSError as exc:  # the bot's own program does not exist or is not a program
                seat.gone()
                self._fault(seat, "crashed", f"could not start: {exc}")
                continue
            seat.hello = seat.clock.hello(time.monotonic(), self.latency.waited_ms())

    def _kept(self, seat: _Seat) -> bool:
        """The seat's process will be kept for another match if it ends cleanly: it offered
        reuse and the pool, the organiser and its transport allow it."""
        return seat.offers_reuse and self.seating is not None and self.seating.may_keep(seat.spec)

    def _keep(self, seat: _Seat) -> bool:
        """Give the seat's process to the pool if it may play another match: it was told so in
        its welcome and its match ended without a single incident."""
        ledger = seat.ledger
        clean = ledger.status == OK and seat.alive and not ledger.incidents and seat.greeted
        if not (clean and self._kept(seat) and self.finished):
            return False
        assert self.seating is not None and seat.conn is not None
        return self.seating.keep(seat.conn, seat.spec)

    def _handshake(self) -> None:
        while waiting := [s for s in self.seats if s.playing and not s.greeted]:
            now = time.monotonic()
            if self._over_time(now):
                break
            for seat in waiting:
                assert seat.hello is not None
                spent = self._judge(seat, seat.hello, now) if seat.hello.overdue(now) else None
                if spent is not None:
                    why = no_hello(seat.spec, self.limits.init_ms)
                    self._fault(seat, "timeout", f"{why}; it had {spent.shown()}")
            deadlines = [s.hello.deadline for s in waiting if s.playing and s.hello]
            if deadlines:
                self._wait(min(deadlines))

    def _play(self, state: State) -> None:
        # Each decision's record is kept only for the replay: a match without one (a ladder's
        # default) counts its decisions and builds none.
        records = self.records if self.recording else None
        while pending := state.pending():
            answers = self._collect(state, pending)
            for decision in pending if len(pending) == 1 else _by_seat(pending):
                choice, by, ms, info = answers[decision.seat]
                if records is not None:
                    events = state.event_count()
                    records.append(_decision_record(decision, choice, by, ms, info, events))
                self.decided += 1
                state.act(decision.seat, choice)

    def _collect(self, state: State, pending: tuple[Decision, ...]) -> dict[int, Answer]:
        """Get one answer per pending decision: from the bot, or auto / substitute."""
        answers: dict[int, Answer] = {}
        while True:
            for decision in pending:
                if decision.seat in answers:
                    continue
                seat = self.seats[decision.seat]
                if len(decision.options) == 1 and not self.ask_forced:
                    answers[seat.index] = (0, "auto", 0.0, "")
                elif seat.answer is not None:
                    answers[seat.index], seat.answer = seat.answer, None
                elif not seat.playing:
                    answers[seat.index] = (self._substitute(seat, decision), "substitute", 0.0, "")
                elif seat.ask is None:
                    self._send_turn(state, seat, decision)
            if len(answers) == len(pending):
                return answers
            now = time.monotonic()
            if now >= self.clock.ends_at and self._over_time(now):
                continue
            wake = self._expire_deadlines(now)
            if wake < math.inf:
                self._wait(wake)

    def _expire_deadlines(self, now: float) -> float:
        """Judge every seat whose answer is past its deadline at ``now``: late, or (the host
        kept it from running) its deadline moved on. When the referee must look at the seats
        still asked next (``math.inf``: none is)."""
        wake = math.inf
        for seat in self.seats:
            ask = seat.ask
            if ask is None or not seat.playing:
                continue
            if now >= ask.deadline:  # ask.overdue(now)
                spent = self._judge(seat, ask, now)
                if spent is not None:
                    self._late(seat, ask, spent)
                    ask = seat.ask
                    if ask is None or not seat.playing:
                        continue
            wake = min(wake, ask.wake_at)
        return wake

    def _judge(self, seat: _Seat, window: Window, now: float) -> Spent | None:
        """At a window's deadline: what the seat had, when it is late; None when its deadline
        moved on. Raises Starved when the host kept it from running up to the ceiling."""
        assert seat.conn is not None
        self._measure(seat, window)
        spent = Spent.of(window, now, seat.conn.reading(), self._referee_waits(seat, 0))
        verdict = seat.clock.judge(window, spent, now)
        if verdict is Verdict.EXTEND:
            self.latency.moved += 1
        elif verdict is Verdict.VOID:
            raise Starved(
                f"seat {seat.index} ({seat.spec.name}) was kept from running by this machine: "
                f"it had {spent.shown()} of a budget of {window.budget_ms:.0f} ms"
            )
        return spent if verdict is Verdict.FAULT else None

    def _measure(self, seat: _Seat, window: Window) -> None:
        """Read a window's counters now if they were not read yet: its bot's, and the
        referee's own waits."""
        if window.measured_at is None:
            assert seat.conn is not None
            now = time.monotonic()  # before the reading: the moments credited end here
            window.measure(now, seat.conn.reading(), self.latency.waited_ms())

    def _referee_waits(self, seat: _Seat, answers: int) -> float | None:
        """The referee's waits for a CPU, credited to a seat that sent it nothing but its
        ``answers`` since its turn: a seat that sends more (a flood) keeps the referee busy
        itself, so its waits are not the host's (None: not counted)."""
        if seat.ledger.sent_messages > answers:
            return None
        return self.latency.waited_ms()

    def _late(self, seat: _Seat, ask: Ask, spent: Spent | None) -> None:
        seat.clock.expire()
        self._carry_out(seat, self.rulings.late(seat.ledger, ask, seat.greeted, spent), ask)

    def _over_time(self, now: float) -> bool:
        """Past the match's wall-clock cap at ``now``: rule every seat being waited on, once.
        The others play on, each on its own clock (which bounds the rest of the game)."""
        if not self.clock.reached(now):
            return False
        for seat in self.seats:
            if seat.playing and (seat.ask is not None or not seat.greeted):
                why = f"the match reached its wall-clock cap of {self.limits.match_ms} ms"
                self._fault(seat, "match_timeout", why + " while waiting for this seat")
        return True

    @staticmethod
    def _substitute(seat: _Seat, decision: Decision) -> int:
        return seat.rng.randrange(len(decision.options))

    def _send_turn(self, state: State, seat: _Seat, decision: Decision) -> None:
        seq = seat.last_seq + 1
        events, seat.cursor = state.events_since(seat.index, seat.cursor)
        view, dropped = _view(seat, state)
        clock = seat.clock.told()
        msg = messages.turn(
            seq, decision.kind, decision.prompt, decision.options, view, events, clock, dropped
        )
        now = time.monotonic()
        seat.ask = ask = seat.clock.ask(seq, decision, now, measured=False)
        if not seat.clock.defers:
            self._measure(seat, ask)
        seat.last_seq = seq
        seat.ledger.new_turn()
        self._send(seat, msg)

    def _finish(self, state: State) -> None:
        self.finished = True
        self.clock.disarm()  # the wall-clock cap has nobody left to rule
        outcome = state.outcome().as_dict()
        for seat in self.seats:
            if seat.playing and seat.greeted:
                events, seat.cursor = state.events_since(seat.index, seat.cursor)
                status = seat.ledger.status
                view, dropped = _view(seat, state)
                msg = messages.game_over(outcome, status, view, events, dropped)
                self._send(seat, msg)
        # Give bots a moment to read game_over and leave on their own; the rest are killed.
        # A bot told it is kept stays: it waits for the next welcome.
        leaving = [s.conn for s in self.seats if s.conn is not None and not self._kept(s)]
        deadline = time.monotonic() + GAME_OVER_S
        while time.monotonic() < deadline and any(conn.watched for conn in leaving):
            self._wait(min(deadline, time.monotonic() + 0.02))

    # -- what bots send ----------------------------------------------------------------------

    def _wait(self, wake: float) -> None:
        """Poll every channel and pidfd until ``wake`` or the first activity; handle it all.
        ``wake`` is never later than a deadline of a seat's answer (``_expire_deadlines``
        gives it), so a message read before it needs no deadline judged first.

        It runs once per decision answered, so it makes one pass where it can: the clock is
        read once before the poll and once after it."""
        connected = self.connected
        pending = False
        for _, conn in connected:
            if conn.watch_output():
                pending = True
        asked = time.monotonic()
        until = min(wake, self.clock.ends_at)
        # In whole ms, rounded up: a wake is never early for the moment it waits for.
        timeout = 0 if pending else max(0, math.ceil((until - asked) * 1000))
        ready = self.poller.poll(timeout)
        now = time.monotonic()
        if not ready and timeout > 0:
            self.latency.woke(asked + timeout / 1000, now)
        read: list[tuple[float, int, Frame]] = []
        for seat, conn in connected:
            if conn.ready(ready):
                for frame in conn.receive(ready):
                    read.append((frame.received, seat.index, frame))
        if len(read) > 1:
            read.sort(key=_read_order)
        # What was read is handled in the order it was read, with the clock checked between.
        for received, index, frame in read:
            if received >= wake:
                self._expire_deadlines(received)
            self._on_frame(self.seats[index], frame)
        # Then each seat's channel trouble, exit, and decision still unanswered long enough to
        # read its counters for (one seat's never bears on another's: one pass).
        for seat, conn in connected:
            trouble = conn.trouble()
            if trouble is not None:
                self._on_trouble(seat, conn, trouble)
            if conn.exited(ready):
                self._on_exit(seat, conn)
            ask = seat.ask
            if ask is not None and seat.playing and ask.unmeasured(now):
                self._measure(seat, ask)

    def _on_frame(self, seat: _Seat, frame: Frame) -> None:
        """Charge the seat for the message, then decode it and act on it."""
        if not seat.playing:
            return
        flood = self.rulings.charge(seat.ledger, len(frame.data))
        if flood:
            self._fault(seat, "flood", flood, excerpt(frame.data[:EXCERPT_CHARS]))
            return
        assert seat.conn is not None
        item = seat.conn.check(frame)
        if frame.foreign:
            self._warn(seat, "unexpected", "message from a second connection", item.excerpt)
            return
        if item.error is not None:
            self._fault(seat, item.error.code, item.error.message, item.excerpt)
            return
        msg = item.msg
        assert msg is not None
        kind = msg["type"]
        if kind == "action" and seat.greeted:  # every decision's answer: asked first
            self._on_action(seat, msg, frame.received, item)
        elif kind == "hello":
            self._on_hello(seat, msg, item.excerpt)
        elif not seat.greeted:
            self._warn(seat, "unexpected", f"{kind} before hello", item.excerpt)
        elif kind == "error":
            why = f"bot gave up: {printable(msg['code'], 80)}"
            self._fault(seat, RESIGNED, why, item.excerpt, notify=False)
        else:
            self._on_action(seat, msg, frame.received, item)

    def _on_hello(self, seat: _Seat, msg: dict[str, Any], excerpt: str) -> None:
        if seat.greeted:
            self._warn(seat, "unexpected", "second hello", excerpt)
            return
        assert seat.conn is not None
        # As bytes: compare_digest refuses a str with non-ASCII characters.
        token = msg["token"].encode("utf-8", "surrogatepass")
        if not secrets.compare_digest(token, seat.conn.token.encode()):
            self._fault(seat, "bad_token", "hello carries a wrong token", excerpt)
        elif codec.PROTOCOL_VERSION not in msg["versions"]:
            supported = codec.PROTOCOL_VERSION
            why = f"bot speaks {msg['versions']}, referee {supported}"
            self._fault(seat, "version_mismatch", why, excerpt)
        else:
            seat.offers_reuse = msg.get("reuse") is True
            views.process(seat.conn.channel).deltas = msg.get("deltas") is True
            self._welcome(seat)

    def _welcome(self, seat: _Seat) -> None:
        """Start the seat's match: ``welcome``, saying whether its process will be kept and
        whether it takes deltas (as its process offered in its hello)."""
        seat.greeted = True
        assert seat.conn is not None
        process = views.process(seat.conn.channel)
        options = self._options_key
        game = process.welcome_game(_welcome_game(self.game, options), options)
        seat.views = views.SeatViews() if process.deltas else None
        n, kept = len(self.seats), self._kept(seat)
        msg = messages.welcome(
            self.match_id, seat.index, n, game, self._limits, kept, process.deltas
        )
        self._send(seat, msg)

    def _on_action(self, seat: _Seat, msg: dict[str, Any], received: float, item: Inbound) -> None:
        ask = seat.ask
        if ask is None or msg["seq"] != ask.seq:
            stale = msg["seq"] <= seat.last_seq
            code = "stale_seq" if stale else "unexpected"
            why = f"action for seq {msg['seq']} is not awaited"
            self._warn(seat, code, why, item.excerpt, seq=msg["seq"])
            return
        spent = None
        if seat.clock.measures(ask, received):
            assert seat.conn is not None
            self._measure(seat, ask)
            spent = Spent.of(ask, received, seat.conn.reading(), self._referee_waits(seat, 1))
        timing = seat.clock.answer(ask, received, spent)
        if timing is None:  # read after the deadline, or its budget used: never accepted
            self._late(seat, ask, spent)
            return
        seat.ask = None
        if timing.over_ms > 0:  # the excerpt is rendered only for an incident that quotes it
            self.rulings.slow(seat.ledger, ask, timing, seat.clock.bank_ms, item.excerpt)
        choice = msg["choice"]
        options = ask.decision.options
        if not 0 <= choice < len(options):
            shown = excerpt_options(options)
            n = len(options)
            why = f"choice {choice} for kind {ask.decision.kind!r}: options 0..{n - 1} were {shown}"
            self._fault(seat, "illegal_action", why, item.excerpt, ask=ask)
            return
        seat.decisions += 1
        info = msg.get("info")
        seat.answer = (choice, "bot", timing.elapsed_ms, _note(seat, info) if info else "")

    def _on_trouble(self, seat: _Seat, conn: Connection, trouble: Trouble) -> None:
        """Rule on what a channel saw besides messages: connections, an unread outbox."""
        if seat.playing and (trouble.after_game or not self.finished):
            self._fault(seat, trouble.code, trouble.detail)
        if trouble.close:
            conn.stop()  # closes the socket and every connection, also after the game

    def _on_exit(self, seat: _Seat, conn: Connection) -> None:
        for frame in conn.drain():  # what it said before it went counts (and is ruled) first
            self._on_frame(seat, frame)
        conn.ended()
        if seat.playing and not self.finished:
            when = "during the match" if seat.greeted else "before its hello"
            code, why = exit_fault(conn.exit_code, conn.usage.oom_killed, when)
            seat.gone()
            self._fault(seat, code, why)
        seat.gone()

    # -- rulings carried out -----------------------------------------------------------------

    def _fault(
        self,
        seat: _Seat,
        code: str,
        detail: str,
        excerpt: str = "",
        notify: bool = True,
        ask: Ask | None = None,
    ) -> None:
        ask = ask or seat.ask
        ruling = self.rulings.fault(
            seat.ledger, code, detail, excerpt, joined=seat.greeted, ask=ask, notify=notify
        )
        self._carry_out(seat, ruling, ask)

    def _warn(
        self, seat: _Seat, code: str, detail: str, excerpt: str, seq: int | None = None
    ) -> None:
        self._carry_out(seat, self.rulings.warn(seat.ledger, code, detail, excerpt, seq), seat.ask)

    def _carry_out(self, seat: _Seat, ruling: Ruling | None, ask: Ask | None) -> None:
        """Do what a ruling says: forfeit the seat, substitute this answer, or tell it."""
        if isinstance(ruling, Forfeit):
            seat.playing = False  # its ledger says so from now on
            seat.ask = seat.answer = None
            if ruling.notify:
                self._send(seat, messages.error(ruling.code, ruling.detail, fatal=True))
            if seat.conn is not None:
                seat.conn.stop()
            return
        if isinstance(ruling, Substitute):
            if ask is not None and seat.answer is None:
                seat.answer = (self._substitute(seat, ask.decision), "substitute", 0.0, "")
            seat.ask = None
        if ruling is not None:
            self._send(seat, messages.error(ruling.code, ruling.detail, fatal=False))

    def _send(self, seat: _Seat, msg: dict[str, Any]) -> None:
        if seat.conn is not None and seat.alive:
            seat.conn.send(msg)

    # -- the result --------------------------------------------------------------------------

    def _result(self, state: State, void: str | None, duration_ms: float) -> MatchResult:
        seats = self.seats
        outcome = state.outcome().as_dict() if void is None else {}
        scores = outcome.get("scores", [0.0] * len(seats))
        game_ranks = outcome.get("ranks", [0] * len(seats))
        out = [s.ledger.status != OK for s in seats]
        keys = [(o, 0 if o else game_ranks[s.index]) for s, o in zip(seats, out, strict=True)]
        ranks = competition_ranks(keys)
        results = [self._seat_result(s, scores[s.index], ranks[s.index]) for s in seats]
        levels = sorted({r.sandbox for r in results if r.sandbox})
        return MatchResult(
            match_id=self.match_id,
            game=self.game.id,
            game_version=self.game.version,
            seed=self.seed,
            options=self.options,
            seats=results,
            outcome=outcome,
            decisions=self.decided,
            duration_ms=round(duration_ms, 3),
            sandbox="+".join(levels) or "none",
            void=void,
            sched=self.latency.record(duration_ms),
        )

    def _seat_result(self, s: _Seat, score: float, rank: int) -> SeatResult:
        conn, ledger = s.conn, s.ledger
        exit_code = conn.exit_code if conn is not None else None
        usage = conn.usage if conn is not None else sandbox.Usage()
        log_bytes = (s.spec.limits or self.sandbox_limits).output_kb << 10
        return SeatResult(
            seat=s.index,
            name=s.spec.name,
            score=score,
            rank=rank,
            status=ledger.status,
            detail=ledger.detail,
            decisions=s.decisions,
            time_ms=round(s.clock.time_ms, 3),
            max_ms=round(s.clock.max_ms, 3),
            bank_left_ms=round(s.clock.bank_ms, 3),
            exit_code=exit_code,
            warnings=dict(sorted(ledger.warnings.items())),
            log_tail=conn.log_tail(log_bytes) if conn is not None else "",
            transport=s.spec.transport,
            sandbox=conn.level if conn is not None else "",
            signal=signal_name(exit_code),
            cpu_ms=usage.cpu_ms,
            peak_memory_kb=usage.peak_memory_kb,
            strikes=ledger.strikes,
            incidents=ledger.incidents,
        )

    def _record(self, state: State, result: MatchResult) -> replay.MatchRecord:
        """The match as played, in plain data, for its replay."""
        return replay.MatchRecord(
            match_id=self.match_id,
            game={"id": self.game.id, "version": self.game.version, "options": self.options},
            seed=self.seed,
            players=[
                {"seat": i, "name": b.name, "command": list(b.command)}
                for i, b in enumerate(self.bots)
            ],
            limits=self._limits,
            position=self.position,
            decisions=self.records,
            events=state.event_log(),
            outcome=state.outcome().as_dict(),
            result=result,
        )


class Starved(Exception):
    """This machine kept a seat from running until its deadline's ceiling: the match is void
    (``load:``), never a bot's fault."""


def _by_seat(pending: Sequence[Decision]) -> list[Decision]:
    """Answers to a simultaneous choice are applied in seat order, whoever answered first."""
    return sorted(pending, key=lambda d: d.seat)


def _view(seat: _Seat, state: State) -> tuple[dict[str, Any], list[str] | None]:
    """The seat's view to send: whole (``None`` dropped), or as a delta if it takes them."""
    view = state.view(seat.index)
    return (view, None) if seat.views is None else seat.views.delta(view)


def _decision_record(
    decision: Decision, choice: int, by: str, ms: float, info: str, events: int
) -> dict[str, Any]:
    """A decision as the replay keeps it; ``events``: the event log's length before it."""
    record = {
        "seat": decision.seat,
        "kind": decision.kind,
        "choice": choice,
        "option": decision.options[choice],
        "by": by,
        "ms": round(ms, 3),
        "events": events,
    }
    if info:
        record["info"] = info
    return record


def _read_order(read: tuple[float, int, Frame]) -> tuple[float, int]:
    """Frames read in one wake are handled by the moment each was read, then by seat."""
    return read[0], read[1]


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


@functools.lru_cache(maxsize=16)
def _welcome_game(game: Game, options: str) -> dict[str, Any]:
    """:func:`game_info` for the given options (as canonical JSON), built once per process
    for every welcome of every match with them (Motora's costs more than a short match's
    turns). Only encoded by the referee, never handed to a bot's code as an object."""
    return game_info(game, json.loads(options))


def _note(seat: _Seat, info: str) -> str:
    """What the replay keeps of an answer's ``info``: printable, at most ``INFO_CHARS``, and
    nothing once the seat's ``INFO_CHARS_PER_SEAT`` are spent (the seat was charged for the
    message like for any other; the replay does not grow with what it says)."""
    if not info or seat.info_left < INFO_CHARS:  # most answers carry none
        return ""
    kept = printable(info, INFO_CHARS)
    seat.info_left -= len(kept)
    return kept


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
