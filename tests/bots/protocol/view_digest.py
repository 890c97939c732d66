"""An SDK bot that says, in each answer's ``info``, a digest of the full view ``choose`` saw.

    view_digest.py deltas|full

``deltas`` offers views as deltas (protocol 1.2), ``full`` does not; either way the digest must
be that of the seat's full view, which a test recomputes from the replay. It offers reuse, and
prints ``welcome K game D`` on stderr at each welcome (D: a digest of the whole ``game`` map the
bot was given, data included), so a test can tell that a kept process had the game's data in
every match, and ``final D`` at each game's end (D: the digest of ``final_view``). It changes
its own top-level view map after reading it: the SDK must not care.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

from protocol.bot import Bot, Turn, Welcome, run


def digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


class ViewDigest(Bot):
    reusable = True

    def __init__(self, deltas: bool) -> None:
        self.deltas = deltas
        self.matches = 0

    def on_welcome(self, welcome: Welcome) -> None:
        super().on_welcome(welcome)
        self.matches += 1
        print(f"welcome {self.matches} game {digest(welcome.game)}", file=sys.stderr, flush=True)

    def on_game_over(self, outcome: dict[str, Any], status: str) -> None:
        print(f"final {digest(self.final_view)}", file=sys.stderr, flush=True)

    def choose(self, turn: Turn) -> int:
        turn.info = digest(turn.view)
        turn.view.clear()  # its own map: the next turn's view is whole all the same
        return (turn.seq * 7) % len(turn.options)


if __name__ == "__main__":
    run(ViewDigest(sys.argv[1] == "deltas"))
