"""A seat's connection: the channel to its bot, the process behind it, and their place in the
referee's poller; and the seating that gives each seat one, kept from an earlier match or new.

The referee polls every connection's handles and every process's pidfd in one :class:`Poller`,
so a crash is seen the moment it happens. A connection is stopped once: its socket closed (which
frees every connection the bot made), every process of the bot killed and what it used kept.
Bots are started by ``arena.sandbox`` at the strongest level this machine allows; a failure of
this machine to start one raises ``sandbox.HostError`` (the match is void, no bot is blamed),
while a program that does not exist raises ``OSError`` (the bot's own fault).

A process may be kept for the next match (``arena.match.pool``) when the pool, the bot and the
organiser all allow it, whatever its transport: its log (and a ZeroMQ bot's socket) then live in
the pool's folder.
"""

from __future__ import annotations

import secrets
import select
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import zmq

from arena import sandbox
from arena.match.bots import BotSpec
from arena.match.channels import (
    Channel,
    Frame,
    PipeChannel,
    StdioChannel,
    StreamChannel,
    ZmqChannel,
)
from arena.match.pool import BotPool, Kept

STREAMS: dict[str, type[StreamChannel]] = {"pipe": PipeChannel, "stdio": StdioChannel}

DRAIN_ROUNDS = 64  # reads taken from a channel when its bot has exited
EOF_GRACE_S = 0.5  # how long a dead stdio bot's unfinished line may wait for its pipe to close


_FD_EVENTS: dict[int, int] = {zmq.POLLIN: select.POLLIN, zmq.POLLOUT: select.POLLOUT}


class Poller:
    """Every handle of a match's connections, polled together: bots' pidfds and pipes, and
    ZeroMQ sockets and their monitors.

    While the handles are all file descriptors (pipe and stdio bots) it waits with one
    ``select.poll`` object, kept registered between polls: one system call a wait, where
    ``zmq.Poller`` builds its items anew and looks once without waiting before it waits. A
    ZeroMQ socket among them needs ``zmq.Poller`` (only zmq_poll sees its messages), which then
    waits for them all. ``poll`` gives what is ready, keyed by the handles as registered (a
    pipe at its end or a closed descriptor is ready either way)."""

    def __init__(self) -> None:
        self.handles: dict[Any, int] = {}
        self.fds = select.poll()
        self.zmq = zmq.Poller()
        self.sockets = 0  # ZeroMQ sockets registered

    def __contains__(self, handle: Any) -> bool:
        return handle in self.handles

    def register(self, handle: Any, flags: int) -> None:
        """Watch ``handle`` for ``flags`` (``zmq.POLLIN`` or ``zmq.POLLOUT``)."""
        if isinstance(handle, zmq.Socket):
            if handle not in self.handles:
                self.sockets += 1
        else:
            self.fds.register(handle, _FD_EVENTS[flags])
        self.zmq.register(handle, flags)
        self.handles[handle] = flags

    def unregister(self, handle: Any) -> None:
        del self.handles[handle]
        self.zmq.unregister(handle)
        if isinstance(handle, zmq.Socket):
            self.sockets -= 1
        else:
            self.fds.unregister(handle)

    def poll(self, timeout_ms: int) -> dict[Any, int]:
        """What is ready within ``timeout_ms`` (0: only what is ready now)."""
        if self.sockets:
            return dict(self.zmq.poll(timeout_ms))
        return dict(self.fds.poll(timeout_ms))


class Connection:
    """One seat's bot as the referee reaches it."""

    def __init__(self, poller: Poller, channel: Channel, token: str, reused: bool) -> None:
        self.poller = poller
        self.channel = channel
        self.token = token  # proves the seat in hello (ARENA_TOKEN)
        self.reused = reused  # a kept process from an earlier match
        self.proc: sandbox.BotProcess | None = None
        self.watched = False  # its pidfd is in the poller
        self.exit_code: int | None = None
        self.usage = sandbox.Usage()
        self.stream = channel if isinstance(channel, StreamChannel) else None
        self.polling_stdin = self.polling_stdout = False  # a stream's pipes in the poller
        # The channel's own methods, not methods that pass the call on: the referee calls them
        # for every message. ``ready``: something to read (or room to write what waits).
        self.ready = channel.wants
        self.receive = channel.receive
        self.check = channel.check
        self.send = channel.send
        self.trouble = channel.trouble
        for handle in channel.handles:
            poller.register(handle, zmq.POLLIN)

    def attach(self, proc: sandbox.BotProcess) -> None:
        """Watch the bot's process: its exit, and a pipe or stdio bot's pipes."""
        self.proc = proc
        if self.stream is not None:
            assert proc.stdin is not None and proc.stdout is not None
            self.stream.attach(proc.stdin, proc.stdout)
            self.poller.register(proc.stdout, zmq.POLLIN)
            self.polling_stdout = True
        self.poller.register(proc.pidfd, zmq.POLLIN)
        self.watched = True

    @property
    def level(self) -> str:
        """The sandbox level its process runs at ('' if it never started)."""
        return self.proc.level if self.proc is not None else ""

    def reading(self) -> sandbox.Reading:
        """What its bot has had of the machine so far (CPU time, waits for a CPU)."""
        return self.proc.reading() if self.proc is not None else sandbox.Reading()

    def log_tail(self, limit: int) -> str:
        return self.proc.log_tail(limit) if self.proc is not None else ""

    # -- reading and writing ----------------------------------------------------------------

    def watch_output(self) -> bool:
        """Poll a pipe or stdio bot's stdin for room while output waits, and its stdout until
        EOF. True when whole messages wait already (read in an earlier wake, so the poll would
        not report them: it must not wait)."""
        stream = self.stream
        if stream is None or stream.stdin is None:
            return False  # a ZeroMQ socket's messages are reported by every poll
        writing = bool(stream.outbox)
        if writing != self.polling_stdin:
            if writing:
                self.poller.register(stream.stdin, zmq.POLLOUT)
            elif stream.stdin in self.poller:
                self.poller.unregister(stream.stdin)
            self.polling_stdin = writing
        if stream.closed and self.polling_stdout:
            if stream.stdout in self.poller:
                self.poller.unregister(stream.stdout)
            self.polling_stdout = False
        return stream.pending

    def exited(self, ready: dict[Any, int]) -> bool:
        """Its process ended (its pidfd fired)."""
        return self.watched and self.proc is not None and self.proc.pidfd in ready

    def drain(self) -> Iterator[Frame]:
        """Every message a bot left behind, waiting only for the end of a half line."""
        channel = self.channel
        deadline = time.monotonic() + EOF_GRACE_S
        for _ in range(DRAIN_ROUNDS):
            frames = channel.receive(dict.fromkeys(channel.handles, zmq.POLLIN))
            yield from frames
            if not frames and not self._awaits_eof(deadline):
                return

    def _awaits_eof(self, deadline: float) -> bool:
        """Wait (bounded) for the end of a dead bot's output if it left half a message.

        The pidfd can fire while a process of the bot's sandbox (bwrap's init) still holds the
        pipe, so the end of file that makes the half message ``malformed`` may come a moment
        later.
        """
        channel = self.channel
        if not isinstance(channel, StreamChannel) or channel.closed or not channel.inbox:
            return False
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        readable, _, hung_up = zmq.select(channel.handles, [], channel.handles, remaining)
        return bool(readable or hung_up)  # a pipe at end of file reports POLLHUP only

    # -- the end ----------------------------------------------------------------------------

    @property
    def stopped(self) -> bool:
        return self.proc is None or self.proc.pidfd < 0

    def ended(self) -> None:
        """Its process exited on its own: keep its exit code, then stop what is left of it."""
        assert self.proc is not None
        self.exit_code = self.proc.poll()
        self.stop()

    def stop(self) -> None:
        """Kill every process of the bot (once) and keep what it used; close its socket,
        which frees every connection it made."""
        channel = self.channel
        if isinstance(channel, ZmqChannel) and not channel.closed:
            for handle in channel.handles:
                self.poller.unregister(handle)
            channel.close()
        proc = self.proc
        if proc is None or proc.pidfd < 0:
            return
        for fd in (proc.pidfd, proc.stdout, proc.stdin):
            if fd is not None and fd in self.poller:
                self.poller.unregister(fd)
        self.watched = False
        proc.kill()
        self.usage = proc.usage()
        if self.exit_code is None:
            self.exit_code = proc.poll()

    def close(self) -> None:
        self.stop()
        self.channel.close()


class Seating:
    """Where a match's seats get their bots: a process kept by the pool when one fits (same
    bot, lane, sandbox level and limits, message limit), else a new channel and process."""

    def __init__(
        self,
        poller: Poller,
        ctx: zmq.Context[zmq.Socket[bytes]],
        folder: Callable[[], Path],
        max_bytes: int,
        limits: sandbox.SandboxLimits,
        level: str | None,
        pool: BotPool | None,
        lane: int,
    ) -> None:
        self.poller = poller
        self.ctx = ctx
        self.folder = folder  # the match's private folder, made when first asked for
        self.max_bytes = max_bytes
        self.limits = limits
        self.level = level
        self.pool = pool  # keeps reusable bots' processes between matches
        self.lane = lane  # the seat rotation: a kept process plays only its own lane

    def may_keep(self, spec: BotSpec) -> bool:
        """Reuse is possible for this bot: a pool, and the organiser lets it be kept."""
        return self.pool is not None and spec.reuse

    def limits_of(self, spec: BotSpec) -> sandbox.SandboxLimits:
        return spec.limits or self.limits

    def _key(self, spec: BotSpec) -> tuple[Any, ...]:
        return (spec, self.lane, self.level, self.limits_of(spec), self.max_bytes)

    def open(self, index: int, spec: BotSpec) -> Connection:
        """The seat's connection: a kept process's, ready for its ``welcome``, or a new
        channel for :meth:`launch`."""
        if self.pool is not None and self.may_keep(spec):
            kept = self.pool.take(self._key(spec))
            if kept is not None:
                connection = Connection(self.poller, kept.channel, kept.token, reused=True)
                connection.attach(kept.proc)
                return connection
        channel: Channel
        if spec.transport in STREAMS:
            channel = STREAMS[spec.transport](self.max_bytes)
        else:
            if self.pool is not None and self.may_keep(spec):
                path = self.pool.place(".sock")  # unique over the pool's lifetime
            else:
                path = self.folder() / f"seat{index}.sock"
            channel = ZmqChannel(self.ctx, str(path), self.max_bytes)
        return Connection(self.poller, channel, secrets.token_hex(16), reused=False)

    def launch(self, connection: Connection, index: int, spec: BotSpec) -> None:
        """Start the seat's bot on its connection; HostError when this machine fails to,
        OSError when the bot's own program cannot run."""
        channel = connection.channel
        env = sandbox.bot_environment(
            {
                **channel.env(),
                "ARENA_TOKEN": connection.token,
                "ARENA_BOT_NAME": spec.name,
                "ARENA_SEAT": str(index),
            }
        )
        zmq_channel = channel if isinstance(channel, ZmqChannel) else None
        try:
            proc = sandbox.launch(
                spec.argv(),
                cwd=spec.cwd,
                env=env,
                log_path=self._log_path(index, spec),
                limits=self.limits_of(spec),
                socket_path=zmq_channel.path if zmq_channel is not None else None,
                stdio=isinstance(channel, StreamChannel),
                level=self.level,
            )
        except sandbox.SandboxError as exc:  # the level is not available on this machine
            raise sandbox.HostError(str(exc)) from None
        connection.attach(proc)

    def _log_path(self, index: int, spec: BotSpec) -> Path:
        """In the pool's folder when the process may be kept (it outlives the match's folder),
        else in the match's folder."""
        if self.pool is not None and self.may_keep(spec):
            return self.pool.place(".log")
        return self.folder() / f"seat{index}.log"

    def keep(self, connection: Connection, spec: BotSpec) -> bool:
        """Give the connection's process to the pool for the next match, if it may be kept."""
        channel, proc = connection.channel, connection.proc
        if self.pool is None or not self.may_keep(spec) or connection.stopped:
            return False
        assert proc is not None
        self.pool.give(self._key(spec), Kept(proc, channel, connection.token))
        return True
