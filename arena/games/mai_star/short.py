"""The short, hand-written form of a Mai-Star position: a turn about to start, cards by name.

Tests and puzzles name only what matters (geishas, hands, guests, advertisers, the top of the
deck); everything else gets a default. README.md "Short form" lists the fields.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..base import PositionError
from ..rng import KeyedRandom, rng_state
from .data import CARD_IDS, CARD_INDEX, FULL_DECK, GEISHA_INDEX, GEISHAS, HAND_SIZES

SHORT_FIELDS = (
    "form",
    "game",
    "version",
    "options",
    "players",
    "geishas",
    "hands",
    "guests",
    "advertisers",
    "deck",
    "discard",
    "rest",
    "active",
    "round",
    "scores",
    "extra_turns",
    "akenohoshi_used",
    "seed",
)


def _per_seat(short: Mapping[str, Any], key: str, players: int, default: Any) -> list[Any]:
    """A per-seat field given as a list (seat order) or a map from seat to value."""
    raw = short.get(key)
    out = [default() for _ in range(players)]
    if raw is None:
        return out
    if isinstance(raw, list):
        items = list(enumerate(raw))
    elif isinstance(raw, Mapping):
        items = list(raw.items())
    else:
        raise PositionError(key, "must be a list in seat order or a map from seat to value")
    if len(items) > players:
        raise PositionError(key, f"has {len(items)} entries for {players} players")
    for seat, value in items:
        index = int(seat) if isinstance(seat, int | str) and str(seat).isdigit() else -1
        if not 0 <= index < players:
            raise PositionError(f"{key}.{seat}", f"is not a seat of this {players}-player game")
        out[index] = value
    return out


def _names(value: Any, where: str) -> list[str]:
    if not isinstance(value, list):
        raise PositionError(where, "must be a list of card ids")
    for i, name in enumerate(value):
        if name not in CARD_INDEX:
            raise PositionError(f"{where}[{i}]", f"unknown card {name!r}")
    return list(value)


def expand(game_id: str, version: str, short: Mapping[str, Any]) -> dict[str, Any]:
    """The full position for a short one: the start of ``active``'s turn."""
    unknown = [k for k in short if k not in SHORT_FIELDS]
    if unknown:
        raise PositionError(unknown[0], "is not a field of the Mai-Star short form")
    names = short.get("geishas")
    if not isinstance(names, list) or not all(n in GEISHA_INDEX for n in names):
        known = ", ".join(g.name for g in GEISHAS)
        raise PositionError("geishas", f"must list one geisha per seat among {known}")
    players = len(names)
    if short.get("players", players) != players:
        raise PositionError("players", f"is {short['players']}, but {players} geishas are given")
    zones = {
        key: [_names(v, f"{key}.{s}") for s, v in enumerate(_per_seat(short, key, players, list))]
        for key in ("hands", "guests", "advertisers")
    }
    deck = _names(short.get("deck", []), "deck")
    left = Counter(CARD_IDS[c] for c in FULL_DECK)
    placed = [(f"{k}.{s}", cards) for k, rows in zones.items() for s, cards in enumerate(rows)]
    placed.append(("deck", deck))
    if "discard" in short:
        placed.append(("discard", _names(short["discard"], "discard")))
    for where, cards in placed:
        for name in cards:
            if left[name] == 0:
                raise PositionError(where, f"one {name} too many (the game has {left[name]} left)")
            left[name] -= 1
    rest = sorted(left.elements(), key=CARD_INDEX.__getitem__)
    seed = short.get("seed", 0)
    rng = KeyedRandom(seed)
    where_rest = short.get("rest", "discard")
    if where_rest not in ("discard", "deck"):
        raise PositionError("rest", "must be 'discard' or 'deck'")
    discard = list(short.get("discard", []))
    if where_rest == "deck":
        rng.shuffle(rest)
        deck += rest
    else:
        discard += rest
    round_ = short.get("round", 1)
    if not isinstance(round_, int) or not 1 <= round_ <= len(HAND_SIZES):
        raise PositionError("round", f"must be 1 to {len(HAND_SIZES)}, got {round_!r}")
    scores = _per_seat(short, "scores", players, lambda: [0] * (round_ - 1))
    for s, vps in enumerate(scores):
        if not isinstance(vps, list) or not all(isinstance(v, int) for v in vps):
            raise PositionError(f"scores.{s}", "must list the VP of each earlier round")
    extra = _per_seat(short, "extra_turns", players, int)
    active = short.get("active", 0)
    if not isinstance(active, int) or isinstance(active, bool) or not 0 <= active < players:
        raise PositionError("active", f"is not a seat of this {players}-player game: {active!r}")
    seats = [
        {
            "geisha": names[s],
            "hand": zones["hands"][s],
            "guests": zones["guests"][s],
            "advertisers": zones["advertisers"][s],
            "extra_turns": extra[s],
            "total": sum(scores[s]),
            "round_vp": scores[s],
            "round_hand": [0] * len(scores[s]),
        }
        for s in range(players)
    ]
    return {
        "game": game_id,
        "version": version,
        "players": players,
        "options": dict(short.get("options") or {}),
        "round": round_,
        "start_seat": active,
        "active": active,
        "geishas_available": [g.name for g in GEISHAS if g.name not in names],
        "seats": seats,
        "deck": deck,
        "deck_bottom_known": 0,
        "discard": discard,
        "turn": {"suzune_used": False, "momiji_used": False, "natsumi_uses": 0, "boost": None},
        "akenohoshi_used": short.get("akenohoshi_used", False),
        "guest_limit_reached": False,
        "final_lap": None,
        "resolving": None,
        "stack": [["turn", active, False]],
        "decision": None,
        "over": False,
        "rng": rng_state(rng),
    }
