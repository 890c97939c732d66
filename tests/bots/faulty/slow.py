"""Takes ``move_ms`` + 150 ms over its first two answers (``slow``: paid from the bank)."""

import time

from _wire import action, play


def answer(turn: dict, count: int) -> list[dict]:
    if count < 2:
        time.sleep(turn["clock"]["move_ms"] / 1000 + 0.15)
    return [action(turn["seq"], 0)]


play(answer)
