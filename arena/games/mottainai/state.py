"""The game state: zones, the atomic card movements, game-end checks, and the State contract.

The rules run as one generator (:func:`.flow.run_game`) that yields a Decision whenever the
current player must choose and receives the chosen index. A state therefore holds a live
generator; at the start of every turn it also keeps a checkpoint (:class:`.position.Mark`) and
the answers given since, which is what a position, ``clone`` and pickling rebuild it from
(deterministic, at most one turn of replay).
"""

from __future__ import annotations

from typing import Any

from ..base import Decision, EventLog, IllegalChoice, Outcome, PositionError, State
from ..rng import KeyedRandom, rng_from, rng_state
from . import cards as C
from . import flow, setup
from .effects.registry import inline
from .model import GameOver, Player
from .position import Mark, copy_player, write
from .views import build_view

inline("state", "Go Set", "Turtle")

N_DEFS = C.DECK_SIZE
_MAT = [d.material for d in C.DEFS]
_NAME = [d.name for d in C.DEFS]


class MottainaiState(State):
    """One game of Mottainai. Zone lists hold card uids; ``deck[-1]`` is the top of the deck."""

    def __init__(
        self, players: int, seed: int, options: dict[str, Any], mark: Mark | None = None
    ) -> None:
        """A new game dealt from ``seed``, or the game at checkpoint ``mark`` (seed unused)."""
        self.n = players
        self.options = dict(options)
        self.teams: bool = bool(options["teams"])
        self.threshold: int = setup.wing_threshold(players, options)
        self.decks: int = setup.deck_count(players, options)
        self.rng = KeyedRandom(seed)
        self.log = EventLog()
        self.deck: list[int] = []
        self.floor: list[int] = []
        self.box: list[int] = []  # out of play; only hand-written positions put cards here
        self.players = [Player() for _ in range(players)]
        self.current = 0
        self.turn_no = 0
        self.phase = "setup"
        self.step = ""
        self.kite: dict[int, int] = {}  # Kite uid -> printed-card index it copies this turn
        self.extra_turns = 0
        self.doll_card: int | None = None
        self.fountain: tuple[int, int] | None = None  # (performer, revealed Stone cards)
        self.task_ctx: dict[str, Any] | None = None
        self.top_known = False
        self.end_reason = ""
        self.turtle_winner: int | None = None
        self.result: Outcome | None = None
        self._owned: list[dict[str, int] | None] = [None] * players
        if mark is None:
            setup.deal(self)
            self.checkpoint("morning", False)
        else:
            self._place(mark)
        self._flow = flow.run_game(self)
        self._pending: tuple[Decision, ...] = ()
        self._advance(None)

    # ----- the State contract -------------------------------------------------------------

    def _advance(self, choice: int | None) -> None:
        try:
            # None starts the flow (a generator's first send), an index answers it after
            self._pending = (self._flow.send(choice),)  # type: ignore[arg-type]
        except StopIteration:
            self._pending = ()

    def pending(self) -> tuple[Decision, ...]:
        return self._pending

    def act(self, seat: int, choice: int) -> None:
        pending = self._pending
        if not pending or pending[0].seat != seat:
            raise IllegalChoice(f"seat {seat} has no pending decision")
        if type(choice) is not int:
            raise IllegalChoice(f"choice must be an int index, got {choice!r}")
        if not 0 <= choice < len(pending[0].options):
            raise IllegalChoice(
                f"choice {choice} out of range for {pending[0].kind} "
                f"({len(pending[0].options)} options)"
            )
        self.answers.append(choice)
        self._advance(choice)

    def view(self, seat: int) -> dict[str, Any]:
        return build_view(self, seat)

    def outcome(self) -> Outcome:
        if self.result is None:
            raise RuntimeError("the game is not over yet")
        return self.result

    def clone(self) -> MottainaiState:
        """A copy rebuilt from this turn's checkpoint; like a loaded position, its log is empty."""
        return MottainaiState.resume(self.n, self.options, self.mark, self.answers)

    def __reduce__(self) -> tuple[Any, ...]:
        return (MottainaiState.resume, (self.n, self.options, self.mark, list(self.answers)))

    def position(self) -> dict[str, Any]:
        from .game import Mottainai

        return {**Mottainai().envelope(self.n, self.options), **write(self.mark, self.answers)}

    # ----- checkpoints (see .position) --------------------------------------------------------

    def checkpoint(self, entry: str, extra: bool) -> None:
        """Remember the zones as the turn is entered; positions replay the answers from here."""
        self.mark = Mark(
            entry=entry,
            extra=extra,
            players=[copy_player(pl) for pl in self.players],
            floor=list(self.floor),
            deck=list(self.deck),
            box=list(self.box),
            current=self.current,
            turn_no=self.turn_no,
            extra_turns=self.extra_turns,
            kite=dict(self.kite),
            doll_card=self.doll_card,
            top_known=self.top_known,
            rng=rng_state(self.rng),
        )
        self.answers: list[int] = []
        self.revealed: list[int] = []  # uids shown to every seat since (see .position.seen_by)
        self.jars: list[tuple[int, int, int]] = []  # (opponent, material, count) since

    def _place(self, mark: Mark) -> None:
        self.players = [copy_player(pl) for pl in mark.players]
        self.floor = list(mark.floor)
        self.deck = list(mark.deck)
        self.box = list(mark.box)
        self.current = mark.current
        self.turn_no = mark.turn_no
        self.extra_turns = mark.extra_turns
        self.kite = dict(mark.kite)
        self.doll_card = mark.doll_card
        self.top_known = mark.top_known
        self.rng = rng_from(mark.rng)
        self.mark = mark
        self.answers = []
        self.revealed = []
        self.jars = []

    @classmethod
    def resume(
        cls, players: int, options: dict[str, Any], mark: Mark, answers: list[int]
    ) -> MottainaiState:
        """The state at ``mark`` after ``answers``, with an empty event log."""
        state = cls(players, 0, options, mark)
        for i, choice in enumerate(answers):
            pending = state.pending()
            if not pending or not 0 <= choice < len(pending[0].options):
                where = pending[0].kind if pending else "the end of the game"
                raise PositionError(f"answers[{i}]", f"{choice} is no option of {where}")
            state.act(pending[0].seat, choice)
        state.log = EventLog()
        return state

    def show(self, *uids: int) -> None:
        """Cards every seat has just seen (dealt face up, revealed): see ``revealed``."""
        self.revealed.extend(uids)

    # ----- card facts (Kite-aware) ------------------------------------------------------------

    def mat(self, uid: int) -> int:
        """Material of a card; a Kite copy reads as the copied card (E-KITE-3)."""
        if uid in self.kite:
            return C.DEFS[self.kite[uid]].material
        return _MAT[uid % N_DEFS]

    def val(self, uid: int) -> int:
        return C.VALUES[self.mat(uid)]

    def eff(self, uid: int) -> str:
        """Effect name of a work (the copied card's name for an active Kite copy)."""
        if uid in self.kite:
            return _NAME[self.kite[uid]]
        return _NAME[uid % N_DEFS]

    @staticmethod
    def base_mat(uid: int) -> int:
        return _MAT[uid % N_DEFS]

    @staticmethod
    def name(uid: int) -> str:
        return _NAME[uid % N_DEFS]

    def card(self, uid: int) -> dict[str, Any]:
        """The public description of a card for views, options and events."""
        if uid in self.kite:
            copy = C.DEFS[self.kite[uid]]
            return {
                "name": _NAME[uid % N_DEFS],
                "material": C.MATERIALS[copy.material],
                "value": copy.value,
                "copy_of": copy.name,
            }
        return C.CARD_INFO[uid % N_DEFS]

    def cards(self, uids: list[int]) -> list[dict[str, Any]]:
        if self.kite:
            return [self.card(u) for u in uids]
        info = C.CARD_INFO  # no Kite copy this turn: every card reads as printed
        return [info[u % N_DEFS] for u in uids]

    def opt(self, uid: int, **extra: Any) -> dict[str, Any]:
        """A decision option naming one card (plus context fields)."""
        mat = self.mat(uid)
        return {
            "card": _NAME[uid % N_DEFS],
            "material": C.MATERIALS[mat],
            "value": C.VALUES[mat],
            **extra,
        }

    # ----- seats ------------------------------------------------------------------------------

    def is_opp(self, a: int, b: int) -> bool:
        """Opponent = any other player, except a teammate in the team game (RULES 2)."""
        return a != b and not (self.teams and (a - b) % 2 == 0)

    def others(self, p: int) -> list[int]:
        """Every other seat, clockwise from the one after ``p``."""
        return [(p + k) % self.n for k in range(1, self.n)]

    def opponents(self, p: int) -> list[int]:
        return [q for q in self.others(p) if self.is_opp(p, q)]

    def owns(self, p: int, effect: str) -> int:
        """How many of ``p``'s works carry ``effect`` (Kite copies included); cached."""
        owned = self._owned[p]
        if owned is None:
            owned = {}
            for w in self.players[p].gallery + self.players[p].shop:
                name = self.eff(w)
                owned[name] = owned.get(name, 0) + 1
            self._owned[p] = owned
        return owned.get(effect, 0)

    def works_changed(self) -> None:
        """Forget cached work effects; called by every change of wings or Kite copies."""
        self._owned = [None] * self.n

    def add_work(self, p: int, uid: int, wing: str) -> None:
        pl = self.players[p]
        (pl.gallery if wing == "gallery" else pl.shop).append(uid)
        self.works_changed()

    def set_kite(self, uid: int, copied: int | None) -> None:
        """Kite copies printed card ``copied`` until the turn ends; None ends every copy."""
        if copied is None:
            self.kite.clear()
        else:
            self.kite[uid] = copied
        self.works_changed()

    def work_count(self, p: int) -> int:
        pl = self.players[p]
        return len(pl.gallery) + len(pl.shop)

    # ----- events -----------------------------------------------------------------------------

    def emit(
        self,
        event: dict[str, Any],
        only: list[int] | None = None,
        private: dict[int, dict[str, Any]] | None = None,
    ) -> None:
        self.log.emit(event, only=only, private=private)

    # ----- atomic movements -------------------------------------------------------------------

    def take_top(self, seen: bool = True) -> int:
        """Remove the top card of the deck (``seen`` by all unless drawn); the caller places it,
        then calls check_end."""
        self.top_known = False
        uid = self.deck.pop()
        if seen:
            self.revealed.append(uid)
        return uid

    def to_bottom(self, uid: int) -> None:
        self.deck.insert(0, uid)

    def draw(self, p: int, reason: str) -> None:
        """Draw one card, unseen, into ``p``'s waiting area (RULES 8), then check the end."""
        self.players[p].waiting.append(self.take_top(seen=False))
        self.emit({"type": "draw", "seat": p, "reason": reason})
        self.check_end()

    def deal_to_floor(self, reason: str) -> int:
        uid = self.take_top()
        self.floor.append(uid)
        self.emit(
            {
                "type": "move",
                "card": self.name(uid),
                "src": "deck",
                "dst": "floor",
                "seat": self.current,
                "reason": reason,
            }
        )
        self.check_end()
        return uid

    def leave_wing(self, uid: int, owner: int) -> None:
        """A work leaves its wing: it stops working at once and loses any Kite copy."""
        wing = self.players[owner].wing_of(uid)
        if wing is not None:
            wing.remove(uid)
        self.kite.pop(uid, None)
        self.works_changed()

    # ----- game end (RULES 10) -----------------------------------------------------------------

    def wing_sizes(self, p: int) -> tuple[int, int]:
        """Works per wing for the threshold; with Go Set Stone works count in both (E-END-3)."""
        pl = self.players[p]
        g, s = len(pl.gallery), len(pl.shop)
        if self.owns(p, "Go Set"):
            g += sum(1 for w in pl.shop if self.mat(w) == C.STONE)
            s += sum(1 for w in pl.gallery if self.mat(w) == C.STONE)
        return g, s

    def turtle_done(self, p: int) -> bool:
        if not self.owns(p, "Turtle"):
            return False
        mats = {self.mat(w) for w in self.players[p].works()}
        return len(mats) == len(C.MATERIALS)

    def check_end(self) -> None:
        """Raise GameOver if any end condition holds now (checked after every atomic step)."""
        turtle = None
        wing = False
        for k in range(self.n):
            q = (self.current + k) % self.n
            pl = self.players[q]
            if len(pl.gallery) + len(pl.shop) < len(C.MATERIALS):
                continue  # both conditions need at least five works (T >= 5)
            if turtle is None and self.turtle_done(q):
                turtle = q
            if max(self.wing_sizes(q)) >= self.threshold:
                wing = True
        if turtle is not None:
            raise GameOver("turtle", turtle)
        if wing:
            raise GameOver("wing")
        if not self.deck:
            raise GameOver("deck_empty")
