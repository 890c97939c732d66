"""The Motora game state: data, the decision driver and the helpers every phase shares.

The rules run as one Python generator (``flow.play``) that yields a :class:`Decision` whenever a
tribe must choose and receives the chosen option back. Nested procedures (an event starting a
fight that asks for rerolls) are plain ``yield from`` calls, so the code reads like RULES.md.

A generator cannot be copied, so each procedure that can be suspended keeps its progress (loop
indexes, the dice of a fight, a tribe's action plan) in a *frame*, a small JSON-able map on
``frames``, the flow's stack. A position holds the data and the stack; loading it starts the
generator afresh, and every procedure, finding its frame already there, skips what it had done and
asks the same decision again (:meth:`MotoraState.enter`). Clones and snapshots are position copies.
"""

from __future__ import annotations

from collections.abc import Generator
from functools import cache
from typing import Any

from ..base import Decision, EventLog, IllegalChoice, Outcome, State
from ..rng import KeyedRandom
from .board import BOARD
from .cards import CARDS
from .model import (
    LIVING,
    PLACED,
    PRISONER,
    REMOVED,
    RETURNED,
    SHRINE,
    SHRINES,
    Idol,
    Member,
    Tribe,
)
from .views import view as seat_view

Flow = Generator[Decision, int, Any]
COUNTED = (*LIVING, PRISONER)  # the states that count towards a tribe's size


class GameOver(Exception):
    """Raised anywhere in the flow when the game ends (RULES.md 13)."""

    def __init__(self, reason: str, winners: list[int]) -> None:
        super().__init__(reason)
        self.reason = reason
        self.winners = winners


class ResumeError(Exception):
    """A loaded stack that the flow cannot follow (the position names it as ``stack``)."""


class MotoraState(State):
    """A game in progress; see the package README for decisions, view and events."""

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        self.blank(players, options)
        self.rng = KeyedRandom(seed)
        self.start()

    def blank(self, players: int, options: dict[str, Any]) -> None:
        """Empty fields before setup (a new game) or before a position fills them in."""
        self.players = players
        self.options = dict(options)
        self.log = EventLog()
        self.tribes = [Tribe(seat=s) for s in range(players)]
        self.members: list[Member] = []
        self.idols: list[Idol] = []
        self.tile_at: dict[str, str] = {}
        self.pos_of_tile: dict[str, str] = {}
        self.destroyed: dict[str, bool] = {p: False for p in BOARD.positions}
        self.restricted: dict[str, bool] = {p: False for p in BOARD.positions}
        self.owner: dict[str, int] = {}  # claimed village position -> seat
        self.ruined: list[str] = []  # in board order (setup and elimination keep it)
        self.decks: dict[str, list[int]] = {"event": [], "craftsmen": [], "temple": []}
        self.discard: list[int] = []
        self.turn = 0
        self.first = 0
        self.phase = "setup"
        self.gathered: dict[str, bool] = {}
        self.fished: dict[tuple[str, str], bool] = {}
        self.need_mod: dict[str, int] = {}
        self.event: int | None = None
        self.fight: dict[str, Any] | None = None
        self.result: GameOver | None = None
        self._pending: tuple[Decision, ...] = ()
        self.frames: list[dict[str, Any]] = []  # the flow's stack, outermost procedure first
        self._depth = 0  # frames entered by the running generator (fewer while resuming)

    def start(self) -> None:
        """Run the rules generator up to its first decision, resuming from ``frames`` if any."""
        from .flow import play  # the flow imports the phases, which use this module

        self._depth = 0
        self._gen = play(self)
        self._resume(None)

    # ----------------------------------------------------------------- driver
    def _resume(self, answer: int | None) -> None:
        try:
            decision = self._gen.send(answer) if answer is not None else next(self._gen)
        except StopIteration:
            decision = None
        self._pending = (decision,) if decision is not None else ()

    def pending(self) -> tuple[Decision, ...]:
        return self._pending

    def act(self, seat: int, choice: int) -> None:
        if not self._pending:
            raise IllegalChoice("the game is over")
        decision = self._pending[0]
        if seat != decision.seat:
            raise IllegalChoice(
                f"seat {seat} has no pending decision (waiting for {decision.seat})"
            )
        if isinstance(choice, bool) or not isinstance(choice, int):
            raise IllegalChoice(f"choice must be an int, got {choice!r}")
        if not 0 <= choice < len(decision.options):
            raise IllegalChoice(f"choice {choice} out of range 0..{len(decision.options) - 1}")
        self._resume(choice)

    def ask(
        self, seat: int, kind: str, options: list[dict[str, Any]], prompt: str
    ) -> Generator[Decision, int, dict[str, Any]]:
        """Yield one decision and return the chosen option."""
        if self.resuming():
            raise ResumeError(f"frame {self._depth} ({self.frames[self._depth]['proc']}) unused")
        index = yield Decision(seat, kind, tuple(options), prompt)
        return options[index]

    # ----------------------------------------------------------------- the flow's stack
    def resuming(self) -> bool:
        """True while a loaded stack still has frames below the running procedure."""
        return self._depth < len(self.frames)

    def enter(self, proc: str, **fields: Any) -> dict[str, Any]:
        """The frame of procedure ``proc``: the loaded one when resuming, else a new one."""
        depth = self._depth
        self._depth += 1
        if depth < len(self.frames):
            frame = self.frames[depth]
            if frame.get("proc") != proc:
                raise ResumeError(f"frame {depth} is {frame.get('proc')!r}, expected {proc!r}")
            return frame
        frame = {"proc": proc, **fields}
        self.frames.append(frame)
        return frame

    def leave(self) -> None:
        """The running procedure is done: drop its frame."""
        self._depth -= 1
        self.frames.pop()

    def clone(self) -> MotoraState:
        """A position copy: its cost depends on the table, not on the length of the game."""
        from .position import load_position, write_position

        return load_position(self.players, self.options, write_position(self), check=False)

    def __reduce__(self) -> tuple[Any, ...]:
        """Snapshots and deep copies: the position plus the event log (a clone drops the log)."""
        from .position import write_position

        return (_rebuild, (self.players, self.options, write_position(self), self.log))

    # ----------------------------------------------------------------- contract
    def position(self) -> dict[str, Any]:
        from .position import write_position

        return write_position(self)

    def view(self, seat: int) -> dict[str, Any]:
        return seat_view(self, seat)

    def outcome(self) -> Outcome:
        from .victory import outcome

        return outcome(self)

    # ----------------------------------------------------------------- helpers
    def emit(self, event: dict[str, Any], **kw: Any) -> None:
        self.log.emit(event, **kw)

    def d6(self, why: str, seat: int | None = None) -> int:
        """Roll one die with the state's RNG and report it to everyone (RULES.md conventions)."""
        roll = self.rng.randint(1, 6)
        self.emit({"type": "die", "roll": roll, "for": why, "seat": seat})
        return roll

    def order(self) -> list[int]:
        """Turn order: seat order from the first player, skipping eliminated tribes."""
        tribes = self.tribes
        return [s for s in rotation(self.players, self.first) if not tribes[s].eliminated]

    def own(self, seat: int, states: tuple[str, ...] = LIVING) -> list[Member]:
        """The tribe's members in one of ``states`` (living by default), by id."""
        members = self.members
        return [m for i in self.tribes[seat].members if (m := members[i]).state in states]

    def placed_at(self, pos: str, seat: int | None = None) -> list[Member]:
        """Members on ``pos`` (of one tribe if given), by id.

        With a seat only that tribe's members are scanned (its id list is ascending, so the order
        is the same as filtering all members); combat asks this per site and seat.
        """
        members = self.members
        if seat is None:
            return [m for m in members if m.pos == pos and m.state == PLACED]
        return [
            m
            for i in self.tribes[seat].members
            if (m := members[i]).pos == pos and m.state == PLACED
        ]

    def prisoners_of(self, captor: int) -> list[Member]:
        return [m for m in self.members if m.state == PRISONER and m.captor == captor]

    def tribe_size(self, seat: int) -> int:
        """Own living members plus the tribe's members held prisoner (max 8; RULES.md 2)."""
        return len(self.own(seat, COUNTED))

    def idols_of(self, seat: int, shrine: str | None = None) -> int:
        """Idols on the tribe's shrines (one shrine if given); counted with ``len`` of a list,
        cheaper than ``sum`` over a generator, as it runs for every combat roll and action."""
        return len(
            [i for i in self.idols if i.owner == seat and (shrine is None or i.shrine == shrine)]
        )

    def dead_on(self, seat: int, shrine: str) -> int:
        """Members lying dead on ``seat``'s ``shrine`` (counted as in :meth:`idols_of`)."""
        return len(
            [
                m
                for m in self.members
                if m.shrine_of == seat and m.shrine == shrine and m.state == SHRINE
            ]
        )

    def bonus(self, seat: int, shrine: str) -> int:
        """Life bonus L or Death bonus K: idols plus pairs of dead on that shrine (RULES.md 2)."""
        return self.idols_of(seat, shrine) + self.dead_on(seat, shrine) // 2

    def tile(self, pos: str) -> Any:
        return BOARD.tiles[self.tile_at[pos]]

    def is_village(self, pos: str) -> bool:
        return pos in BOARD.village_spots

    def unattached(self, seat: int) -> list[int]:
        """Cards in hand not carried by a member on the board (in hand order)."""
        hand = self.tribes[seat].hand
        if not hand:
            return []
        carried = {m.gear for m in self.own(seat, (PLACED,)) if m.gear is not None}
        return [uid for uid in hand if uid not in carried]

    def detach(self, member: Member) -> None:
        member.gear = None

    def leave_board(self, member: Member, state: str, why: str) -> None:
        """Move a member off the board (or anywhere) to ``state``; its gear goes back."""
        member.state = state
        member.pos = None
        member.gear = None
        self.emit(
            {"type": "member", "seat": member.tribe, "member": member.id, "to": state, "why": why}
        )

    def shrine_dead(self, member: Member, seat: int, shrine: str, why: str) -> None:
        """A member dies onto ``seat``'s shrine (shortage death or sacrifice; RULES.md 12.1)."""
        member.state = SHRINE
        member.pos = None
        member.gear = None
        member.captor = None
        member.shrine_of = seat
        member.shrine = shrine
        self.emit(
            {
                "type": "member",
                "seat": member.tribe,
                "member": member.id,
                "to": SHRINE,
                "shrine": shrine,
                "shrine_of": seat,
                "why": why,
            }
        )

    def to_bottom(self, uid: int) -> None:
        self.decks[CARDS[uid].deck].append(uid)

    def gain(self, seat: int, resource: str, amount: int, why: str) -> None:
        """Add (or with a negative amount remove, never below 0) a resource; report it."""
        tribe = self.tribes[seat]
        before = getattr(tribe, resource)
        after = max(0, before + amount)
        setattr(tribe, resource, after)
        self.emit(
            {
                "type": "resource",
                "seat": seat,
                "resource": resource,
                "change": after - before,
                "total": after,
                "why": why,
            }
        )

    def new_member(self, seat: int, state: str) -> Member:
        member = Member(id=len(self.members), tribe=seat, state=state)
        self.members.append(member)
        self.tribes[seat].members.append(member.id)
        return member

    def choose_shrine(self, seat: int, kind: str, prompt: str) -> Flow:
        option = yield from self.ask(seat, kind, [{"shrine": s} for s in SHRINES], prompt)
        return option["shrine"]

    def idol_arrives(self, idol: Idol, village: str) -> Flow:
        """An idol enters a claimed village: its owner picks a shrine; win check (RULES.md 12.2)."""
        seat = self.owner[village]
        shrine = yield from self.choose_shrine(seat, "idol_shrine", "Which shrine gets the idol?")
        idol.pos = None
        idol.owner = seat
        idol.shrine = shrine
        self.emit({"type": "idol_shrine", "idol": idol.id, "seat": seat, "shrine": shrine})
        from .victory import check_idol_win

        check_idol_win(self)

    def remove_member(self, member: Member, why: str) -> None:
        self.leave_board(member, REMOVED, why)

    def free(self, member: Member, why: str) -> None:
        """A prisoner goes home as RETURNED, or is removed if its tribe is gone (RULES.md 10.6)."""
        member.captor = None
        member.captured_this_turn = False
        if self.tribes[member.tribe].eliminated:
            self.remove_member(member, why)
        else:
            self.leave_board(member, RETURNED, why)


@cache
def rotation(players: int, first: int) -> tuple[int, ...]:
    """Every seat in turn order from ``first``; computed once per (players, first)."""
    return (*range(first, players), *range(first))


def _rebuild(
    players: int, options: dict[str, Any], position: dict[str, Any], log: EventLog
) -> MotoraState:
    """Recreate a state from its position and log (used by deepcopy and pickle)."""
    from .position import load_position

    state = load_position(players, options, position, check=False)
    state.log = log
    return state
