"""A bot that abuses its output and the strings it sends, chosen by argv[1].

stderr_spam / stdout_spam: 50 MB as fast as possible on its 2nd turn, then plays on (writes
    past the file-size limit fail with EFBIG, or SIGXFSZ ends the bot);
inject: a hello name and action ``info`` full of ANSI escapes, NULs and newlines, a 60 KB
    ``info``, and stderr with escapes and a 1 MB line; plays to the end;
inject_resign: like inject, then resigns with an ``error`` whose code and message are escapes.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from _raw import Link, play

EVIL = "\x1b[2J\x1b[31mred\x1b]0;title\x07\x00nul\r\nfake: line\x08\x7f\u202e\x9b1m"
SPAM_BYTES = 50 << 20


def spam(fd: int) -> None:
    chunk = (b"\x1b[31mspam " * 1000)[:65536]
    written = 0
    try:
        while written < SPAM_BYTES:
            written += os.write(fd, chunk)
    except OSError:  # EFBIG past RLIMIT_FSIZE (Python ignores SIGXFSZ): play on, silently
        pass


def main() -> None:
    mode = sys.argv[1]
    link = Link()
    inject = mode.startswith("inject")
    link.hello(name=EVIL[:64] if inject else "noisy")
    if inject:
        sys.stderr.write(EVIL * 3 + "\n" + "\x1b[1m" + "x" * (1 << 20) + "\n" + EVIL + "\n")
        sys.stderr.flush()

    def on_turn(link: Link, turn: dict[str, Any], index: int) -> bool:
        if mode == "stderr_spam" and index == 1:
            spam(2)
        elif mode == "stdout_spam" and index == 1:
            spam(1)
        elif inject:
            link.action(turn["seq"], 0, info=(EVIL * 2000)[:60_000])
            if mode == "inject_resign" and index == 2:
                link.send({"v": 1, "type": "error", "code": EVIL, "message": EVIL * 100})
            return True
        return False

    play(link, on_turn)


if __name__ == "__main__":
    main()
