"""A greedy Motora bot: keeps its tribe fed and sheltered, avoids fights, fetches nearby idols.

Usage: python sample_bots/python/motora_greedy.py
It reads only the turn message (view and options; see arena/games/motora/README.md), scores each
option with a few hand-written rules and picks the best; ties go to the first option.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from protocol.bot import Bot, Turn, Welcome, run

HARMFUL_EVENTS = ("npe", "placed_member", "consumption")
NOT_FED = ("prisoner", "dead_on_shrine", "removed")  # own members that eat nothing


class MotoraGreedy(Bot):
    """One-step lookahead on hand-written values; never pays shelter it may need to survive."""

    def on_welcome(self, welcome: Welcome) -> None:
        """Keep the static island data (tiles and neighbours) sent once in ``welcome``."""
        super().on_welcome(welcome)
        data = welcome.game["data"]
        self.tiles = {t["id"]: t for t in data["tiles"]}
        self.near = {p["position"]: p for p in data["positions"]}
        self.member_fields = data["member_fields"]
        self.idol_fields = data["idol_fields"]
        self.tribe_fields = data["tribe_fields"]

    def choose(self, turn: Turn) -> int:
        handler = getattr(self, "_" + turn.kind, None)
        if handler is None or len(turn.options) == 1:
            return 0
        scores = [handler(option, turn.view) for option in turn.options]
        return max(range(len(scores)), key=lambda i: (scores[i], -i))

    # ------------------------------------------------------------------ helpers
    def _me(self, view: dict[str, Any]) -> dict[str, Any]:
        """The bot's own tribe row as a map, named by the welcome's ``tribe_fields``."""
        return dict(zip(self.tribe_fields, view["tribes"][view["seat"]], strict=True))

    def _members(self, view: dict[str, Any]) -> list[dict[str, Any]]:
        """The view's compact member rows as maps, named by the welcome's ``member_fields``."""
        return [dict(zip(self.member_fields, row, strict=True)) for row in view["members"]]

    def _idols(self, view: dict[str, Any]) -> list[dict[str, Any]]:
        """The view's idol rows as maps, named by the welcome's ``idol_fields``."""
        return [dict(zip(self.idol_fields, row, strict=True)) for row in view["idols"]]

    def _upkeep(self, view: dict[str, Any]) -> int:
        seat = view["seat"]
        return sum(
            1 for m in self._members(view) if m["tribe"] == seat and m["state"] not in NOT_FED
        )

    def _want(self, view: dict[str, Any], resource: str) -> float:
        """How much one more unit of ``resource`` is worth now (scarcer = more)."""
        me = self._me(view)
        need = 2 if resource == "shelter" else self._upkeep(view)
        stock = me[resource]
        if stock < need:
            return 3.0
        if stock < 2 * need:
            return 1.5
        return 0.4

    def _distance(self, view: dict[str, Any], start: str, goal: str) -> int:
        seen = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if here == goal:
                return seen[here]
            for nxt in self.near[here]["neighbours"]:
                if nxt not in seen:
                    seen[nxt] = seen[here] + 1
                    queue.append(nxt)
        return 99

    def _mine_at(self, view: dict[str, Any], pos: str) -> int:
        seat = view["seat"]
        return sum(1 for m in self._members(view) if m["tribe"] == seat and m["position"] == pos)

    def _others_at(self, view: dict[str, Any], pos: str) -> int:
        seat = view["seat"]
        return sum(1 for m in self._members(view) if m["tribe"] != seat and m["position"] == pos)

    # ------------------------------------------------------------------ decisions
    def _village(self, option: dict[str, Any], view: dict[str, Any]) -> float:
        return option["water"] + 0.5 * option["shelter"]

    def _gear(self, option: dict[str, Any], view: dict[str, Any]) -> float:
        return 0.0 if option["gear"] is None else 1.0

    def _place(self, option: dict[str, Any], view: dict[str, Any]) -> float:
        pos, cost = option["position"], option["cost"]
        me = self._me(view)
        board = view["board"]
        tile = self.tiles[board["tile"][pos]]
        score = -3.0 * cost if me["shelter"] - cost < 3 else -1.0 * cost
        score -= 4.0 * self._others_at(view, pos)
        mine = self._mine_at(view, pos)
        if pos == me["village"]:
            return score + (8.0 if mine == 0 else 0.5)
        idols = [i for i in self._idols(view) if i["position"] == pos and not i["moved"]]
        if idols and mine < 2:
            score += 7.0 - 2.0 * cost
        if pos in board["owner"]:
            return score - 6.0  # someone else's village: a fight at +1 for them
        if mine == 0 and pos not in board["destroyed"]:
            best = max(
                (o["amount"] * self._want(view, o["resource"]) for o in tile["gather"]), default=0
            )
            if tile["special"] in ("craftsmen_hut", "temple"):
                best = 2.5
            score += best
        fishing = len(self.near[pos]["fishing"])
        score += 1.2 * max(0, fishing - mine) * self._want(view, "food")
        return score

    def _action(self, option: dict[str, Any], view: dict[str, Any]) -> float:
        kind = option["action"]
        if kind == "transport":
            return 20.0
        if kind == "gather":
            if "draw" in option:
                return 2.5
            value = option["amount"] * self._want(view, option["resource"])
            return value - (2.0 if option["risky"] else 0.0)
        if kind == "fish":
            return option["amount"] * self._want(view, "food")
        if kind == "recruit":
            me = self._me(view)
            return 4.0 if min(me["food"], me["water"]) > 2 * self._upkeep(view) else -1.0
        return 0.0

    def _idol_step(self, option: dict[str, Any], view: dict[str, Any]) -> float:
        if option["position"] is None:
            return -50.0
        home = self._me(view)["village"]
        owner = view["board"]["owner"].get(option["position"])
        if owner is not None and owner != view["seat"]:
            return -100.0
        return -float(self._distance(view, option["position"], home))

    def _idol_shrine(self, option: dict[str, Any], view: dict[str, Any]) -> float:
        return 1.0 if option["shrine"] == "life" else 0.0

    def _dead_shrine(self, option: dict[str, Any], view: dict[str, Any]) -> float:
        return self._idol_shrine(option, view)

    def _victim(self, option: dict[str, Any], view: dict[str, Any]) -> float:
        order = ("seriously_injured", "next_serious", "injured", "next_injured")
        return float(order.index(option["state"]) * -1 + 5) if option["state"] in order else 0.0

    def _sufferer(self, option: dict[str, Any], view: dict[str, Any]) -> float:
        return -(2.0 if option["gear"] else 0.0) - (1.0 if option["home_first"] else 0.0)

    def _raid(self, option: dict[str, Any], view: dict[str, Any]) -> float:
        values = {"idol": 10.0, "rescue": 6.0, "steal_gear": 2.0, "decline": -1.0}
        if option["option"] in values:
            return values[option["option"]]
        resource = {"steal_food": "food", "steal_water": "water"}.get(option["option"])
        if resource is None:
            return 0.5
        return min(3.5, option["available"]) * self._want(view, resource)

    def _reroll(self, option: dict[str, Any], view: dict[str, Any]) -> float:
        if option["action"] == "dart":
            return 3.0
        if option["action"] == "reroll":
            return 3.5 - option["value"]
        return 0.0

    def _appease(self, option: dict[str, Any], view: dict[str, Any]) -> float:
        event = view.get("current_event") or {}
        harmful = event.get("kind") in HARMFUL_EVENTS or event.get("kind") == "destroy_tile"
        return 1.0 if option["play"] == harmful else 0.0

    def _window(self, option: dict[str, Any], view: dict[str, Any]) -> float:
        action = option["action"]
        if action == "pass":
            return 0.0
        if action == "cannibalise":
            return 1.0 if self._want(view, "food") > 1 else -1.0
        if action == "sacrifice":
            return 2.0 if option["shrine"] == "life" else 1.5
        if "target" in option and isinstance(option["target"], int):
            return 1.0  # a curse on another tribe
        if (
            "target" in option
            and isinstance(option["target"], str)
            and option["name"]
            in (
                "Poisoned Well",
                "Curse of Desolation",
            )
        ):
            return -1.0  # blind tile attacks may hurt us
        return 2.0

    _start_of_turn = _window
    _before_consumption = _window


if __name__ == "__main__":
    run(MotoraGreedy())
