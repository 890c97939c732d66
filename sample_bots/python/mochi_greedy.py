"""A simple heuristic Happy Mochi bot: shed high cards fast, keep pairs together.

Usage: python sample_bots/python/mochi_greedy.py

Heuristics, one per decision kind (see arena/games/happy_mochi/README.md):
- turn: play the legal duo shedding the most points (a Happy Mochi is kept for later when another
  duo is playable); otherwise draw the cheapest known card (main-duo tops, own reserve, counting a
  card that completes a Happy Mochi as cheap), or the pile when every known card is expensive;
- insert / insert_received: put the card where the hand gets the most same-number neighbours
  (future Happy Mochis) and same-colour neighbours (duos that pass the colour condition);
- force_draw_target: the opponent with the fewest hand cards;
- use_pass_left / use_reserve: always; pass_card / reserve_card: the highest card;
- round_reserve: the lowest card (a cheap, known card to draw back in a later round).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from protocol.bot import Bot, Turn, Welcome, run

PILE_EXPECTED = 4.5  # the mean card number, what an unknown draw costs
HAPPY_MOCHI_SAVE = 5  # play a Happy Mochi only when nothing else is playable, or when it wins
EFFECT_BONUS = {"reserve": 3, "force_draw": 2, "pass_left": 1, "flip": 0, None: 0}


class MochiGreedy(Bot):
    cards: list[list[Any]]  # [number, colour, effect] by card id, from welcome.game.data

    def on_welcome(self, welcome: Welcome) -> None:
        super().on_welcome(welcome)
        self.cards = welcome.game["data"]["cards"]

    def choose(self, turn: Turn) -> int:
        handler = getattr(self, f"_{turn.kind}", None)
        if handler is None:
            return 0
        return handler(turn.options, turn.view)

    # --- helpers -------------------------------------------------------------------

    def _number(self, view: dict[str, Any], card: int) -> int:
        return self.cards[card][0]

    def _potential(self, view: dict[str, Any], hand: Sequence[int]) -> int:
        """How promising a hand order is: same-number and same-colour neighbours."""
        cards = self.cards
        score = 0
        for left, right in pairwise(hand):
            if cards[left][0] == cards[right][0]:
                score += 10
            elif cards[left][1] == cards[right][1]:
                score += 2
        return score

    def _draw_cost(self, view: dict[str, Any], option: dict[str, Any]) -> float:
        if option["source"] == "pile":
            return PILE_EXPECTED
        card = option["card"]
        numbers = {self._number(view, c) for c in view["hand"]}
        cost = float(self._number(view, card))
        return cost - 6 if self._number(view, card) in numbers else cost

    def _best_draw(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        draws = [i for i, o in enumerate(options) if o.get("action") == "draw"]
        return min(draws, key=lambda i: self._draw_cost(view, options[i]))

    def _highest(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        return max(range(len(options)), key=lambda i: self._number(view, options[i]["card"]))

    # --- one method per decision kind ----------------------------------------------

    def _turn(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        hand, cards = view["hand"], self.cards
        plays = [i for i, o in enumerate(options) if o["action"] == "play"]
        if not plays:
            return self._best_draw(options, view)
        only_mochis = all(options[i]["happy_mochi"] for i in plays)

        def value(i: int) -> float:
            k = options[i]["index"]
            left, right = hand[k], hand[k + 1]
            score = cards[left][0] + cards[right][0]
            score += EFFECT_BONUS[cards[left][2]] + EFFECT_BONUS[cards[right][2]]
            if len(hand) == 2:
                score += 100
            elif options[i]["happy_mochi"] and not only_mochis:
                score -= HAPPY_MOCHI_SAVE
            return score

        return max(plays, key=value)

    _force_draw_source = _best_draw

    def _insert(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        hand, card = view["hand"], view["holding"]
        return max(
            range(len(options)),
            key=lambda i: (self._potential(view, [*hand[:i], card, *hand[i:]]), i),
        )

    _insert_received = _insert

    def _effect_order(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        return 0

    def _force_draw_target(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        sizes, me = view["hand_sizes"], view["seat"]
        others = [i for i, o in enumerate(options) if o["seat"] != me]
        return min(others, key=lambda i: (sizes[options[i]["seat"]], i))

    def _use_pass_left(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        return next(i for i, o in enumerate(options) if o["use"])

    _use_reserve = _use_pass_left
    _pass_card = _highest
    _reserve_card = _highest

    def _round_reserve(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        return min(range(len(options)), key=lambda i: self._number(view, options[i]["card"]))


if __name__ == "__main__":
    run(MochiGreedy())
