"""A bot that plays correctly (with ``protocol.bot``) but is hard to get rid of or greedy.

Usage: stubborn.py MODE
spin_thread: a thread burns CPU for the whole match;
spin_child: a forked child process burns CPU for the whole match;
linger: ignores SIGTERM and SIGHUP and stays after game_over;
daemon: leaves a double-forked, setsid'd child that ignores SIGTERM and SIGHUP, and lingers.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import threading
import time

from protocol.bot import Bot, Turn, run


def spin() -> None:
    while True:
        pass


def ignore_polite_signals() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def daemonise() -> None:
    if os.fork() > 0:
        return
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    ignore_polite_signals()
    while True:
        time.sleep(1)


class Stubborn(Bot):
    name = "stubborn"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def choose(self, turn: Turn) -> int:
        return self.rng.randrange(len(turn.options))


def main() -> None:
    mode = sys.argv[1]
    if mode == "spin_thread":
        threading.Thread(target=spin, daemon=True).start()
    elif mode == "spin_child":
        if os.fork() == 0:
            spin()
    elif mode in ("linger", "daemon"):
        ignore_polite_signals()
        if mode == "daemon":
            daemonise()
    else:
        raise SystemExit(f"unknown mode {mode}")
    run(Stubborn())
    if mode in ("linger", "daemon"):
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
