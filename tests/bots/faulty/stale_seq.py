"""On its second turn answers with ``seq - 1`` first, then correctly (``stale_seq``, not fatal)."""

from _wire import action, play


def answer(turn: dict, count: int) -> list[dict]:
    good = action(turn["seq"], 0)
    return [action(turn["seq"] - 1, 0), good] if count == 1 else [good]


play(answer)
