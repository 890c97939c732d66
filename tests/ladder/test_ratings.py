"""Ratings and statistics are pure functions of the results taken in schedule order."""

from __future__ import annotations

import random

import pytest

from arena.ladder.ratings import (
    MatchRecord,
    RatingSettings,
    SeatRecord,
    bootstrap_ci,
    compare,
    head_to_head,
    ladder_stats,
    rate,
    seat_effects,
    set_relative_scores,
)

BOTS = ("a", "b", "c")


def match(
    pos: int, set_id: str, seats: list[tuple[str, float, int]], status: str = "ok"
) -> MatchRecord:
    records = tuple(
        SeatRecord(b, s, r, status if i == 2 else "ok") for i, (b, s, r) in enumerate(seats)
    )
    return MatchRecord(pos, f"m{pos}", set_id, records)


def duplicate_sets(n: int, rng: random.Random) -> list[MatchRecord]:
    """``n`` 3-seat sets where a scores most on average, c least, with noise."""
    out = []
    for k in range(n):
        for rot in range(3):
            bots = [BOTS[(i + rot) % 3] for i in range(3)]
            skill = {"a": 10, "b": 5, "c": 0}
            scores = [skill[b] + rng.gauss(0, 6) + 3 * (seat == 0) for seat, b in enumerate(bots)]
            order = sorted(range(3), key=lambda s: -scores[s])
            ranks = [order.index(s) for s in range(3)]
            out.append(match(3 * k + rot, f"s{k}", list(zip(bots, scores, ranks, strict=True))))
    return out


@pytest.mark.parametrize("model", ["trueskill", "openskill"])
def test_ratings_order_bots_and_do_not_depend_on_arrival_order(model: str) -> None:
    matches = duplicate_sets(40, random.Random(1))
    settings = RatingSettings(model=model)
    stats = ladder_stats(matches, settings, BOTS)
    assert [s.bot for s in stats] == ["a", "b", "c"]
    shuffled = matches[:]
    random.Random(2).shuffle(shuffled)
    assert ladder_stats(shuffled, settings, BOTS) == stats
    ratings, history = rate(shuffled, settings, BOTS)
    assert len(history) == 3 * len(matches)
    assert [h.position for h in history] == sorted(h.position for h in history)
    assert ratings["a"] == stats[0].rating


def test_ties_are_draws_and_teams_share_an_update() -> None:
    settings = RatingSettings()
    tie = [match(0, "s", [("a", 1, 0), ("b", 1, 0), ("c", 0, 2)])]
    ratings, _ = rate(tie, settings, BOTS)
    assert ratings["a"].mu == pytest.approx(ratings["b"].mu, abs=0.01)
    assert ratings["a"].mu > ratings["c"].mu
    seats = (SeatRecord("a", 1, 0, "ok"), SeatRecord("b", 0, 1, "ok"), SeatRecord("c", 1, 0, "ok"))
    teams = [MatchRecord(0, "t", "s", seats, teams=((0, 2), (1,)))]
    ratings, history = rate(teams, settings, BOTS)
    assert ratings["a"] == ratings["c"] and ratings["a"].mu > ratings["b"].mu
    assert len(history) == 3


def test_counts_faults_and_relative_scores() -> None:
    matches = [
        match(0, "s", [("a", 3, 0), ("b", 0, 1), ("c", -3, 2)], status="timeout"),
        match(1, "s", [("b", 3, 0), ("c", 0, 1), ("a", -3, 2)]),
        match(2, "s", [("c", 0, 0), ("a", 0, 0), ("b", 0, 0)]),
        match(3, "t", [("a", 9, 0), ("b", 0, 1), ("c", 0, 1)]),  # incomplete set: no relative
    ]
    stats = {s.bot: s for s in ladder_stats(matches, RatingSettings(), BOTS)}
    a = stats["a"]
    assert (a.games, a.wins, a.mean_rank, a.mean_score) == (4, 3, 0.5, 2.25)
    assert stats["c"].faults == {"timeout": 1} and a.faults == {}
    assert set_relative_scores(matches) == {"s": {"a": 0.0, "b": 1.0, "c": -1.0}}
    assert (a.sets, a.relative, a.relative_ci) == (1, 0.0, (0.0, 0.0))
    by_seat = [e.as_dict() for e in seat_effects(matches, 100)]
    assert [(e["matches"], e["wins"], e["sets"]) for e in by_seat] == [
        (4, 4, 1),
        (4, 1, 1),
        (4, 1, 1),
    ]
    assert [e["relative_score"] for e in by_seat] == [2.0, 0.0, -2.0]  # set "s" only
    assert by_seat[0]["mean_rank"] == 0.0 and by_seat[0]["relative_ci"] == [2.0, 2.0]


def test_bootstrap_interval_is_seeded_and_covers_the_mean() -> None:
    rng = random.Random(5)
    values = [rng.gauss(2, 1) for _ in range(50)]
    lo, hi = bootstrap_ci(values, 1000, "k")
    assert lo < sum(values) / 50 < hi
    assert bootstrap_ci(values, 1000, "k") == (lo, hi)


def test_head_to_head_and_compare() -> None:
    matches = duplicate_sets(30, random.Random(3))
    pairs = head_to_head(matches)
    assert pairs["a", "b"][1] == pairs["b", "a"][1] == 90
    assert pairs["a", "b"][0] + pairs["b", "a"][0] == 90  # no ties with continuous scores
    assert pairs["a", "c"][0] > pairs["c", "a"][0]
    c = compare(matches, "a", "c", 1000)
    assert c.sets == 30 and c.matches == 90 and c.a_ahead == pairs["a", "c"][0]
    assert c.ci is not None and 0 < c.ci[0] < c.mean_difference < c.ci[1]
    assert compare(matches, "c", "a", 1000).mean_difference == pytest.approx(-c.mean_difference)


def test_seat_effects_find_a_first_seat_advantage() -> None:
    """Seat 0 scores 3 more in ``duplicate_sets``: 2 above its table's mean, whoever sits there."""
    effects = seat_effects(duplicate_sets(60, random.Random(4)), 1000)
    assert [(e.seat, e.matches, e.sets) for e in effects] == [(s, 180, 60) for s in range(3)]
    first, *others = effects
    assert first.relative_ci is not None and 0 < first.relative_ci[0] < 2 < first.relative_ci[1]
    assert all(first.wins > e.wins for e in others)
    assert sum(e.relative for e in effects if e.relative is not None) == pytest.approx(0)
    assert seat_effects([], 1000) == []
