"""A greedy Mottainai bot: complete works whenever it can, otherwise build toward them.

Usage: python sample_bots/python/mottainai_greedy.py
It reads only the turn message (options and view); see arena/games/mottainai/README.md.
"""

from __future__ import annotations

from typing import Any

from protocol.bot import Bot, Turn, run

VALUE = {"Paper": 1, "Stone": 2, "Cloth": 2, "Clay": 3, "Metal": 3}
AVOID = ("Cup", "Puppet")  # effects that can backfire without a deeper look


class MottainaiGreedy(Bot):
    """One-step heuristics per decision kind; no search."""

    def choose(self, turn: Turn) -> int:
        handler = getattr(self, "_" + turn.kind, None)
        if handler is None:
            return 0
        return int(handler(turn.options, turn.view))

    # ----- helpers ------------------------------------------------------------------------------

    @staticmethod
    def _me(view: dict[str, Any]) -> dict[str, Any]:
        return view["seats"][view["seat"]]

    def _count(self, view: dict[str, Any], zone: str, material: str) -> int:
        return sum(1 for c in self._me(view).get(zone, []) if c["material"] == material)

    @staticmethod
    def _best(options: list[dict[str, Any]], score: Any) -> int:
        return max(range(len(options)), key=lambda i: (score(options[i]), -i))

    # ----- decisions ----------------------------------------------------------------------------

    def _action(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        hand = len(self._me(view).get("hand", []))

        def score(o: dict[str, Any]) -> int:
            if o["action"] == "craft":
                return 3
            if o["action"] == "task":
                return 1 if o["task"] == "Tailor" and hand >= 4 else 2
            return 1 if hand < 5 else 0

        return self._best(options, score)

    def _new_task(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        def score(o: dict[str, Any]) -> float:
            if o.get("choice") != "hand":
                return 0.5 if o.get("choice") == "doll" else -1
            mat = o["material"]
            same = self._count(view, "hand", mat)
            return 2 * self._count(view, "helpers", mat) + same + (2 if mat == "Metal" else 0)

        return self._best(options, score)

    def _work(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        return self._best(options, lambda o: o.get("value", 0))

    _smith_work = _craft_work = _work

    def _wing(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        mat = options[0]["material"]
        gallery = self._count(view, "helpers", mat) >= self._count(view, "sales", mat)
        return self._best(options, lambda o: (o["wing"] == "gallery") == gallery)

    def _gather(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        def score(o: dict[str, Any]) -> int:
            if "card" not in o:
                return 2
            return VALUE[o["material"]] + 2 * self._count(view, "hand", o["material"])

        return self._best(options, score)

    _monk = _potter = _gather

    def _clerk(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        return self._best(options, lambda o: VALUE.get(o.get("material", ""), 2))

    def _use_effect(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        return self._best(
            options, lambda o: o.get("choice") == "use" and o.get("effect") not in AVOID
        )

    _morning_effect = _after_effect = _tailor_effect = _night_effect = _use_effect

    def _return_low(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        return self._best(options, lambda o: -o.get("value", 9))

    _hand_limit = _return_low

    def _tailor_return(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        if len(options) > 4:
            return self._return_low(options[1:], view) + 1
        return 0

    def _reveal(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        return 1 if len(options) > 1 else 0

    _obstruction_reveal = _fountain_reveal = _figurine_reveal = _flag_reveal = _reveal

    def _take_best(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        return self._best(options, lambda o: o.get("value", -1))

    _statue_pick = _vase_pick = _amulet_card = _ring_card = _sword_card = _take_best
    _shuriken_work = _flute_target = _cloak_work = _take_best

    def _dice_complete(self, options: list[dict[str, Any]], view: dict[str, Any]) -> int:
        return len(options) - 1


if __name__ == "__main__":
    run(MottainaiGreedy())
