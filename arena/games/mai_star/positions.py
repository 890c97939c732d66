"""Mai-Star positions: a state as plain JSON data, read back with every invariant checked.

The engine keeps the rest of a turn as a stack of steps (see ``ops``); a position writes that
stack and the pending decision's handler frame by frame, each argument by its kind (a seat, a
card by id, a number...), so a hand-edited position is checked as strictly as the zones are.
Field by field documentation: README.md, "Positions".
"""

from __future__ import annotations

import builtins
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..base import Decision, EventLog, PositionError
from ..rng import KeyedRandom, rng_from, rng_state
from . import actions, effects, flow, geishas, guests, reactions  # noqa: F401  (steps)
from .data import CARD_IDS, CARD_INDEX, COLOURS, FULL_DECK, GEISHA_INDEX, GEISHAS, HAND_SIZES
from .ops import STEPS

if TYPE_CHECKING:
    from .state import MaiStarState

# Argument kinds of every step: scheduled steps run with these arguments; handlers (the step
# that applies an answer) get the chosen option first, then these.
SCHEDULED: dict[str, tuple[str, ...]] = {
    "start_round": ("int",),
    "select_geisha": ("order", "int"),
    "turn": ("seat", "bool"),
    "pre_action": ("seat",),
    "main_action": ("seat",),
    "post_action": ("seat",),
    "end_turn": ("seat",),
    "end_round": ("str",),
    "oboro_bonus": (),
    "play_guest": ("seat", "card", "str"),
    "advertise": ("seat", "card", "str"),
    "natsumi_check": ("seat", "card"),
    "effect_prompt": ("seat", "card"),
    "courtier_boost": ("seat", "card"),
    "momiji_check": ("seat", "card"),
    "resolve": ("seat", "card", "option", "int"),
    "apply_effect": ("seat", "card", "option"),
    "harukaze_draw": ("seat",),
    "shogun_next": ("seat",),
}
HANDLERS: dict[str, tuple[str, ...]] = {
    "geisha_chosen": ("order", "int"),
    "action_chosen": ("seat",),
    "introduce_first": ("seat", "int"),
    "introduce_second": ("seat",),
    "exchange_advertiser": ("seat",),
    "exchange_hand": ("seat", "int"),
    "effect_chosen": ("seat", "card", "int"),
    "reaction_chosen": ("seat", "card", "seat", "option"),
    "sumo_discard": ("seat",),
    "shogun_chosen": ("seat",),
    "natsumi_chosen": ("seat",),
    "pre_action_chosen": ("seat",),
    "post_action_chosen": ("seat",),
    "courtier_boost_chosen": ("seat",),
    "harukaze_bottom": ("seat", "int"),
    "harukaze_discard": ("seat",),
}
assert sorted([*SCHEDULED, *HANDLERS]) == sorted(STEPS), "a step has no argument kinds"

FIELDS = (
    "round",
    "start_seat",
    "active",
    "geishas_available",
    "seats",
    "deck",
    "deck_bottom_known",
    "discard",
    "turn",
    "akenohoshi_used",
    "guest_limit_reached",
    "final_lap",
    "resolving",
    "stack",
    "decision",
    "over",
    "rng",
)
SEAT_FIELDS: tuple[str, ...] = ("geisha", "hand", "guests", "advertisers", "extra_turns", "total")
SEAT_FIELDS += ("round_vp", "round_hand")
TURN_FIELDS = ("suzune_used", "momiji_used", "natsumi_uses", "boost")


# ----- writing -------------------------------------------------------------------------------


def _encode_args(kinds: tuple[str, ...], args: Sequence[Any]) -> list[Any]:
    out: list[Any] = []
    for kind, value in zip(kinds, args, strict=True):
        if kind == "card":
            out.append(CARD_IDS[value])
        elif kind == "order":
            out.append(list(value))
        elif kind == "option":
            out.append(dict(value))
        else:
            out.append(value)
    return out


def encode_frame(frame: Sequence[Any]) -> list[Any]:
    """A stack frame ``(name, *args)`` as JSON: cards by id, tuples as lists."""
    name = frame[0]
    return [name, *_encode_args(SCHEDULED[name], frame[1:])]


def encode_decision(st: MaiStarState) -> dict[str, Any] | None:
    decision = st.decision
    if decision is None:
        return None
    name, ctx = st.handler
    return {
        "seat": decision.seat,
        "kind": decision.kind,
        "prompt": decision.prompt,
        "options": [dict(o) for o in decision.options],
        "handler": [name, *_encode_args(HANDLERS[name], ctx)],
    }


def _cards(cards: Iterable[int]) -> list[str]:
    return [CARD_IDS[c] for c in cards]


def write(st: MaiStarState) -> dict[str, Any]:
    """Everything but the envelope; see README.md "Positions"."""
    return {
        "round": st.round,
        "start_seat": st.start_seat,
        "active": st.active,
        "geishas_available": [GEISHAS[g].name for g in st.available],
        "seats": [
            {
                "geisha": GEISHAS[s.geisha].name if s.geisha >= 0 else None,
                "hand": sorted(_cards(s.hand)),
                "guests": _cards(s.guests),
                "advertisers": _cards(s.ads),
                "extra_turns": s.extra_turns,
                "total": s.total,
                "round_vp": list(s.round_vp),
                "round_hand": list(s.round_hand),
            }
            for s in st.seats
        ],
        "deck": _cards(reversed(st.deck)),
        "deck_bottom_known": st.bottom_known,
        "discard": _cards(st.discard),
        "turn": {
            "suzune_used": st.suzune_used,
            "momiji_used": st.momiji_used,
            "natsumi_uses": st.natsumi_uses,
            "boost": COLOURS[st.boost] if st.boost >= 0 else None,
        },
        "akenohoshi_used": st.akenohoshi_used,
        "guest_limit_reached": st.limited_flag,
        "final_lap": None if st.lap is None else list(st.lap),
        "resolving": None if st.resolving is None else dict(st.resolving),
        "stack": [encode_frame(f) for f in st.stack],
        "decision": encode_decision(st),
        "over": st.over,
        "rng": rng_state(st.rng),
    }


# ----- reading -------------------------------------------------------------------------------


class Reader:
    """Checks one position's fields and converts them to engine values. (Its ``int`` and
    ``list`` hide the builtins in this class body: annotations here say ``builtins.int``.)"""

    def __init__(self, players: int) -> None:
        self.n = players

    def field(self, data: Mapping[str, Any], key: str, where: str) -> Any:
        if key not in data:
            raise PositionError(where, "is missing")
        return data[key]

    def map(self, value: Any, where: str, keys: Sequence[str]) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise PositionError(where, "must be a map")
        extra = [k for k in value if k not in keys]
        if extra:
            at = extra[0] if where == "position" else f"{where}.{extra[0]}"
            raise PositionError(at, "is not a field of a Mai-Star position")
        return value

    def int(self, value: Any, where: str, low: int, high: int | None = None) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise PositionError(where, f"must be an integer, got {value!r}")
        if value < low or (high is not None and value > high):
            top = "" if high is None else f" and at most {high}"
            raise PositionError(where, f"must be at least {low}{top}, got {value}")
        return value

    def bool(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise PositionError(where, f"must be true or false, got {value!r}")
        return value

    def seat(self, value: Any, where: str) -> builtins.int:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < self.n:
            raise PositionError(where, f"is not a seat of this {self.n}-player game: {value!r}")
        return value

    def list(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise PositionError(where, "must be a list")
        return value

    def cards(self, value: Any, where: str) -> builtins.list[builtins.int]:
        out = []
        for i, name in enumerate(self.list(value, where)):
            if name not in CARD_INDEX:
                raise PositionError(f"{where}[{i}]", f"unknown card {name!r}")
            out.append(CARD_INDEX[name])
        return out

    def geisha(self, value: Any, where: str) -> builtins.int:
        if value not in GEISHA_INDEX:
            raise PositionError(where, f"unknown geisha {value!r}")
        return GEISHA_INDEX[value]

    def option(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
            raise PositionError(where, "must be a map with string keys")
        if "card" in value and value["card"] not in CARD_INDEX:
            raise PositionError(f"{where}.card", f"unknown card {value['card']!r}")
        if "target" in value:
            self.seat(value["target"], f"{where}.target")
        return dict(value)

    def frame(self, value: Any, where: str, table: Mapping[str, tuple[str, ...]]) -> tuple:
        items = self.list(value, where)
        if not items or items[0] not in table:
            raise PositionError(where, f"unknown step {items[0] if items else None!r}")
        kinds = table[items[0]]
        if len(items) != len(kinds) + 1:
            raise PositionError(where, f"step {items[0]!r} takes {len(kinds)} arguments")
        args: list[Any] = []
        for i, (kind, arg) in enumerate(zip(kinds, items[1:], strict=True)):
            at = f"{where}[{i + 1}]"
            if kind == "seat":
                args.append(self.seat(arg, at))
            elif kind == "card":
                args.append(self.cards([arg], at)[0])
            elif kind == "int":
                args.append(self.int(arg, at, 0))
            elif kind == "bool":
                args.append(self.bool(arg, at))
            elif kind == "str":
                if not isinstance(arg, str):
                    raise PositionError(at, "must be a string")
                args.append(arg)
            elif kind == "order":
                args.append(tuple(self.seat(s, f"{at}[{j}]") for j, s in enumerate(arg)))
            else:
                args.append(self.option(arg, at))
        return (items[0], *args)


def check_cards(zones: Sequence[tuple[str, Sequence[int]]], round_: int) -> None:
    """Every one of the 75 cards in exactly one zone (none before the first deal)."""
    if round_ == 0:
        for where, cards in zones:
            if cards:
                raise PositionError(where, "must be empty before the first deal")
        return
    left = Counter(FULL_DECK)
    for where, cards in zones:
        for card in cards:
            if left[card] == 0:
                raise PositionError(where, f"one {CARD_IDS[card]} too many (in two zones?)")
            left[card] -= 1
    missing = sorted(left.elements())
    if missing:
        names = ", ".join(CARD_IDS[c] for c in missing[:5])
        raise PositionError("cards", f"{len(missing)} cards are in no zone ({names}...)")


def read(st: MaiStarState, data: Mapping[str, Any], rng: KeyedRandom | None = None) -> None:
    """Fill ``st`` (created bare) from a position's fields, checking every invariant; ``rng``
    stands for the ``rng`` field when given (a sampled position needs no particular one)."""
    r = Reader(st.n)
    r.map(data, "position", ("game", "version", "players", "options", "form", *FIELDS))
    get = lambda key: r.field(data, key, key)  # noqa: E731
    st.round = r.int(get("round"), "round", 0, len(HAND_SIZES))
    st.start_seat = -1 if get("start_seat") == -1 else r.seat(get("start_seat"), "start_seat")
    st.active = -1 if get("active") == -1 else r.seat(get("active"), "active")
    st.available = [
        r.geisha(g, f"geishas_available[{i}]")
        for i, g in enumerate(r.list(get("geishas_available"), "geishas_available"))
    ]
    seats = r.list(get("seats"), "seats")
    if len(seats) != st.n:
        raise PositionError("seats", f"has {len(seats)} entries for {st.n} players")
    for s, (area, raw) in enumerate(zip(st.seats, seats, strict=True)):
        _read_seat(r, area, r.map(raw, f"seats[{s}]", SEAT_FIELDS), f"seats[{s}]", st.round)
    taken = [a.geisha for a in st.seats if a.geisha >= 0]
    for where, names in (("seats", taken), ("geishas_available", taken + st.available)):
        dupes = [g for g, k in Counter(names).items() if k > 1]
        if dupes:
            raise PositionError(where, f"geisha {GEISHAS[dupes[0]].name} is in two places")
    st.deck = list(reversed(r.cards(get("deck"), "deck")))
    st.bottom_known = r.int(get("deck_bottom_known"), "deck_bottom_known", 0, len(st.deck))
    st.discard = r.cards(get("discard"), "discard")
    zones = [("deck", st.deck), ("discard", st.discard)]
    for s, area in enumerate(st.seats):
        zones += [(f"seats[{s}].hand", area.hand), (f"seats[{s}].guests", area.guests)]
        zones += [(f"seats[{s}].advertisers", area.ads)]
    check_cards(zones, st.round)
    turn = r.map(get("turn"), "turn", TURN_FIELDS)
    st.suzune_used = r.bool(r.field(turn, "suzune_used", "turn.suzune_used"), "turn.suzune_used")
    st.momiji_used = r.bool(r.field(turn, "momiji_used", "turn.momiji_used"), "turn.momiji_used")
    uses = r.field(turn, "natsumi_uses", "turn.natsumi_uses")
    st.natsumi_uses = r.int(uses, "turn.natsumi_uses", 0, 2)
    boost = r.field(turn, "boost", "turn.boost")
    if boost is not None and boost not in COLOURS:
        raise PositionError("turn.boost", f"must be null or one of {COLOURS}, got {boost!r}")
    st.boost = -1 if boost is None else COLOURS.index(boost)
    st.akenohoshi_used = r.bool(get("akenohoshi_used"), "akenohoshi_used")
    st.limited_flag = r.bool(get("guest_limit_reached"), "guest_limit_reached")
    lap = get("final_lap")
    st.lap = None
    if lap is not None:
        st.lap = [r.seat(s, f"final_lap[{i}]") for i, s in enumerate(r.list(lap, "final_lap"))]
    resolving = get("resolving")
    st.resolving = None if resolving is None else r.option(resolving, "resolving")
    st.stack = [
        r.frame(f, f"stack[{i}]", SCHEDULED) for i, f in enumerate(r.list(get("stack"), "stack"))
    ]
    _read_decision(r, st, get("decision"))
    st.over = r.bool(get("over"), "over")
    st.rng = rng if rng is not None else rng_from(get("rng"))
    _check_flow(st)


def _read_seat(r: Reader, area: Any, raw: Mapping[str, Any], where: str, round_: int) -> None:
    get = lambda key: r.field(raw, key, f"{where}.{key}")  # noqa: E731
    geisha = get("geisha")
    area.geisha = -1 if geisha is None else r.geisha(geisha, f"{where}.geisha")
    area.hand = r.cards(get("hand"), f"{where}.hand")
    area.guests = r.cards(get("guests"), f"{where}.guests")
    area.ads = r.cards(get("advertisers"), f"{where}.advertisers")
    area.extra_turns = r.int(get("extra_turns"), f"{where}.extra_turns", 0)
    area.round_vp = [
        r.int(v, f"{where}.round_vp[{i}]", 0)
        for i, v in enumerate(r.list(get("round_vp"), f"{where}.round_vp"))
    ]
    area.round_hand = [
        r.int(v, f"{where}.round_hand[{i}]", 0)
        for i, v in enumerate(r.list(get("round_hand"), f"{where}.round_hand"))
    ]
    if len(area.round_vp) not in (round_ - 1, round_) or (round_ == 0 and area.round_vp):
        raise PositionError(
            f"{where}.round_vp", f"has {len(area.round_vp)} rounds in round {round_}"
        )
    if len(area.round_hand) != len(area.round_vp):
        raise PositionError(f"{where}.round_hand", "must have one entry per scored round")
    area.total = r.int(get("total"), f"{where}.total", 0)
    if area.total != sum(area.round_vp):
        raise PositionError(
            f"{where}.total", f"is {area.total}, round_vp adds up to {sum(area.round_vp)}"
        )


def _read_decision(r: Reader, st: MaiStarState, raw: Any) -> None:
    st.decision, st.handler = None, ("", ())
    if raw is None:
        return
    keys = ("seat", "kind", "prompt", "options", "handler")
    d = r.map(raw, "decision", keys)
    for key in keys:
        r.field(d, key, f"decision.{key}")
    seat = r.seat(d["seat"], "decision.seat")
    if not isinstance(d["kind"], str) or not isinstance(d["prompt"], str):
        raise PositionError("decision.kind", "kind and prompt must be strings")
    options = r.list(d["options"], "decision.options")
    if not options:
        raise PositionError("decision.options", "must offer at least one option")
    parsed = tuple(r.option(o, f"decision.options[{i}]") for i, o in enumerate(options))
    name, *ctx = r.frame(d["handler"], "decision.handler", HANDLERS)
    st.decision = Decision(seat, d["kind"], parsed, d["prompt"])
    st.handler = (name, tuple(ctx))


def _check_flow(st: MaiStarState) -> None:
    """What the zones cannot say: the game is either over or has something left to do."""
    played = [len(a.round_vp) for a in st.seats]
    if len(set(played)) > 1:
        raise PositionError("seats", "every seat must have scored the same rounds")
    if st.over:
        if st.decision is not None or st.stack or played[0] != len(HAND_SIZES):
            raise PositionError("over", "a finished game has scored 3 rounds and nothing pending")
        return
    if st.decision is None and not st.stack:
        raise PositionError("stack", "nothing pending in a game that is not over")
    choosing = st.handler[0] == "geisha_chosen" or any(
        f[0] in ("select_geisha", "start_round") for f in st.stack
    )
    for s, area in enumerate(st.seats):
        if area.geisha < 0 and not choosing:
            raise PositionError(f"seats[{s}].geisha", "is null outside geisha selection")


def load_state(
    players: int,
    options: dict[str, Any],
    data: Mapping[str, Any],
    rng: KeyedRandom | None = None,
) -> MaiStarState:
    """A state from a full position; runs scheduled steps if no decision is written."""
    from .state import MaiStarState, Seat

    st = MaiStarState.__new__(MaiStarState)
    st.n = players
    st.options = dict(options)
    st.log = EventLog()
    st.seats = [Seat() for _ in range(players)]
    read(st, data, rng)
    st.advance()
    return st
