"""On its second turn picks index ``len(options)``, one past the last (``illegal_action``)."""

from _wire import action, play


def answer(turn: dict, count: int) -> list[dict]:
    return [action(turn["seq"], len(turn["options"]) if count == 1 else 0)]


play(answer)
