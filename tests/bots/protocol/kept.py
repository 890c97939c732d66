"""A bot that offers reuse, behaves until its N-th match, then tries what a fresh process may not.

    kept.py MODE N [AMOUNT]

Every welcome prints ``match K process X children C`` on stderr: X is drawn at start (a sandbox's
pid namespace gives every bot the same pid) and C counts the processes it left that still live,
so the seat's log tells which process played which match and what it carried into it. MODE:

* ``connections``: at its first turn of match N, opens AMOUNT (default 6) more connections to
  its own socket and holds them, then plays on;
* ``messages``: at its first turn of match N, sends AMOUNT (default 40) stale actions first;
* ``fork``: at its first turn of match N, leaves a child and a daemon (double fork, own
  session) sleeping, then plays on;
* ``hog``: at its first turn of match N, takes AMOUNT MiB of memory (touched) and keeps it;
* ``flood``: after the ``game_over`` of match N, while it waits to be reused, opens and closes
  connections to its socket as fast as it can (holding up to AMOUNT, default 200, at once),
  until it is killed.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from typing import Any

from _raw import Link, play

mode, number = sys.argv[1], int(sys.argv[2])
amount = int(sys.argv[3]) if len(sys.argv) > 3 else 0
path = os.environ["ARENA_ENDPOINT"].removeprefix("ipc://")
link = Link()
link.hello(reuse=True)
process = os.urandom(8).hex()
count = 0
children: list[int] = []
held: list[Any] = []


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def connect() -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        return None
    return sock


def leave_children() -> None:
    """A child that sleeps, and a daemon: a grandchild in its own session (the child exits)."""
    read, write = os.pipe()
    for daemon in (False, True):
        pid = os.fork()
        if pid == 0:
            if daemon:
                os.setsid()
                if os.fork():
                    os._exit(0)
                os.write(write, f"{os.getpid()}\n".encode())
            while True:
                time.sleep(60)
        if daemon:
            os.waitpid(pid, 0)
        else:
            children.append(pid)
    os.close(write)
    with os.fdopen(read) as pipe:
        children.append(int(pipe.readline()))


def flood() -> None:
    """Churn connections to the socket while idle, never more than ``amount`` at once."""
    limit = amount or 200
    opened: list[socket.socket] = []
    while True:
        sock = connect()
        if sock is not None:
            opened.append(sock)
        if len(opened) >= limit or sock is None:
            for old in opened[: len(opened) // 2]:
                old.close()
            del opened[: len(opened) // 2]


def on_turn(_link: Link, _turn: dict[str, Any], index: int) -> bool:
    if count != number or index != 0:
        return False
    if mode == "connections":
        held.extend(connect() for _ in range(amount or 6))
    elif mode == "fork":
        leave_children()
        print(f"left children {children}", file=sys.stderr, flush=True)
    elif mode == "messages":
        for _ in range(amount or 40):
            _link.action(0, 0)
    elif mode == "hog":
        block = bytearray(amount << 20)
        block[:: 1 << 12] = b"x" * len(block[:: 1 << 12])
        held.append(block)
    return False


while True:
    welcome = link.recv()
    assert welcome["type"] == "welcome", welcome
    count += 1
    living = sum(alive(pid) for pid in children)
    print(f"match {count} process {process} children {living}", file=sys.stderr, flush=True)
    last = play(link, on_turn, seed=count)
    if last["type"] != "game_over" or not welcome.get("reuse"):
        break
    if count == number and mode == "flood":
        print("flooding", file=sys.stderr, flush=True)
        flood()
