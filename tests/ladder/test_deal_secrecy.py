"""No bot can compute the deal (issue 24, item 1): a hostile bot, through the real referee and
sandbox, in a real ladder with its processes kept between matches, tries every derivation a bot
author knows of (``tests/bots/hostile/_deals.py``) and predicts its opponent's hand.

The attacks themselves work where the old weakness would be: ``test_the_attacks_read_a_deal_
from_a_public_or_small_seed`` shows each one reads a deal made from the public deal identity
(the 1.x scheme) or from a small seed, so the ladder test has the power to see a leak.
"""

from __future__ import annotations

import math
import re
import sqlite3
from pathlib import Path

import pytest

from arena.games.happy_mochi import GAME
from arena.games.happy_mochi.cards import CARD_COUNT, HAND_SIZE
from arena.ladder.schedule import engine_seed
from tests.bots.hostile._deals import engine_deal, old_engine_deal, read_deal
from tests.ladder.helpers import RANDOM, ROOT, arena, toml_value

READER = ROOT / "tests" / "bots" / "hostile" / "deal_reader.py"
OPTIONS = {"max_rounds": 1, "max_turns_per_round": 10}
LADDER_SEED = 1234
ROUNDS = 6  # one table, 6 sets of 2 rotations: 12 matches, the reader in every one
BRUTE = 1500  # seeds tried, as ladder seed and as engine seed (the bot tried 5000)
UNSEEN = CARD_COUNT - HAND_SIZE - 2  # what a seat cannot see at the deal: all but its hand, T, U
SIGMAS = 4  # the tolerance: hits may exceed chance's mean by 4 standard deviations


def ladder(folder: Path) -> Path:
    reader = f"python {READER} --bots random,reader --rounds {ROUNDS} --brute {BRUTE}"
    lines = [
        'name = "secrecy"',
        'game = "happy_mochi"',
        "seats = 2",
        f"rounds = {ROUNDS}",
        f"seed = {LADDER_SEED}",
        "[options]",
        *(f"{k} = {v}" for k, v in OPTIONS.items()),
        "[limits]",
        "move_ms = 10000",
        "bank_ms = 30000",
        "[[bots]]",
        'name = "reader"',
        f"command = {toml_value(reader)}",
        "limits = { output_kb = 64 }",
        "[[bots]]",
        'name = "random"',
        f"command = {toml_value(f'python {RANDOM} --seed 1')}",
    ]
    path = folder / "secrecy.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def chance(matches: int) -> tuple[float, float]:
    """Mean and standard deviation of the hits of ``matches`` guesses made without the deal:
    each is hypergeometric (7 cards guessed among the unseen, 7 of them the other hand)."""
    p = HAND_SIZE / UNSEEN
    mean = HAND_SIZE * p
    variance = HAND_SIZE * p * (1 - p) * (UNSEEN - HAND_SIZE) / (UNSEEN - 1)
    return matches * mean, math.sqrt(matches * variance)


def test_a_bot_that_knows_the_ladder_cannot_beat_chance_at_the_other_hand(tmp_path: Path) -> None:
    path = ladder(tmp_path)
    out = arena("ladder", "run", str(path), "--workers", "2", "--quiet", timeout=600)
    assert out.returncode == 0, out.stderr
    key = bytes.fromhex((tmp_path / "secrecy.db.key").read_text().strip())
    with sqlite3.connect(tmp_path / "secrecy.db") as conn:
        seeds = dict(conn.execute("SELECT id, seed FROM matches"))
        rows = conn.execute(
            "SELECT match_id, seat, status, log_tail FROM results WHERE bot = 'reader'"
        ).fetchall()
    assert len(seeds) == len(rows) == 2 * ROUNDS
    assert {status for _, _, status, _ in rows} == {"ok"}
    found = dict(re.findall(r"ATTACK ladder seed (\w+): ok (\d+ \d+)", "".join(r[3] for r in rows)))
    deals = dict(re.findall(r"ATTACK deal (\w+): (matched=.*)", "".join(r[3] for r in rows)))
    # a kept process: one seat's log tells of several matches
    assert max(r[3].count("ATTACK deal") for r in rows) > 1
    hits = 0
    for match_id, seat, _, _ in rows:
        # the schedule is public: the bot found the ladder seed and this set's deal identity...
        assert found[match_id] == f"{LADDER_SEED} {seeds[match_id]}"
        matched, predicted = re.fullmatch(
            r"matched=(.*) predicted=([\d,]+)", deals[match_id]
        ).groups()
        # ...but no derivation dealt its own hand,
        assert matched == "none"
        # and its guess of the other hand is a guess
        hands = GAME.new(2, engine_seed(key, seeds[match_id]), OPTIONS).hands
        hits += len(set(map(int, predicted.split(","))) & set(hands[1 - seat]))
    mean, sd = chance(len(rows))
    assert hits <= mean + SIGMAS * sd, (hits, mean, sd)


@pytest.mark.parametrize(
    ("dealer", "seed", "identity", "how"),
    [
        (old_engine_deal, 987_654_321_012, 987_654_321_012, "schedule 987654321012 (1.x engine)"),
        (engine_deal, 987_654_321_012, 987_654_321_012, "schedule 987654321012 (engine)"),
        (engine_deal, 77, None, "brute force 77 (engine)"),
        (old_engine_deal, 12, None, "brute force 12 (1.x engine)"),
    ],
)
def test_the_attacks_read_a_deal_from_a_public_or_small_seed(
    dealer: object, seed: int, identity: int | None, how: str
) -> None:
    """Were cards dealt from the public deal identity (as 1.x ladders did) or from a small
    seed, the bot would name every card of the other hand."""
    hands, duo = dealer(seed, 2, OPTIONS)  # type: ignore[operator]
    assert read_deal(1, hands[1], duo, OPTIONS, identity, 100) == (how, hands[0])
