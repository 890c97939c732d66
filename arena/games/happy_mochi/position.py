"""Happy Mochi positions: a state as JSON-able data, its checks, and the hand-written short form.

The fields are documented in README.md ("Positions"). Every card is in exactly one zone (RULES.md
1-2), so :func:`load` checks that first; then counts, seats and the pending decision, which it
rebuilds from the zones exactly as the engine would ask it (``MochiState._reask``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.base import POSITION_KEYS, PositionError
from arena.games.rng import KeyedRandom, rng_from, rng_state

from . import choices as ch
from .cards import CARD_COUNT, COLOURS, EFFECTS, card_id
from .state import OVER, MochiState

ZONES = ("hands", "reserves", "holding", "T", "U", "draw", "aside")
PHASES = (*ch.PROMPTS, OVER)
HOLDERS_NEEDED = {ch.INSERT: "one", ch.INSERT_RECEIVED: "every"}  # phases where cards are held
END_REASONS = (None, "threshold", "max_rounds", "deck_too_small")


def write(state: MochiState) -> dict[str, Any]:
    """The full position of ``state`` (see README.md, "Positions")."""
    from . import GAME

    options = {
        "max_turns_per_round": state.max_turns,
        "max_rounds": state.max_rounds,
        "first_seat": -1,
    }
    answers: list[int | None] = [state.answers.get(s) for s in range(state.n)]
    return {
        **GAME.envelope(state.n, options),
        "round": state.round,
        "starter": state.starter,
        "active": state.active,
        "direction": "+" if state.direction > 0 else "-",
        "turn": state.turns,
        "passes": state.passes,
        "phase": state.phase,
        "effects": state.effects[:],
        "target": state.target,
        "answers": answers,
        "hands": [h[:] for h in state.hands],
        "reserves": [r[:] for r in state.reserves],
        "holding": state.holding[:],
        "T": state.tens[:],
        "U": state.units[:],
        "draw": state.draw[:],
        "aside": state.aside[:],
        "totals": state.totals[:],
        "round_scores": [r[:] for r in state.round_scores],
        "round_winners": state.round_winners[:],
        "end_reason": state.end_reason,
        "rng": rng_state(state.rng),
    }


# ---------------------------------------------------------------------------------- checks


def _int(data: Mapping[str, Any], key: str, low: int, high: int | None = None) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise PositionError(key, f"must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f"at least {low}"
        raise PositionError(key, f"must be {bound}, got {value}")
    return value


def _seat_or_none(data: Mapping[str, Any], key: str, players: int) -> int | None:
    if data.get(key) is None:
        return None
    return _int(data, key, 0, players - 1)


def _per_seat(data: Mapping[str, Any], key: str, players: int) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list) or len(value) != players:
        raise PositionError(key, f"must be a list of {players} entries (one per seat)")
    return value


def _card(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < CARD_COUNT:
        raise PositionError(where, f"must be a card id 0..{CARD_COUNT - 1}, got {value!r}")
    return value


def _cards(value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        raise PositionError(where, "must be a list of card ids")
    return [_card(card, f"{where}[{i}]") for i, card in enumerate(value)]


def _check_every_card_once(zones: dict[str, list[int]]) -> None:
    """RULES.md 1-2: each of the 70 cards in exactly one zone."""
    seen: dict[int, str] = {}
    for where, cards in zones.items():
        for i, card in enumerate(cards):
            here = f"{where}[{i}]"
            if card in seen:
                raise PositionError(here, f"card {card} is also in {seen[card]}")
            seen[card] = here
    missing = [card for card in range(CARD_COUNT) if card not in seen]
    if missing:
        raise PositionError("cards", f"card {missing[0]} is in no zone ({', '.join(ZONES)})")


def _check_phase(state: MochiState) -> None:
    """The pending decision must be one the engine could be asking with these zones."""
    phase, n = state.phase, state.n
    holders = [s for s in range(n) if state.holding[s] is not None]
    need = HOLDERS_NEEDED.get(phase)
    if need == "one" and len(holders) != 1:
        raise PositionError("holding", "an insert needs exactly one seat holding a card")
    if need == "every" and len(holders) != n:
        raise PositionError("holding", "insert_received needs every seat holding a card")
    if need is None and holders:
        raise PositionError("holding", f"no card is held during {phase}")
    if phase == OVER:
        return
    if not state.tens or not state.units:
        raise PositionError("T" if not state.tens else "U", "needs at least one card (R3)")
    if phase == ch.EFFECT_ORDER and (len(state.effects) != 2 or len(set(state.effects)) != 2):
        raise PositionError("effects", "effect_order needs two different effects pending")
    if phase == ch.FORCE_DRAW_SOURCE:
        if state.target is None:
            raise PositionError("target", "force_draw_source needs a target seat")
        if not state._sources(state.target):
            raise PositionError("target", "the force_draw target has no source to draw from")
    if (
        phase in (ch.USE_PASS_LEFT, ch.USE_RESERVE, ch.RESERVE_CARD)
        and not state.hands[state.active]
    ):
        raise PositionError("hands", f"{phase} needs cards in the active seat's hand")
    if phase == ch.PASS_CARD and not all(state.hands):
        raise PositionError("hands", "pass_card needs a card in every hand (4.3)")
    if phase == ch.ROUND_RESERVE and not any(state.hands):
        raise PositionError("hands", "round_reserve needs a seat with hand cards")


def _check_answers(state: MochiState, answers: list[Any]) -> None:
    """Buffered answers: only for a simultaneous decision, in range, and not yet all given."""
    given: dict[int, int] = {}
    for seat, answer in enumerate(answers):
        if answer is None:
            continue
        where = f"answers[{seat}]"
        options = state.waiting.get(seat)
        if state.phase not in ch.SIMULTANEOUS or options is None:
            raise PositionError(where, f"seat {seat} has no simultaneous decision to answer")
        if not isinstance(answer, int) or isinstance(answer, bool):
            raise PositionError(where, f"must be an option index or null, got {answer!r}")
        if not 0 <= answer < len(options):
            raise PositionError(where, f"must be 0..{len(options) - 1}, got {answer}")
        given[seat] = answer
    if given and len(given) == len(state.waiting):
        raise PositionError("answers", "every seat has answered: the decision would be resolved")
    state.answers = given


FIELDS = (
    *POSITION_KEYS,
    "round", "starter", "active", "direction", "turn", "passes", "phase", "effects", "target",
    "answers", *ZONES, "totals", "round_scores", "round_winners", "end_reason", "rng",
)  # fmt: skip


def load(players: int, options: dict[str, Any], data: Mapping[str, Any]) -> MochiState:
    """A state from a full position, checked field by field (PositionError names the field)."""
    unknown = [key for key in data if key not in FIELDS]
    if unknown:
        raise PositionError(str(unknown[0]), "is not a Happy Mochi position field")
    state = MochiState.blank(players, options, rng_from(data.get("rng")))
    state.round = _int(data, "round", 0)
    state.active = _int(data, "active", 0, players - 1)
    state.starter = _int(data, "starter", 0, players - 1)
    direction = data.get("direction")
    if direction not in ("+", "-"):
        raise PositionError("direction", f"must be '+' or '-', got {direction!r}")
    state.direction = 1 if direction == "+" else -1
    state.turns = _int(data, "turn", 0, state.max_turns)
    state.passes = _int(data, "passes", 0, players)
    phase = data.get("phase")
    if phase not in PHASES:
        raise PositionError("phase", f"must be one of {', '.join(PHASES)}, got {phase!r}")
    state.phase = phase
    effects = data.get("effects")
    if not isinstance(effects, list) or len(effects) > 2 or any(e not in EFFECTS for e in effects):
        raise PositionError("effects", f"must list at most two of {', '.join(EFFECTS)}")
    state.effects = list(effects)
    state.target = _seat_or_none(data, "target", players)
    end_reason = data.get("end_reason")
    if end_reason not in END_REASONS or (end_reason is None) != (phase != OVER):
        raise PositionError("end_reason", "must be null while playing, else the reason it ended")
    state.end_reason = end_reason

    zones: dict[str, list[int]] = {}
    for key in ("hands", "reserves", "holding"):
        per_seat = _per_seat(data, key, players)
        for seat, value in enumerate(per_seat):
            where = f"{key}[{seat}]"
            if key == "holding":
                zones[where] = [] if value is None else [_card(value, where)]
            else:
                zones[where] = _cards(value, where)
    for key in ("T", "U", "draw", "aside"):
        zones[key] = _cards(data.get(key), key)
    _check_every_card_once(zones)
    state.hands = [zones[f"hands[{s}]"] for s in range(players)]
    state.reserves = [sorted(zones[f"reserves[{s}]"]) for s in range(players)]
    state.holding = [next(iter(zones[f"holding[{s}]"]), None) for s in range(players)]
    state.tens, state.units, state.draw = zones["T"], zones["U"], zones["draw"]
    state.aside = sorted(zones["aside"])

    state.totals = [
        _points(v, f"totals[{s}]") for s, v in enumerate(_per_seat(data, "totals", players))
    ]
    rows = data.get("round_scores")
    if not isinstance(rows, list):
        raise PositionError("round_scores", "must be a list of per-seat score lists")
    for r, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != players:
            raise PositionError(f"round_scores[{r}]", f"must list {players} scores")
    state.round_scores = [
        [_points(v, f"round_scores[{r}][{s}]") for s, v in enumerate(row)]
        for r, row in enumerate(rows)
    ]
    winners = data.get("round_winners")
    if not isinstance(winners, list) or len(winners) != len(rows):
        raise PositionError("round_winners", "must hold one seat or null per scored round")
    for r, winner in enumerate(winners):
        _seat_or_none({f"round_winners[{r}]": winner}, f"round_winners[{r}]", players)
    state.round_winners = list(winners)

    _check_phase(state)
    answers = _per_seat(data, "answers", players)
    state._reask()
    _check_answers(state, answers)
    state._pending = None
    return state


def _points(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise PositionError(where, f"must be a non-negative integer, got {value!r}")
    return value


# ---------------------------------------------------------------------------------- short form


def card_from_name(value: Any, where: str) -> int:
    """A card by name, ``"blue 4"`` (colour, number), or by id."""
    if isinstance(value, str):
        colour, _, number = value.strip().partition(" ")
        if colour not in COLOURS or not number.strip().isdigit():
            raise PositionError(where, f"unknown card {value!r} (write it as 'blue 4')")
        try:
            return card_id(int(number), colour)
        except ValueError:
            raise PositionError(where, f"unknown card {value!r}") from None
    return _card(value, where)


def _named(value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        raise PositionError(where, "must be a list of cards")
    return [card_from_name(card, f"{where}[{i}]") for i, card in enumerate(value)]


SHORT_DEFAULTS: dict[str, Any] = {
    "round": 1,
    "direction": "+",
    "turn": 0,
    "passes": 0,
    "phase": ch.TURN,
    "effects": [],
    "target": None,
    "round_scores": [],
    "round_winners": [],
    "end_reason": None,
    "draw": [],
}


def expand(short: Mapping[str, Any]) -> dict[str, Any]:
    """The full position of a short one (README.md, "Short form")."""
    from . import GAME

    hands = short.get("hands")
    if not isinstance(hands, list) or not hands:
        raise PositionError("hands", "the short form needs one hand per seat")
    players = short.get("players", len(hands))
    full: dict[str, Any] = {**SHORT_DEFAULTS, **GAME.envelope(players, short.get("options") or {})}
    for key, value in short.items():
        if key not in ("form", "seed", "players", "options"):
            full[key] = value
    full.setdefault("active", 0)
    full.setdefault("starter", full["active"])
    per_seat = {
        "hands": [],
        "reserves": [[] for _ in hands],
        "holding": [None for _ in hands],
    }
    placed: list[int] = []
    for key, default in per_seat.items():
        value = full.get(key, default)
        if not isinstance(value, list):
            raise PositionError(key, "must be a list with one entry per seat")
        if key == "holding":
            full[key] = [
                None if card is None else card_from_name(card, f"holding[{s}]")
                for s, card in enumerate(value)
            ]
            placed.extend(card for card in full[key] if card is not None)
        else:
            full[key] = [_named(cards, f"{key}[{s}]") for s, cards in enumerate(value)]
            placed.extend(card for cards in full[key] for card in cards)
    for key in ("T", "U", "draw"):
        if key not in full:  # draw has a default, so only T or U can be missing
            raise PositionError(key, "the short form needs both main-duo piles (T and U)")
        full[key] = _named(full[key], key)
        placed.extend(full[key])
    if "aside" in short:
        full["aside"] = _named(short["aside"], "aside")
    else:
        given = set(placed)
        full["aside"] = [card for card in range(CARD_COUNT) if card not in given]
    full.setdefault("totals", [0] * len(hands))
    full.setdefault("answers", [None] * len(hands))
    seed = short.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise PositionError("seed", f"must be an integer, got {seed!r}")
    full.setdefault("rng", rng_state(KeyedRandom(seed)))
    return full
