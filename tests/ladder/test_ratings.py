"""Ratings and statistics are pure functions of the results taken in schedule order."""

from __future__ import annotations

import json
import random

import pytest

from arena.ladder.ratings import (
    MatchRecord,
    RatingSettings,
    SeatRecord,
    rate,
    set_relative_scores,
)
from arena.ladder.tally import compare, head_to_head, ladder_stats, seat_effects
from arena.report.tables import compare_table, ladder_table, matches_table, place_labels

BOTS = ("a", "b", "c")
RANGE = (-40.0, 50.0)  # the scores of ``duplicate_sets``, clipped
SETTINGS = RatingSettings(score_range=RANGE)


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
            scores = [
                min(max(skill[b] + rng.gauss(0, 6) + 3 * (seat == 0), RANGE[0]), RANGE[1])
                for seat, b in enumerate(bots)
            ]
            order = sorted(range(3), key=lambda s: -scores[s])
            ranks = [order.index(s) for s in range(3)]
            out.append(match(3 * k + rot, f"s{k}", list(zip(bots, scores, ranks, strict=True))))
    return out


@pytest.mark.parametrize("model", ["trueskill", "openskill"])
def test_ratings_order_bots_and_do_not_depend_on_arrival_order(model: str) -> None:
    matches = duplicate_sets(40, random.Random(1))
    settings = RatingSettings(model=model, score_range=RANGE)
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
    stats = {s.bot: s for s in ladder_stats(matches, SETTINGS, BOTS)}
    a = stats["a"]
    assert (a.games, a.wins, a.mean_rank, a.mean_score) == (4, 3, 0.5, 2.25)
    assert stats["c"].faults == {"timeout": 1} and a.faults == {}
    assert set_relative_scores(matches) == {"s": {"a": 0.0, "b": 1.0, "c": -1.0}}
    # one set: an interval valid from the first set on, and as wide as one set leaves it
    assert (a.sets, a.relative.mean) == (1, 0.0)
    low, high = a.relative_ci or (0, 0)
    assert low < -25 and high > 25
    by_seat = [e.as_dict() for e in seat_effects(matches, RANGE)]
    assert [(e["matches"], e["wins"], e["sets"]) for e in by_seat] == [
        (4, 4, 1),
        (4, 1, 1),
        (4, 1, 1),
    ]
    assert [e["relative_score"] for e in by_seat] == [2.0, 0.0, -2.0]  # set "s" only
    assert by_seat[0]["mean_rank"] == 0.0 and by_seat[0]["relative_ci"][0] < 0


def test_a_forfeited_seat_never_wins() -> None:
    """Both seats of a 2-seat match crash: both share rank 0, and neither is credited."""
    both = (SeatRecord("a", 5, 0, "crashed"), SeatRecord("b", 1, 0, "crashed"))
    one = (SeatRecord("a", 9, 1, "timeout"), SeatRecord("b", 1, 0, "ok"))
    matches = [MatchRecord(0, "m0", "s", both), MatchRecord(1, "m1", "s", one[::-1])]
    stats = {s.bot: s for s in ladder_stats(matches, SETTINGS, ("a", "b"))}
    assert (stats["a"].wins, stats["b"].wins) == (0, 1)
    assert [e.wins for e in seat_effects(matches, RANGE)] == [1, 0]
    # the stand-in's 9 points are not a's: a counts with the table's lowest score, 1
    assert set_relative_scores(matches) == {"s": {"a": 0.0, "b": 0.0}}
    ratings, history = rate(matches[:1], RatingSettings(), ("a", "b"))
    assert history == [] and ratings["a"] == ratings["b"]  # no winner, nothing learnt
    assert head_to_head(matches[:1]) == {("a", "b"): (0, 1), ("b", "a"): (0, 1)}


def test_places_are_shared_until_the_order_is_established() -> None:
    """a is far ahead of b and c, which are equal: places 1, 2=, 2=."""
    rng = random.Random(6)
    matches = []
    for k in range(30):
        for rot in range(3):
            bots = [BOTS[(i + rot) % 3] for i in range(3)]
            scores = [10 * (b == "a") + rng.gauss(0, 3) for b in bots]
            order = sorted(range(3), key=lambda s: -scores[s])
            ranks = [order.index(s) for s in range(3)]
            matches.append(match(3 * k + rot, f"s{k}", list(zip(bots, scores, ranks, strict=True))))
    stats = ladder_stats(matches, SETTINGS, BOTS)
    assert [(s.place, s.tied) for s in stats] == [(1, False), (2, False), (2, True)]
    assert stats[0].bot == "a" and place_labels(stats) == ["1", "2=", "2="]
    few = ladder_stats(matches[:6], SETTINGS, BOTS)  # 2 sets: too few for any verdict
    assert place_labels(few) == ["1=", "1=", "1="]


def test_head_to_head_and_compare() -> None:
    matches = duplicate_sets(60, random.Random(3))
    pairs = head_to_head(matches)
    assert pairs["a", "b"][1] == pairs["b", "a"][1] == 180
    assert pairs["a", "b"][0] + pairs["b", "a"][0] == 180  # no ties with continuous scores
    assert pairs["a", "c"][0] > pairs["c", "a"][0]
    c = compare(matches, "a", "c", RANGE)
    d = c.difference
    assert d.sets == 60 and c.matches == 180 and c.a_ahead == pairs["a", "c"][0]
    assert d.ci is not None and d.mean is not None and 0 < d.ci[0] < d.mean < d.ci[1]
    stronger = "a is stronger: a higher mean score and ahead in more sets (95%, anytime)"
    assert c.verdict == stronger and c.set_counts[0] > 20
    back = compare(matches, "c", "a", RANGE)
    assert back.difference.mean == pytest.approx(-d.mean)
    assert back.verdict == stronger


def test_seat_effects_find_a_first_seat_advantage() -> None:
    """Seat 0 scores 3 more in ``duplicate_sets``: 2 above its table's mean, whoever sits there
    (small against the range of the scores: it takes 200 sets to be sure at every look)."""
    effects = seat_effects(duplicate_sets(200, random.Random(4)), RANGE)
    assert [(e.seat, e.matches, e.relative.sets) for e in effects] == [
        (s, 600, 200) for s in range(3)
    ]
    first, *others = effects
    ci = first.relative.ci
    assert ci is not None and 0 < ci[0] < 2 < ci[1]
    assert all(first.wins > e.wins for e in others)
    assert sum(e.relative.mean for e in effects if e.relative.mean is not None) == pytest.approx(0)
    assert seat_effects([], RANGE) == []


def test_tables_fit_the_terminal_and_end_compare_with_the_verdict() -> None:
    matches = duplicate_sets(10, random.Random(7))
    stats = ladder_stats(matches, SETTINGS, BOTS)
    header = {"ladder": "x"}
    narrow = ladder_table(stats, "table", header, width=80).splitlines()
    assert max(map(len, narrow)) <= 80
    assert narrow[0].split()[:3] == ["#", "bot", "mu-3σ"]
    assert "rel. score [95% anytime]" in narrow[0]
    wide = ladder_table(stats, "table", header, width=None).splitlines()
    assert max(map(len, wide)) > 80 and "mean score" in wide[0] and "sigma" in wide[0]
    assert json.loads(ladder_table(stats, "json", header, width=80))["bots"][0]["sigma"] > 0
    text = compare_table(compare(matches, "a", "c", RANGE), "table").splitlines()
    assert text[-1].startswith("a finishes ahead of c in more sets (95%, anytime)")
    assert any("95% anytime (valid at every look)" in t for t in text)
    assert any(t.split()[:6] == ["sets", "a", "ahead", "/", "c", "ahead"] for t in text)
    few = compare_table(compare(matches[:6], "a", "c", RANGE), "table").splitlines()
    assert few[-1] == (
        "mean score not distinguishable yet: no results of fewer than 7 sets can decide it in "
        "this game's score range [-90, 90]"
    )


def test_matches_json_holds_real_arrays_and_objects() -> None:
    row = {
        "id": "m",
        "seats": '["a", "b"]',
        "options": '{"max_rounds": 1}',
        "outcome": '{"ranks": [0, 1]}',
        "results": [{"bot": "a", "warnings": '{"slow": 1}', "incidents": "[]", "log_tail": "[x"}],
    }
    (out,) = json.loads(matches_table([row], "json"))
    assert out["seats"] == ["a", "b"] and out["options"] == {"max_rounds": 1}
    assert out["outcome"]["ranks"] == [0, 1]
    assert out["results"][0]["warnings"] == {"slow": 1} and out["results"][0]["incidents"] == []
    assert out["results"][0]["log_tail"] == "[x"  # text stays text
