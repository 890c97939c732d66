"""Explains every choice in ``action.info``: its turn number and what it holds (its own hidden
cards), then HTML and script, control characters and a tail far past the protocol's 1 024
characters. The referee must keep the note bounded and printable, and every page must show it
escaped (the viewer tests look for ``window.pwned``)."""

from __future__ import annotations

import json

from _wire import play

PAYLOAD = '<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>'


def answer(turn: dict, count: int) -> list[dict]:
    hand = json.dumps(turn["view"].get("hand"), separators=(",", ":"))
    info = f"note {count + 1}: holding {hand} {PAYLOAD}\x1b[31m\x00\n" + "x" * 5000
    return [{"v": 1, "type": "action", "seq": turn["seq"], "choice": 0, "info": info}]


if __name__ == "__main__":
    play(answer)
