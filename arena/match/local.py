"""Play a match in-process between Python :class:`protocol.bot.Bot` objects, without the referee.

Bots see exactly what the referee would send them (the same turn message, built by the same
code), but no process, socket or clock is involved. Tests and benchmarks use it to compare
strategies quickly; real matches go through :mod:`arena.match.referee`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import Game, State
from arena.match.referee import game_info
from protocol import messages
from protocol.bot import Bot, Welcome, turn_from_message


def play_local(
    game: Game,
    bots: Sequence[Bot],
    seed: int,
    options: Mapping[str, Any] | None = None,
    ask_forced: bool = False,
) -> State:
    """Play one game to the end and return the final state.

    A decision with a single option is applied without asking, as the referee does, unless
    ``ask_forced``.
    """
    players = len(bots)
    state = game.new(players, seed, options)
    resolved = game.resolve_options(options, players)
    info = game_info(game, resolved)
    for seat, bot in enumerate(bots):
        bot.on_welcome(Welcome("local", seat, players, info, {}))
    cursors = [0] * players
    seq = 0
    while pending := state.pending():
        decision = pending[0]
        if len(decision.options) == 1 and not ask_forced:
            state.act(decision.seat, 0)
            continue
        seq += 1
        seat = decision.seat
        events, cursors[seat] = state.events_since(seat, cursors[seat])
        msg = messages.turn(
            seq,
            decision.kind,
            decision.prompt,
            list(decision.options),
            state.view(seat),
            events,
            {},
        )
        state.act(seat, bots[seat].choose(turn_from_message(msg)))
    outcome = state.outcome().as_dict()
    for seat, bot in enumerate(bots):
        bot.final_view = state.view(seat)
        bot.on_game_over(outcome, "ok")
    return state
