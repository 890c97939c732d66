"""Sends ``choice`` as a string in its second action (a wrong type: ``bad_field``)."""

from _wire import action, play


def answer(turn: dict, count: int) -> list[dict]:
    return [action(turn["seq"], "0" if count == 1 else 0)]


play(answer)
