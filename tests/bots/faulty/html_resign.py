"""Resigns on its second turn with an error code that is HTML and script, and prints the same to
stderr: a page that shows a bot's words unescaped runs them (the report and viewer tests look
for ``window.pwned``)."""

from __future__ import annotations

import sys

from _wire import play

PAYLOAD = '<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>'


def answer(turn: dict, count: int) -> list[dict]:
    if count == 1:
        sys.stderr.write(PAYLOAD + "\n")
        sys.stderr.flush()
        return [{"v": 1, "type": "error", "code": PAYLOAD, "message": PAYLOAD}]
    return [{"v": 1, "type": "action", "seq": turn["seq"], "choice": 0}]


if __name__ == "__main__":
    play(answer)
