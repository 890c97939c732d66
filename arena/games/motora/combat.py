"""Fights between tribes and against NPEs, and the combat phase (RULES.md 7.9, 8).

A fight is one procedure for both cases: the NPE is a side that rolls 2d6 plus its modifier,
never rerolls and can be the target of a Poisoned Dart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .board import BOARD
from .cards import CARDS, public_card
from .model import NEXT_INJURED, NEXT_SERIOUS, PLACED, PRISONER, REMOVED, RETURNED, Member
from .raids import raid
from .victory import check

if TYPE_CHECKING:
    from .state import Flow, MotoraState

NPE = "npe"


def gear_total(st: MotoraState, pos: str, seat: int, effect: str) -> int:
    """Sum of ``amount`` over gear of ``effect`` carried by the tribe's members on ``pos``."""
    total = 0
    for m in st.placed_at(pos, seat):
        if m.gear is not None and CARDS[m.gear].effect == effect:
            total += int(CARDS[m.gear].params.get("amount", 1))
    return total


def modifier(st: MotoraState, seat: int, pos: str) -> int:
    """RULES.md 8.4 without darts: home, Death bonus, Warrior Blades, this turn's card effects."""
    home = 1 if st.owner.get(pos) == seat else 0
    return (
        home
        + st.bonus(seat, "death")
        + gear_total(st, pos, seat, "combat_bonus")
        + st.tribes[seat].combat_mod
    )


def darts_held(st: MotoraState, seat: int) -> list[int]:
    return [u for u in st.unattached(seat) if CARDS[u].effect == "combat_modifier_on_opponent"]


def fight(st: MotoraState, pos: str, seats: list[int], npe: int | None = None) -> Flow:
    """Roll, reroll stage, totals, ties (RULES.md 8.3, 7.9). Returns (winner, totals).

    ``seats`` are the tribes in turn order; with ``npe`` set (its modifier) the single tribe
    fights the NPE, whose key in the returned totals is ``"npe"``. The frame holds, per side (in
    the order of ``sides``), the dice, rerolls left, dart penalties and modifiers.
    """
    sides: list[Any] = [*seats, NPE] if npe is not None else list(seats)
    frame = st.enter(
        "fight",
        sides=sides,
        rerolls=[
            len(st.placed_at(pos, s)) - 1 + gear_total(st, pos, s, "extra_reroll") for s in seats
        ],
        darts=[0] * len(sides),  # total penalty from Poisoned Darts
        dice=None,
        mods=None,
        i=0,
        acted=False,
    )
    rerolls, darts = frame["rerolls"], frame["darts"]
    while True:
        if frame["dice"] is None:
            # the reroll stage cannot change a modifier (darts are counted apart): compute them once
            frame["mods"] = [int(npe or 0) if s == NPE else modifier(st, s, pos) for s in sides]
            rolled = [[st.rng.randint(1, 6), st.rng.randint(1, 6)] for _ in sides]
            frame.update(dice=rolled, i=0, acted=False)
            st.emit({"type": "fight_roll", "site": pos, "dice": _dice_list(sides, rolled)})
        dice, mods = frame["dice"], frame["mods"]
        while True:
            while frame["i"] < len(seats):
                k = frame["i"]
                seat = seats[k]
                options: list[dict[str, Any]] = [{"action": "pass"}]
                if rerolls[k] > 0:
                    options += [{"action": "reroll", "die": i, "value": dice[k][i]} for i in (0, 1)]
                held = darts_held(st, seat)
                if held:
                    options += [
                        {"action": "dart", "target": t, "card": held[0]} for t in sides if t != seat
                    ]
                _show(st, pos, frame, npe)
                pick = yield from st.ask(
                    seat, "reroll", options, "Reroll a die, play a dart or pass."
                )
                frame["i"] += 1
                if pick["action"] == "pass":
                    continue
                frame["acted"] = True
                if pick["action"] == "reroll":
                    rerolls[k] -= 1
                    value = st.rng.randint(1, 6)
                    dice[k][pick["die"]] = value
                    st.emit(
                        {
                            "type": "reroll",
                            "site": pos,
                            "seat": seat,
                            "die": pick["die"],
                            "roll": value,
                        }
                    )
                else:
                    uid = pick["card"]
                    st.tribes[seat].hand.remove(uid)
                    st.to_bottom(uid)
                    darts[sides.index(pick["target"])] -= int(CARDS[uid].params["amount"])
                    st.emit(
                        {
                            "type": "card_played",
                            "seat": seat,
                            "card": public_card(uid),
                            "target": pick["target"],
                        }
                    )
            if not frame["acted"]:
                break
            frame.update(i=0, acted=False)
        totals = {s: sum(dice[k]) + mods[k] - darts[k] for k, s in enumerate(sides)}
        best = max(totals.values())
        top = [s for s in sides if totals[s] == best]
        st.emit(
            {
                "type": "fight_totals",
                "site": pos,
                "totals": [{"side": s, "total": totals[s]} for s in sides],
            }
        )
        if len(top) == 1:
            st.fight = None
            st.leave()
            return top[0], totals
        st.emit({"type": "fight_tie", "site": pos})
        frame["dice"] = None


def _dice_list(sides: list[Any], dice: list[list[int]]) -> list[dict[str, Any]]:
    return [{"side": s, "dice": list(d)} for s, d in zip(sides, dice, strict=True)]


def _show(st: MotoraState, pos: str, frame: dict[str, Any], npe: int | None) -> None:
    """Publish the running fight in the view (everyone sees all dice) before each reroll ask."""
    rerolls = frame["rerolls"]
    st.fight = {
        "site": pos,
        "npe_modifier": npe,
        "sides": [
            {
                "side": s,
                "dice": list(frame["dice"][k]),
                "rerolls": rerolls[k] if s != NPE else 0,
                "darts": frame["darts"][k],
                "modifier": npe if s == NPE else frame["mods"][k],
            }
            for k, s in enumerate(frame["sides"])
        ],
    }


def suffer(
    st: MotoraState,
    pos: str,
    seat: int,
    diff: int,
    captor: int | None,
    target: Member | None,
    why: str,
) -> Flow:
    """RULES.md 8.5: one member suffers the result for ``diff``.

    In a fight between tribes (``target`` None, ``captor`` the winner) the tribe picks the sufferer
    and its other members go to RETURNED. Against an NPE (``captor`` None) only the sufferer is
    affected, and a capture result kills.
    """
    members = st.placed_at(pos, seat)
    versus_npe = captor is None
    victim = target
    if victim is None:
        if len(members) == 1 or diff <= 2:
            victim = members[0]
        else:
            options = [
                {
                    "member": m.id,
                    "placed_index": m.placed_index,
                    "gear": public_card(m.gear) if m.gear is not None else None,
                    "home_first": m.home_first,
                }
                for m in members
            ]
            pick = yield from st.ask(seat, "sufferer", options, "Which member suffers the loss?")
            victim = st.members[pick["member"]]
    if not versus_npe:
        for m in members:
            if m is not victim:
                st.leave_board(m, RETURNED, why)
    if diff <= 2:
        st.leave_board(victim, RETURNED, why)
    elif diff <= 4:
        st.leave_board(victim, NEXT_INJURED, why)
    elif diff <= 6:
        st.leave_board(victim, NEXT_SERIOUS, why)
    elif diff <= 8 or captor is None:
        st.leave_board(victim, REMOVED, why)
    else:
        capture(st, victim, captor)


def capture(st: MotoraState, member: Member, captor: int) -> None:
    """A 9+ result: the member becomes the winner's prisoner; its gear goes to the captor."""
    gear = member.gear
    if gear is not None:
        st.tribes[member.tribe].hand.remove(gear)
        st.tribes[captor].hand.append(gear)
    member.state = PRISONER
    member.pos = None
    member.gear = None
    member.captor = captor
    member.captured_this_turn = True
    st.emit(
        {
            "type": "captured",
            "seat": member.tribe,
            "member": member.id,
            "captor": captor,
            "gear": public_card(gear) if gear is not None else None,
        }
    )


def shields(st: MotoraState, pos: str, seat: int) -> int:
    return gear_total(st, pos, seat, "reduce_loss_difference")


def npe_fight(
    st: MotoraState, seat: int, pos: str, target: Member | None, params: dict[str, Any], name: str
) -> Flow:
    """RULES.md 7.9: the tribe's members on ``pos`` against an NPE; only one member suffers."""
    fresh = not st.resuming()
    frame = st.enter("npe_fight", step="fight", diff=0)
    if fresh:
        st.emit(
            {
                "type": "npe_fight",
                "seat": seat,
                "site": pos,
                "npe": name,
                "target": target.id if target is not None else None,
            }
        )
    if frame["step"] == "fight":
        winner, totals = yield from fight(st, pos, [seat], int(params.get("npe_modifier", 0)))
        if winner == seat:
            st.leave()
            reward = (params.get("on_player_win") or {}).get("gain", {})
            for resource, amount in reward.items():
                st.gain(seat, resource, int(amount), name)
            return
        frame.update(
            step="suffer", diff=max(1, totals[NPE] - totals[seat] - shields(st, pos, seat))
        )
    yield from suffer(st, pos, seat, frame["diff"], None, target, name)
    st.leave()
    extra = (params.get("on_npe_win_extra") or {}).get("lose", {})
    for resource, amount in extra.items():
        loss = st.d6(name, seat) if amount == "1d6" else int(amount)
        st.gain(seat, resource, -loss, name)


def is_site(st: MotoraState, pos: str) -> bool:
    """RULES.md 8.1: two or more tribes there, or a claimed village with a foreign tribe there."""
    tribes = {m.tribe for m in st.placed_at(pos)}
    owner = st.owner.get(pos)
    return len(tribes) >= 2 or (owner is not None and any(t != owner for t in tribes))


def combat_phase(st: MotoraState) -> Flow:
    """RULES.md 8.2: tribes in turn order, each one's sites in board order.

    A tribe's sites are listed when its turn comes (earlier fights may have moved its members).
    """
    frame = st.enter("combat", order=st.order(), i=0, sites=None, j=0, resolved=[])
    while frame["i"] < len(frame["order"]):
        seat = frame["order"][frame["i"]]
        if frame["sites"] is None:
            mine = {str(m.pos) for m in st.own(seat, (PLACED,))}
            eliminated = st.tribes[seat].eliminated
            frame.update(sites=[] if eliminated else sorted(mine, key=BOARD.order.__getitem__), j=0)
        while frame["j"] < len(frame["sites"]):
            pos = frame["sites"][frame["j"]]
            if st.resuming() or (pos not in frame["resolved"] and is_site(st, pos)):
                if not st.resuming():
                    frame["resolved"].append(pos)
                yield from site_combat(st, pos)
            frame["j"] += 1
        frame.update(i=frame["i"] + 1, sites=None)
    st.leave()


def site_combat(st: MotoraState, pos: str) -> Flow:
    """One site: the fight, every loser's result, the raid of a claimed village, then checks."""
    fresh = not st.resuming()
    frame = st.enter(
        "site",
        seats=[s for s in st.order() if st.placed_at(pos, s)],
        step="fight",
        winner=None,
        diff=0,
        k=0,
    )
    seats = frame["seats"]
    if frame["step"] == "fight":
        frame["winner"] = seats[0]
        if len(seats) >= 2:
            if fresh:
                st.emit({"type": "combat", "site": pos, "seats": seats})
            winner, totals = yield from fight(st, pos, seats)
            losers = [s for s in seats if s != winner]
            frame.update(winner=winner, diff=totals[winner] - min(totals[s] for s in losers))
        frame["step"] = "suffer"
    winner = frame["winner"]
    losers = [s for s in seats if s != winner]
    if frame["step"] == "suffer":
        while frame["k"] < len(losers):
            loser = losers[frame["k"]]
            d = max(1, frame["diff"] - shields(st, pos, loser))
            yield from suffer(st, pos, loser, d, winner, None, "combat")
            frame["k"] += 1
        frame["step"] = "raid"
    owner = st.owner.get(pos)
    if owner is not None and winner != owner:
        yield from raid(st, winner, owner, pos)
    st.leave()
    check(st)
