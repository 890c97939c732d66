"""Forgets ``seq`` in its third action (a missing field: ``bad_field``)."""

from _wire import action, play


def answer(turn: dict, count: int) -> list[dict]:
    return [action(None if count == 2 else turn["seq"], 0)]


play(answer)
