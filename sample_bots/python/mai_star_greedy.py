"""A greedy Mai-Star bot: plays the best-paying guest it can, otherwise advertises the card
that unlocks the most income in its hand, aims harmful effects at the leader and protects its
best guests with reactions.

Usage: python sample_bots/python/mai_star_greedy.py
Card data comes from the referee's welcome (game.data.customers), so nothing is hard-coded.
"""

from __future__ import annotations

from typing import Any

from protocol.bot import Bot, Turn, Welcome, run

SKILLS = ("performance", "service", "intelligence")
COLOUR_SKILL = {"red": "performance", "blue": "service", "green": "intelligence"}
GEISHA_PREFERENCE = ("Oboro", "Momiji", "Natsumi", "Akenohoshi", "Suzune", "Harukaze")
# Extra worth of a guest's effect, on top of its income, when the bot picks what to play.
EFFECT_BONUS = {
    "doctor_extra_turn": 4,
    "courtier_extra_guest_same_colour": 2,
    "shogun_whole_hand_becomes_guests": 4,
    "monk_discard_own_hand": 2,
    "daimyo_matching_advertisers_become_guests": 2,
    "samurai_take_newest_guest": 3,
    "thief_discard_newest_guest": 2,
}


class MaiStarGreedy(Bot):
    """One-ply heuristics per decision kind; see the module docstring."""

    cards: dict[str, dict[str, Any]]  # customer cards by id, from welcome.game.data

    def on_welcome(self, welcome: Welcome) -> None:
        super().on_welcome(welcome)
        self.cards = {c["id"]: c for c in welcome.game["data"]["customers"]}

    def _best_income(self, hand: list[str], rep: dict[str, int]) -> int:
        return max((self.income(c) for c in hand if self.playable(c, rep)), default=0)

    def income(self, card: str) -> int:
        return self.cards[card]["income"]

    def playable(self, card: str, rep: dict[str, int]) -> bool:
        c = self.cards[card]
        if c["requirement_type"] == "colour":
            return rep[COLOUR_SKILL[c["color"]]] >= c["requirement"]
        if c["requirement_type"] == "any":
            return max(rep.values()) >= c["requirement"]
        return False

    def choose(self, turn: Turn) -> int:
        handler = getattr(self, f"_{turn.kind}", None)
        if handler is None:
            return 0
        scores = [handler(turn.view, option) for option in turn.options]
        return max(range(len(scores)), key=lambda i: scores[i])

    # ----- helpers --------------------------------------------------------------------------

    def _me(self, view: dict[str, Any]) -> dict[str, Any]:
        return view["tables"][view["seat"]]

    def _unlock_value(self, view: dict[str, Any], advertised: str) -> float:
        """Income in hand that becomes playable once ``advertised`` adds its power."""
        rep = dict(self._me(view)["reputation"])
        before = {c for c in view["hand"] if self.playable(c, rep)}
        for skill in SKILLS:
            rep[skill] += self.cards[advertised]["advertisement"][skill]
        rest = list(view["hand"])
        rest.remove(advertised)
        return sum(self.income(c) for c in set(rest) if self.playable(c, rep) and c not in before)

    def _threat(self, view: dict[str, Any], seat: int) -> float:
        """How much hurting ``seat`` is worth: other players, the leader first."""
        if seat == view["seat"]:
            return -100.0
        table = view["tables"][seat]
        return table["total"] + sum(self.income(c) for c in table["guests"]) / 2

    # ----- decisions, one method per kind: higher score = preferred option --------------------

    def _geisha(self, view: dict[str, Any], option: dict[str, Any]) -> float:
        return -GEISHA_PREFERENCE.index(option["geisha"])

    def _action(self, view: dict[str, Any], option: dict[str, Any]) -> float:
        action = option["action"]
        if action == "guest":
            card = self.cards[option["card"]]
            return 2 + card["income"] + EFFECT_BONUS.get(card["effect_id"], 0)
        if action == "advertise":
            card = option["card"]
            return 1 + 0.6 * self._unlock_value(view, card) - 0.5 * self.income(card)
        return -1.0

    def _effect(self, view: dict[str, Any], option: dict[str, Any]) -> float:
        action = option["action"]
        if action == "decline":
            return 0.0
        if action == "target":
            return self._threat(view, option["target"]) / 10 + 0.5
        if action == "guest":
            return 1 + self.income(option["card"])
        if action == "advertise":
            return 1 - self.income(option["card"]) / 10
        return 1.0  # plain "use": Doctor, Daimyo, Monk, Shogun

    _momiji = _effect

    def _natsumi(self, view: dict[str, Any], option: dict[str, Any]) -> float:
        return self.income(option["card"]) if option["action"] == "guest" else 0.5

    def _reaction(self, view: dict[str, Any], option: dict[str, Any]) -> float:
        me = self._me(view)
        at_stake = self.income(me["guests"][-1]) if me["guests"] else 0
        if option["action"] == "decline":
            return 2.5
        if option["action"] == "ronin":
            return at_stake - option["position"] / 10
        return at_stake - 0.5

    def _sumo_discard(self, view: dict[str, Any], option: dict[str, Any]) -> float:
        own = view.get("active") == view["seat"] and option["card"] in view["hand"]
        return -self.income(option["card"]) if own else self.income(option["card"])

    def _worst_card(self, view: dict[str, Any], option: dict[str, Any]) -> float:
        return -self.income(option["card"])

    _introduce_first = _worst_card
    _harukaze_bottom_first = _worst_card
    _harukaze_bottom_second = _worst_card
    _harukaze_discard = _worst_card
    _exchange_hand = _worst_card

    def _introduce_second(self, view: dict[str, Any], option: dict[str, Any]) -> float:
        return 0.0 if option["action"] == "stop" else -self.income(option["card"])

    def _pre_action(self, view: dict[str, Any], option: dict[str, Any]) -> float:
        if option["action"] == "boost":
            rep = dict(self._me(view)["reputation"])
            skill = COLOUR_SKILL[option["colour"]]
            now = self._best_income(view["hand"], rep)
            rep[skill] += 3
            return self._best_income(view["hand"], rep) - now - 2
        return 0.0


if __name__ == "__main__":
    run(MaiStarGreedy())
