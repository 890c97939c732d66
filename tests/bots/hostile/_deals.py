"""What a bot can try to learn a deal: the derivations the ladder schedule used to allow, brute
force of small seeds, and rebuilding a Mersenne Twister from its outputs.

Used by ``deal_reader.py`` (a hostile bot, inside the sandbox), by the tests and by
``bench/hostile.py``. Only the bot's own knowledge goes in: public ladder facts (its seed, its
bots, its options), the welcome and what the seat was dealt.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Sequence
from typing import Any

from arena.games.happy_mochi import GAME
from arena.games.happy_mochi.cards import CARD_COUNT, HAND_SIZE

Deal = tuple[list[list[int]], list[int]]  # every seat's hand, and the main duo (T, U)


def digest(*parts: object) -> str:
    """The schedule's digest (``arena.ladder.schedule.digest``), rewritten as a bot would."""
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()


def fingerprint(game: str, seats: int, options: dict[str, Any]) -> str:
    """A ladder's configuration fingerprint, from what the welcome tells (``LadderConfig``)."""
    key = json.dumps([game, seats, sorted(options.items())], default=str)
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def find_set(
    match: str, seeds: Iterable[int], fp: str, table: Sequence[str], rounds: int
) -> tuple[int, str] | None:
    """(ladder seed, set id) of the match id ``match``, trying each seed: match ids are public
    digests of the ladder seed, so this finds a small one in a second."""
    joined = "\x1e".join(sorted(table))
    for seed in seeds:
        for rnd in range(rounds):
            set_id = digest("set", seed, fp, joined, rnd)[:16]
            if any(digest("match", set_id, r)[:16] == match for r in range(len(table))):
                return seed, set_id
    return None


def public_deal(set_id: str) -> int:
    """The deal identity of a set, which 1.x engines dealt from directly."""
    return int(digest("deal", set_id)[:15], 16)


def engine_deal(seed: int, players: int, options: dict[str, Any]) -> Deal:
    """The deal this engine makes from ``seed``."""
    state = GAME.new(players, seed, options)
    return [h[:] for h in state.hands], [state.tens[0], state.units[0]]


def old_engine_deal(seed: int, players: int, options: dict[str, Any]) -> Deal:
    """The deal Happy Mochi 1.x made from ``seed`` (Python's Mersenne Twister): a starting seat
    drawn when ``first_seat`` is -1, then one shuffle of the 70 cards."""
    rng = random.Random(seed)
    if options.get("first_seat", -1) < 0:
        rng.randrange(players)
    deck = list(range(CARD_COUNT))
    rng.shuffle(deck)
    hands = [deck[s * HAND_SIZE : (s + 1) * HAND_SIZE] for s in range(players)]
    return hands, deck[HAND_SIZE * players : HAND_SIZE * players + 2]


def guess(deal: Deal | None, other: int, hand: list[int], duo: list[int]) -> list[int]:
    """A full hand for seat ``other``: ``deal``'s, keeping only cards this seat has not seen,
    completed with the lowest unseen cards (what a bot without a deal would guess)."""
    seen = set(hand) | set(duo)
    picked = [c for c in (deal[0][other] if deal else []) if c not in seen]
    rest = [c for c in range(CARD_COUNT) if c not in seen and c not in picked]
    return (picked + rest)[: len(hand)]


def read_deal(
    seat: int,
    hand: list[int],
    duo: list[int],
    options: dict[str, Any],
    identity: int | None,
    brute: int,
) -> tuple[str | None, list[int]]:
    """Try every derivation against what seat ``seat`` (of 2) was dealt: the set's public deal
    identity, then seeds 0..brute-1, each with this engine and with 1.x's. The first that deals
    this hand and main duo, if any, and the other seat's hand it predicts."""
    candidates = [("schedule", identity)] if identity is not None else []
    candidates += [("brute force", s) for s in range(brute)]
    for how, seed in candidates:
        for engine, dealer in (("engine", engine_deal), ("1.x engine", old_engine_deal)):
            deal = dealer(seed, 2, options)
            if deal[0][seat] == hand and deal[1] == duo:
                return f"{how} {seed} ({engine})", guess(deal, 1 - seat, hand, duo)
    best = engine_deal(identity, 2, options) if identity is not None else None
    return None, guess(best, 1 - seat, hand, duo)


def _untemper(y: int) -> int:
    """The Mersenne Twister word behind one 32-bit output (each tempering step undone)."""
    y ^= y >> 18
    y ^= (y << 15) & 0xEFC60000
    x = y
    for _ in range(5):
        x = y ^ ((x << 7) & 0x9D2C5680)
    y = x
    for _ in range(3):
        x = y ^ (x >> 11)
    return x & 0xFFFFFFFF


def clone_mt(outputs: Sequence[int]) -> random.Random:
    """A Mersenne Twister that goes on as the one which gave these 624 32-bit outputs did."""
    words = tuple(_untemper(o) for o in outputs[-624:])
    rng = random.Random()
    rng.setstate((3, (*words, 624), None))
    return rng


def predicted_outputs(rng: random.Random, observed: int = 624, next_: int = 1000) -> int:
    """How many of ``rng``'s next 32-bit outputs a Twister cloned from ``observed`` predicts."""
    clone = clone_mt([rng.getrandbits(32) for _ in range(observed)])
    return sum(clone.getrandbits(32) == rng.getrandbits(32) for _ in range(next_))
