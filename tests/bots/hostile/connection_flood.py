"""Opens tens of thousands of connections to its own socket, to exhaust the referee's files.

Usage: connection_flood.py [--after K | --after-loss] [--processes P] [--per-process N]
With ``--after K`` it floods on its Kth turn; with ``--after-loss`` it plays the whole game and
floods only once ``game_over`` says it did not win (a loss the referee's death would have
turned into a void). P processes (forked at once, within the sandbox's process limit) each open
up to N plain unix-socket connections, as fast as the kernel takes them, and hold them.
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import time
from typing import Any

from _link import Link, play, report


def flood(path: str, processes: int, per_process: int) -> None:
    """Fork the flooders; each reports how many connections it got, then holds them."""
    for _ in range(processes):
        try:
            if os.fork() == 0:
                break
        except OSError:
            return  # the process limit: the ones already forked do the work
    else:
        time.sleep(5)  # the parent: give the children time to be seen and ruled
        return
    held, outcome = [], "ok"
    try:
        while len(held) < per_process:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            held.append(sock)
            sock.connect(path)
    except OSError as exc:
        outcome = errno.errorcode.get(exc.errno or 0, "error")
    report("connections", f"{outcome} after {len(held)}")
    time.sleep(30)
    os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--after", type=int, default=-1)
    parser.add_argument("--after-loss", action="store_true")
    parser.add_argument("--processes", type=int, default=120)
    parser.add_argument("--per-process", type=int, default=250)
    args = parser.parse_args()
    path = os.environ["ARENA_ENDPOINT"].removeprefix("ipc://")
    link = Link()
    link.hello(name="connection-flood")

    def on_turn(link: Link, turn: dict[str, Any], index: int) -> bool:
        if index == args.after:
            flood(path, args.processes, args.per_process)
        return False

    last = play(link, on_turn)
    if args.after_loss and last.get("type") == "game_over":
        won = last["outcome"]["ranks"][link.seat] == 0
        report("game", "won" if won else "lost")
        if not won:
            flood(path, args.processes, args.per_process)


if __name__ == "__main__":
    main()
