"""The Happy Mochi rules engine: one game in progress (RULES.md sections 3-8, 10, 12, 13).

The state is plain lists of card ids plus a phase naming the decision awaited. Every answer is
applied by a handler that changes the state and then runs the rules forward (effects, end of
turn, end of round, next deal) until the next real decision. ``pending()`` is computed once per
state change. Hidden information is decided in two places only: :meth:`MochiState.view` and the
``only``/``private`` arguments of each ``EventLog.emit``.
"""

from __future__ import annotations

import bisect
import copy
import random
from typing import Any, ClassVar

from arena.games.base import (
    Decision,
    EventLog,
    IllegalChoice,
    Outcome,
    State,
    competition_ranks,
)
from arena.games.rng import KeyedRandom

from . import choices as ch
from .cards import CARD_COUNT, EFFECT, END_THRESHOLD, HAND_SIZE, NUMBER
from .rules import duo_value, is_happy_mochi, legal_duo_starts, same_colour

OVER = "over"


def _sign(direction: int) -> str:
    return "+" if direction > 0 else "-"


class MochiState(State):
    """A Happy Mochi game. Seats are clockwise; "left" of seat i is (i+1) mod n (RULES.md 2).

    Piles are lists with the top card last: ``tens`` is T, ``units`` is U, ``draw`` the face-down
    draw pile. ``holding[s]`` is a card seat s has taken but not yet inserted (D2/D8), so every
    card is always in exactly one of: a hand, a reserve, T, U, the draw pile, a holding slot.
    """

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        self._setup(players, options, KeyedRandom(seed))
        first = options["first_seat"]
        self.starter = first if first >= 0 else self.rng.randrange(players)  # 3.1 step 6, R25
        self.active = self.starter
        self.log.emit(
            {"type": "game_start", "players": players, "first_seat": self.starter, "direction": "+"}
        )
        self._start_round()

    @classmethod
    def blank(cls, players: int, options: dict[str, Any], rng: random.Random) -> MochiState:
        """An undealt state with empty zones, for positions to fill in (see ``position.py``)."""
        state = object.__new__(cls)
        state._setup(players, options, rng)
        return state

    def _setup(self, players: int, options: dict[str, Any], rng: random.Random) -> None:
        self.n = players
        self.rng = rng
        self.max_turns: int = options["max_turns_per_round"]
        self.max_rounds: int = options["max_rounds"]
        self.log = EventLog()
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.reserves: list[list[int]] = [[] for _ in range(players)]  # sorted by id
        self.holding: list[int | None] = [None] * players
        self.tens: list[int] = []
        self.units: list[int] = []
        self.draw: list[int] = []
        self.aside: list[int] = []  # out of this round (hand-written positions only), by id
        self.direction = 1  # +1 is '+', -1 is '-' (3.1 step 1)
        self.totals = [0] * players
        self.round_scores: list[list[int]] = []
        self.round_winners: list[int | None] = []
        self.round = 0
        self.starter = 0
        self.active = 0
        self.turns = 0  # turns completed this round (R33)
        self.passes = 0  # consecutive passes (R6)
        self.effects: list[str] = []  # effects of the current duo still to resolve (5.1)
        self.target: int | None = None  # force_draw target (D5)
        self.phase = OVER
        self.waiting: dict[int, ch.Options] = {}  # seat -> options, in seat order
        self.answers: dict[int, int] = {}  # buffered simultaneous answers
        self.end_reason: str | None = None
        self._pending: tuple[Decision, ...] | None = None

    # ------------------------------------------------------------------ contract

    def pending(self) -> tuple[Decision, ...]:
        if self._pending is None:
            phase, answers = self.phase, self.answers
            prompt = ch.PROMPTS.get(phase, "")
            self._pending = tuple(
                [
                    Decision(seat, phase, options, prompt)
                    for seat, options in self.waiting.items()
                    if seat not in answers
                ]
            )
        return self._pending

    def act(self, seat: int, choice: int) -> None:
        if isinstance(choice, bool) or not isinstance(choice, int):
            raise IllegalChoice(f"choice must be an integer index, got {choice!r}")
        options = self.waiting.get(seat)
        if options is None or seat in self.answers:
            raise IllegalChoice(f"seat {seat} has no pending decision (phase {self.phase})")
        if not 0 <= choice < len(options):
            raise IllegalChoice(
                f"choice {choice} out of range for {self.phase} (0..{len(options) - 1})"
            )
        self._pending = None
        if self.phase in ch.SIMULTANEOUS:
            self.answers[seat] = choice
            if len(self.answers) == len(self.waiting):
                answers = [(s, self.waiting[s][self.answers[s]]) for s in self.waiting]
                self.answers = {}
                self._HANDLERS[self.phase](self, answers)
            return
        self._HANDLERS[self.phase](self, seat, options[choice])

    def _table(self) -> dict[str, Any]:
        """The public table as a round starts and in every view: rows, direction and counts."""
        return {
            "starter": self.starter,
            "direction": _sign(self.direction),
            "T": self.tens[:],
            "U": self.units[:],
            "draw_size": len(self.draw),
            "hand_sizes": [len(h) for h in self.hands],
            "reserve_sizes": [len(r) for r in self.reserves],
        }

    def view(self, seat: int) -> dict[str, Any]:
        view: dict[str, Any] = {
            "seat": seat,
            "players": self.n,
            "round": self.round,
            "phase": self.phase,
            "active": self.active,
            "to_act": [d.seat for d in self.pending()],
            **self._table(),
            "totals": self.totals[:],
            "round_scores": [r[:] for r in self.round_scores],
            "turn": self.turns,
            "passes": self.passes,
            "effects_pending": self.effects[:],
            "hand": self.hands[seat][:],
            "reserve": self.reserves[seat][:],
        }
        if self.tens and self.units:
            view["main_duo"] = {
                "value": duo_value(self.tens[-1], self.units[-1]),
                "same_colour": same_colour(self.tens[-1], self.units[-1]),
            }
        if self.phase == ch.FORCE_DRAW_SOURCE or self.phase == ch.FORCE_DRAW_TARGET:
            view["force_draw_by"] = self.active
        if self.phase == ch.FORCE_DRAW_SOURCE:
            view["force_draw_target"] = self.target
        held = self.holding[seat]
        if held is not None:
            view["holding"] = held
        return view

    def outcome(self) -> Outcome:
        """Scores are negated minus points; ranks by ascending total, ties shared (section 8).

        Valid once the game is over; earlier it reports the standings so far.
        """
        return Outcome(
            scores=tuple(float(-t) for t in self.totals),
            ranks=competition_ranks(self.totals),
            details={
                "totals": self.totals[:],
                "round_scores": [r[:] for r in self.round_scores],
                "round_winners": self.round_winners[:],
                "rounds": len(self.round_scores),
                "end_reason": self.end_reason,
            },
        )

    def clone(self) -> MochiState:
        """A position copy: every zone copied, option maps shared (read-only), the log empty.

        Its cost does not grow with the game's length (only the per-round score rows do); like a
        loaded position, the copy's event cursors start again at 0.
        """
        new = object.__new__(MochiState)
        new.__dict__.update(self.__dict__)
        new.rng = copy.copy(self.rng)
        new.hands = [h[:] for h in self.hands]
        new.reserves = [r[:] for r in self.reserves]
        new.holding = self.holding[:]
        new.tens = self.tens[:]
        new.units = self.units[:]
        new.draw = self.draw[:]
        new.aside = self.aside[:]
        new.totals = self.totals[:]
        new.round_scores = [r[:] for r in self.round_scores]
        new.round_winners = self.round_winners[:]
        new.effects = self.effects[:]
        new.waiting = dict(self.waiting)
        new.answers = dict(self.answers)
        new.log = EventLog()
        return new

    def position(self) -> dict[str, Any]:
        from .position import write  # position.py builds on this module

        return write(self)

    # ------------------------------------------------------------------ decisions

    def _ask(self, kind: str, seat: int, options: ch.Options) -> None:
        self.phase = kind
        self.waiting = {seat: options}
        self._pending = None

    def _ask_all(self, kind: str) -> None:
        """A simultaneous decision (D7, D8, D11): every seat concerned at once, no answer yet."""
        self.phase = kind
        self.answers = {}
        self._reask()

    def _reask(self) -> None:
        """Ask the decision ``phase`` names, built from the zones (a loaded position's pending).

        ``turn`` starts the active seat's turn as the engine would (a stuck seat passes, R5).
        """
        phase, active = self.phase, self.active
        if phase == ch.TURN:
            self._start_turn()
        elif phase == ch.INSERT:
            holder = next(s for s, card in enumerate(self.holding) if card is not None)
            self._ask(phase, holder, ch.INSERT_OPTIONS[len(self.hands[holder])])
        elif phase == ch.EFFECT_ORDER:
            self._ask(phase, active, ch.effect_order_options(*self.effects))
        elif phase == ch.FORCE_DRAW_TARGET:
            self._ask(phase, active, ch.SEAT_OPTIONS[self.n])
        elif phase == ch.FORCE_DRAW_SOURCE:
            # the target is chosen before this phase is entered (D5)
            self._ask(phase, self.target, tuple(self._sources(self.target)))  # type: ignore[arg-type]
        elif phase in (ch.USE_PASS_LEFT, ch.USE_RESERVE):
            self._ask(phase, active, ch.YES_NO)
        elif phase == ch.RESERVE_CARD:
            self._ask(phase, active, ch.hand_options(self.hands[active]))
        elif phase == ch.PASS_CARD:
            self.waiting = {s: ch.hand_options(h) for s, h in enumerate(self.hands)}
        elif phase == ch.INSERT_RECEIVED:
            self.waiting = {s: ch.INSERT_OPTIONS[len(h)] for s, h in enumerate(self.hands)}
        elif phase == ch.ROUND_RESERVE:
            self.waiting = {s: ch.hand_options(h) for s, h in enumerate(self.hands) if h}
        else:
            self.waiting = {}
        self._pending = None

    def _turn_options(self, seat: int) -> ch.Options:
        """D1: legal duos (ascending index), then legal draw sources (RULES.md 12)."""
        hand = self.hands[seat]
        starts = legal_duo_starts(hand, self.tens[-1], self.units[-1], self.direction)
        return tuple(ch.play_options(hand, starts) + self._sources(seat))

    def _sources(self, seat: int) -> list[dict[str, Any]]:
        return ch.source_options(self.tens, self.units, len(self.draw), self.reserves[seat])

    # ------------------------------------------------------------------ cards moving

    def _draw_top(self) -> int:
        """Pop the draw pile's top card, reshuffling the covered cards first if empty (R4)."""
        if not self.draw:
            covered = self.tens[:-1] + self.units[:-1]
            del self.tens[:-1]
            del self.units[:-1]
            self.rng.shuffle(covered)
            self.draw = covered
            self.log.emit(
                {"type": "reshuffle", "cards": sorted(covered), "draw_size": len(covered)}
            )
        return self.draw.pop()

    def _take(self, seat: int, option: dict[str, Any], forced: bool) -> None:
        """Take a card from a legal source into ``holding[seat]`` (4.1; Note A, Note B, R3, R4)."""
        source = option["source"]
        event = {"type": "draw", "seat": seat, "source": source, "forced": forced}
        if source == "reserve":
            card = option["card"]
            self.reserves[seat].remove(card)
            self.log.emit(event, private={seat: {"card": card}})
        elif source == "pile":
            card = self._draw_top()
            self.log.emit(event, private={seat: {"card": card}})
        else:
            pile = self.tens if source == "T" else self.units
            card = pile.pop()
            event["card"] = card
            self.log.emit(event)
            if not pile:  # Note A: refill the emptied position, no effect triggers
                refill = self._draw_top()
                pile.append(refill)
                self.log.emit({"type": "refill", "pile": source, "card": refill})
        self.holding[seat] = card
        self._ask(ch.INSERT, seat, ch.INSERT_OPTIONS[len(self.hands[seat])])

    def _to_reserve(self, seat: int, index: int) -> int:
        card = self.hands[seat].pop(index)
        bisect.insort(self.reserves[seat], card)
        return card

    # ------------------------------------------------------------------ handlers

    def _on_turn(self, seat: int, option: dict[str, Any]) -> None:
        self.passes = 0
        if option["action"] == "draw":
            self._take(seat, option, forced=False)
            return
        hand = self.hands[seat]
        i = option["index"]
        left, right = hand[i], hand[i + 1]
        del hand[i : i + 2]
        self.tens.append(left)
        self.units.append(right)
        self.log.emit(
            {
                "type": "play",
                "seat": seat,
                "index": i,
                "cards": [left, right],
                "value": duo_value(left, right),
                "happy_mochi": is_happy_mochi(left, right),
            }
        )
        self.effects = [e for e in (EFFECT[left], EFFECT[right]) if e is not None]
        if len(self.effects) == 2 and self.effects[0] != self.effects[1]:
            # Note C: the player picks the order of two different effects (D3).
            self._ask(ch.EFFECT_ORDER, seat, ch.effect_order_options(*self.effects))
            return
        self._resolve_effects()

    def _on_effect_order(self, seat: int, option: dict[str, Any]) -> None:
        if option["first"] == "R":
            self.effects.reverse()
        self.log.emit({"type": "effect_order", "seat": seat, "first": option["first"]})
        self._resolve_effects()

    def _insert_held(self, seat: int, index: int, event: str) -> None:
        """Put the card ``seat`` is holding into its hand at ``index`` (D2, D8)."""
        card = self.holding[seat]
        self.holding[seat] = None
        self.hands[seat].insert(index, card)  # type: ignore[arg-type]  # asked only when held
        self.log.emit({"type": event, "seat": seat, "index": index})

    def _on_insert(self, seat: int, option: dict[str, Any]) -> None:
        self._insert_held(seat, option["index"], "insert")
        self._resolve_effects()

    def _on_force_draw_target(self, seat: int, option: dict[str, Any]) -> None:
        target = option["seat"]
        self.target = target
        self.log.emit({"type": "force_draw_target", "seat": seat, "target": target})
        sources = self._sources(target)
        if not sources:  # 5.3 step 5, R4: nothing happens
            self.log.emit({"type": "force_draw_skipped", "target": target})
            self._resolve_effects()
            return
        self._ask(ch.FORCE_DRAW_SOURCE, target, tuple(sources))

    def _on_force_draw_source(self, seat: int, option: dict[str, Any]) -> None:
        self._take(seat, option, forced=True)

    def _on_use_pass_left(self, seat: int, option: dict[str, Any]) -> None:
        self.log.emit(
            {"type": "use_effect", "seat": seat, "effect": "pass_left", "use": option["use"]}
        )
        if not option["use"]:
            self._resolve_effects()
            return
        self._ask_all(ch.PASS_CARD)

    def _on_pass_card(self, answers: list[tuple[int, dict[str, Any]]]) -> None:
        """D7 resolved: all chosen cards leave at once and go left (5.4 step 3)."""
        n = self.n
        given = [0] * n
        indices = [0] * n
        for seat, option in answers:
            indices[seat] = option["index"]
            given[seat] = self.hands[seat].pop(option["index"])
        for seat in range(n):
            self.holding[(seat + 1) % n] = given[seat]
        private = {s: {"gave": given[s], "received": given[(s - 1) % n]} for s in range(n)}
        self.log.emit({"type": "pass_left", "indices": indices}, private=private)
        self._ask_all(ch.INSERT_RECEIVED)

    def _on_insert_received(self, answers: list[tuple[int, dict[str, Any]]]) -> None:
        for seat, option in answers:
            self._insert_held(seat, option["index"], "insert_received")
        self._resolve_effects()

    def _on_use_reserve(self, seat: int, option: dict[str, Any]) -> None:
        self.log.emit(
            {"type": "use_effect", "seat": seat, "effect": "reserve", "use": option["use"]}
        )
        if option["use"]:
            self._ask(ch.RESERVE_CARD, seat, ch.hand_options(self.hands[seat]))
        else:
            self._resolve_effects()

    def _on_reserve_card(self, seat: int, option: dict[str, Any]) -> None:
        card = self._to_reserve(seat, option["index"])
        self.log.emit(
            {"type": "reserve", "seat": seat, "index": option["index"]},
            private={seat: {"card": card}},
        )
        self._resolve_effects()

    def _on_round_reserve(self, answers: list[tuple[int, dict[str, Any]]]) -> None:
        for seat, option in answers:
            card = self._to_reserve(seat, option["index"])
            self.log.emit(
                {"type": "round_reserve", "seat": seat, "index": option["index"]},
                private={seat: {"card": card}},
            )
        self._start_round()

    _HANDLERS: ClassVar[dict[str, Any]] = {
        ch.TURN: _on_turn,
        ch.INSERT: _on_insert,
        ch.EFFECT_ORDER: _on_effect_order,
        ch.FORCE_DRAW_TARGET: _on_force_draw_target,
        ch.FORCE_DRAW_SOURCE: _on_force_draw_source,
        ch.USE_PASS_LEFT: _on_use_pass_left,
        ch.PASS_CARD: _on_pass_card,
        ch.INSERT_RECEIVED: _on_insert_received,
        ch.USE_RESERVE: _on_use_reserve,
        ch.RESERVE_CARD: _on_reserve_card,
        ch.ROUND_RESERVE: _on_round_reserve,
    }

    # ------------------------------------------------------------------ flow

    def _resolve_effects(self) -> None:
        """Resolve the queued effects of the played duo in order, then end the turn (5.1-5.5).

        Effects were fixed when the duo was played, so they resolve even if their card has
        moved since (R13).
        """
        active = self.active
        while self.effects:
            effect = self.effects.pop(0)
            event: dict[str, Any] = {"type": "effect", "seat": active, "effect": effect}
            if effect == "flip":
                self.direction = -self.direction
                event["direction"] = _sign(self.direction)
                self.log.emit(event)
                continue
            if effect == "force_draw":
                self.log.emit(event)
                self._ask(ch.FORCE_DRAW_TARGET, active, ch.SEAT_OPTIONS[self.n])
                return
            usable = bool(self.hands[active])  # Note D; 5.5 step 3
            event["usable"] = usable
            self.log.emit(event)
            if usable:
                kind = ch.USE_PASS_LEFT if effect == "pass_left" else ch.USE_RESERVE
                self._ask(kind, active, ch.YES_NO)
                return
        self.target = None
        self._end_turn()

    def _end_turn(self) -> None:
        """4.3: an empty hand ends the round; else the next seat plays (R33 turn cap)."""
        self.turns += 1
        if not self.hands[self.active]:
            self._end_round(self.active, "out_of_cards")
        elif self.turns >= self.max_turns:
            self._end_round(None, "turn_cap")
        else:
            self.active = (self.active + 1) % self.n
            self._start_turn()

    def _start_turn(self) -> None:
        """Ask D1, or pass a stuck player (R5) and end a round of n passes as a stalemate (R6)."""
        while True:
            options = self._turn_options(self.active)
            if options:
                self._ask(ch.TURN, self.active, options)
                return
            self.log.emit({"type": "pass", "seat": self.active})
            self.passes += 1
            self.turns += 1
            if self.passes >= self.n:
                self._end_round(None, "stalemate")
                return
            if self.turns >= self.max_turns:
                self._end_round(None, "turn_cap")
                return
            self.active = (self.active + 1) % self.n

    def _end_round(self, winner: int | None, reason: str) -> None:
        """Section 6: score every hand, check the game end, then ask D11 (R21, R22)."""
        scores = [sum(NUMBER[c] for c in hand) for hand in self.hands]
        for seat, score in enumerate(scores):
            self.totals[seat] += score
        self.round_scores.append(scores)
        self.round_winners.append(winner)
        self.log.emit(
            {
                "type": "round_end",
                "round": self.round,
                "winner": winner,
                "reason": reason,
                "scores": scores,
                "hand_sizes": [len(h) for h in self.hands],
                "totals": self.totals[:],
            }
        )
        if max(self.totals) >= END_THRESHOLD:
            self._end_game("threshold")
        elif self.round >= self.max_rounds:
            self._end_game("max_rounds")
        else:
            self._ask_all(ch.ROUND_RESERVE)

    def _start_round(self) -> None:
        """3.1 / 3.2: shuffle every unreserved card and deal; a too-small deck ends the game."""
        self.round += 1
        if self.round_winners:
            # 3.2 step 4, R26: the winner's left neighbour begins; after a stalemate (R6),
            # the left neighbour of the previous starter.
            winner = self.round_winners[-1]
            self.starter = ((self.starter if winner is None else winner) + 1) % self.n
        reserved = bytearray(CARD_COUNT)
        for reserve in self.reserves:
            for card in reserve:
                reserved[card] = 1
        deck = [c for c in range(CARD_COUNT) if not reserved[c]]
        self.aside = []
        self.rng.shuffle(deck)
        n = self.n
        if len(deck) - 2 < n:  # 3.2 step 5: not every player can get a card
            self.round -= 1
            self.hands = [[] for _ in range(n)]
            self.tens, self.units, self.draw = [], [], deck
            self._end_game("deck_too_small")
            return
        if len(deck) >= HAND_SIZE * n + 2:
            # 3.1 steps 3-5: seven cards per seat, in dealt order (R30), then T, U, the pile.
            self.hands = [deck[s * HAND_SIZE : (s + 1) * HAND_SIZE] for s in range(n)]
            self.tens = [deck[HAND_SIZE * n]]
            self.units = [deck[HAND_SIZE * n + 1]]
            self.draw = deck[: HAND_SIZE * n + 1 : -1]  # top (last) = next card of the deck
        else:
            # 3.2 step 5: main duo first, then one card at a time from the starter.
            self.tens, self.units = [deck[0]], [deck[1]]
            self.hands = [[] for _ in range(n)]
            rest = deck[2:]
            for k, card in enumerate(rest):
                self.hands[(self.starter + k) % n].append(card)
            self.draw = []
        self.active = self.starter
        self.turns = 0
        self.passes = 0
        self.log.emit(
            {
                "type": "round_start",
                "round": self.round,
                **self._table(),
            },
            private={s: {"hand": self.hands[s][:]} for s in range(n)},
        )
        self._start_turn()

    def _end_game(self, reason: str) -> None:
        self.end_reason = reason
        self.phase = OVER
        self.waiting = {}
        self.answers = {}
        self._pending = None
        self.log.emit(
            {
                "type": "game_end",
                "reason": reason,
                "totals": self.totals[:],
                "ranks": list(competition_ranks(self.totals)),
            }
        )
