"""The Mai-Star game state: plain data, the step driver, and the small helpers every rule uses.

The rules themselves live in the step modules (``flow``, ``actions``, ``guests``, ``effects``,
``reactions``, ``geishas``, ``scoring``); this module only holds the data, runs steps until a
decision is needed, and implements the :class:`~arena.games.base.State` contract.
"""

from __future__ import annotations

from typing import Any

from ..base import Decision, EventLog, IllegalChoice, Outcome, State
from ..rng import KeyedRandom
from .data import AKENOHOSHI_BOOST, CARD_IDS, CARDS, GEISHAS, HAND_SIZES
from .ops import STEPS
from .positions import write
from .scoring import final_outcome
from .views import build_view


class Seat:
    """One player's table area and score sheet."""

    __slots__ = (
        "ads",
        "extra_turns",
        "geisha",
        "guests",
        "hand",
        "round_hand",
        "round_vp",
        "total",
    )

    def __init__(self) -> None:
        self.geisha = -1  # index into GEISHAS, -1 before selection
        self.hand: list[int] = []  # card indices; order has no meaning
        self.guests: list[int] = []  # oldest (left) first
        self.ads: list[int] = []  # advertisers, oldest (left) first
        self.extra_turns = 0  # pending Doctor turns
        self.total = 0
        self.round_vp: list[int] = []
        self.round_hand: list[int] = []  # hand size at each round end (tie-break)

    def copy(self) -> Seat:
        other = Seat.__new__(Seat)
        other.geisha = self.geisha
        other.hand = self.hand.copy()
        other.guests = self.guests.copy()
        other.ads = self.ads.copy()
        other.extra_turns = self.extra_turns
        other.total = self.total
        other.round_vp = self.round_vp.copy()
        other.round_hand = self.round_hand.copy()
        return other


class MaiStarState(State):
    """A game in progress. Fields are plain data; tests may arrange them (see tests' helpers)."""

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        self.n = players
        self.options = dict(options)
        self.rng = KeyedRandom(seed)
        self.log = EventLog()
        self.seats = [Seat() for _ in range(players)]
        self.deck: list[int] = []  # top of the deck = last element
        self.discard: list[int] = []
        self.round = 0
        self.start_seat = -1
        self.active = -1  # whose turn it is (or who is choosing a geisha)
        self.available: list[int] = list(range(len(GEISHAS)))  # geishas still to choose
        # per-turn and per-round ability state of the active player
        self.suzune_used = False
        self.momiji_used = False
        self.natsumi_uses = 0
        self.akenohoshi_used = False  # once per round
        self.boost = -1  # skill raised by Akenohoshi this turn, -1 if none
        self.limited_flag = False
        self.lap: list[int] | None = None  # seats still to play in the Longer 6-player final lap
        self.bottom_known = 0  # deck[:bottom_known] were put there by Harukaze, in that order
        self.resolving: dict[str, Any] | None = None  # effect awaiting the target's reaction
        self.over = False
        self.stack: list[tuple[Any, ...]] = []
        self.decision: Decision | None = None
        self.handler: tuple[str, tuple[Any, ...]] = ("", ())

    # ----- the step driver -------------------------------------------------------------------

    def push(self, name: str, *args: Any) -> None:
        """Schedule a step; the last pushed runs first (depth-first resolution)."""
        self.stack.append((name, *args))

    def ask(
        self,
        seat: int,
        kind: str,
        options: list[dict[str, Any]],
        prompt: str,
        handler: str,
        *ctx: Any,
    ) -> None:
        """Await ``seat``'s pick among ``options``; then ``handler(state, option, *ctx)`` runs."""
        self.decision = Decision(seat, kind, tuple(options), prompt)
        self.handler = (handler, ctx)

    def advance(self) -> None:
        """Run scheduled steps until a decision is awaited or the game is over."""
        stack = self.stack
        while self.decision is None and stack:
            frame = stack.pop()
            STEPS[frame[0]](self, *frame[1:])

    # ----- the State contract ----------------------------------------------------------------

    def pending(self) -> tuple[Decision, ...]:
        return () if self.decision is None else (self.decision,)

    def act(self, seat: int, choice: int) -> None:
        decision = self.decision
        if decision is None:
            raise IllegalChoice("the game is over: no decision is pending")
        if seat != decision.seat:
            raise IllegalChoice(f"seat {seat} has no pending decision (seat {decision.seat} has)")
        if type(choice) is not int or not 0 <= choice < len(decision.options):
            raise IllegalChoice(
                f"choice {choice!r} is not an index into the {len(decision.options)} options "
                f"of {decision.kind}"
            )
        name, ctx = self.handler
        self.decision = None
        self.handler = ("", ())
        STEPS[name](self, decision.options[choice], *ctx)
        self.advance()

    def view(self, seat: int) -> dict[str, Any]:
        return build_view(self, seat)

    def outcome(self) -> Outcome:
        if not self.over:
            raise RuntimeError("the game is not over yet")
        return final_outcome(self)

    def position(self) -> dict[str, Any]:
        from .game import GAME

        return {**GAME.envelope(self.n, self.options), **write(self)}

    def clone(self) -> MaiStarState:
        """A copy of every field, like a loaded position: its event log starts empty, so the
        cost does not grow with the length of the game."""
        other = MaiStarState.__new__(MaiStarState)
        other.__dict__.update(self.__dict__)
        other.options = dict(self.options)
        other.rng = KeyedRandom()
        other.rng.setstate(self.rng.getstate())
        other.log = EventLog()
        other.seats = [s.copy() for s in self.seats]
        other.deck = self.deck.copy()
        other.discard = self.discard.copy()
        other.available = self.available.copy()
        other.lap = None if self.lap is None else self.lap.copy()
        other.stack = self.stack.copy()
        return other

    # ----- helpers shared by the rules -------------------------------------------------------

    def emit(self, event: dict[str, Any], **kwargs: Any) -> None:
        self.log.emit(event, **kwargs)

    def ability(self, seat: int) -> str:
        g = self.seats[seat].geisha
        return GEISHAS[g].ability_id if g >= 0 else ""

    def reputation(self, seat: int) -> list[int]:
        """Geisha base + advertisers + Akenohoshi's bonus while it lasts (RULES.md section 4)."""
        st = self.seats[seat]
        rep = list(GEISHAS[st.geisha].reputation)
        for card in st.ads:
            adv = CARDS[card].advertisement
            rep[0] += adv[0]
            rep[1] += adv[1]
            rep[2] += adv[2]
        if self.boost >= 0 and seat == self.active:
            rep[self.boost] += AKENOHOSHI_BOOST
        return rep

    def can_play(self, card: int, rep: list[int]) -> bool:
        """Requirement check for playing ``card`` as a guest (RULES.md section 4)."""
        c = CARDS[card]
        if c.requirement is None:  # requirement_type "none"
            return False
        if c.requirement_type == "colour":
            return rep[c.skill] >= c.requirement
        if c.requirement_type == "any":
            return max(rep) >= c.requirement
        return False

    def hand_ids(self, seat: int) -> list[int]:
        """Distinct cards in a hand, in cards.json order (copies are interchangeable)."""
        return sorted(set(self.seats[seat].hand))

    def draw(self, seat: int, count: int, reason: str) -> None:
        """Draw up to ``count`` from the top; a short deck gives what it has (RULES.md R4)."""
        deck = self.deck
        take = min(count, len(deck))
        if take <= 0:
            return
        drawn = [deck.pop() for _ in range(take)]
        self.seats[seat].hand.extend(drawn)
        if self.bottom_known > len(deck):
            self.bottom_known = len(deck)
        self.emit(
            {"type": "draw", "seat": seat, "count": take, "reason": reason},
            private={seat: {"cards": [CARD_IDS[c] for c in drawn]}},
        )

    def discard_cards(self, seat: int, cards: list[int], reason: str) -> None:
        """Put cards (already removed from where they were) face up on the discard pile."""
        self.discard.extend(cards)
        self.emit(
            {
                "type": "discard",
                "seat": seat,
                "cards": [CARD_IDS[c] for c in cards],
                "reason": reason,
            }
        )

    def add_guest(self, seat: int, card: int) -> None:
        """Append a card to a guest row and watch the Limited Guests limit (section 15.2)."""
        guests = self.seats[seat].guests
        guests.append(card)
        mode = self.options["limited_guests"]
        if mode == "off" or self.limited_flag:
            return
        limit = HAND_SIZES[self.round - 1]
        if len(guests) > limit or (mode == "reaches" and len(guests) == limit):
            self.limited_flag = True
            self.emit({"type": "guest_limit", "seat": seat, "guests": len(guests), "limit": limit})
