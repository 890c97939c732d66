"""The following ladder's matchmaking and rating start: pure functions, no processes."""

from __future__ import annotations

from arena.ladder.matchmaking import next_table, pair_information
from arena.ladder.ratings import MatchRecord, RatingSettings, SeatRecord, rate

BETA = 25 / 6


def test_placement_comes_first_for_the_least_played_new_version() -> None:
    ratings = {n: (25.0, 8.3) for n in ("a", "b", "c", "new")}
    played = {"a": 9, "b": 9, "c": 9, "new": 0}
    assert "new" in next_table(["a", "b", "c", "new"], 2, ratings, played, BETA, placement=3)
    played["new"] = 3
    ratings["new"] = (40.0, 1.0)  # placed and far above: no longer first
    assert "new" not in next_table(["a", "b", "c", "new"], 2, ratings, played, BETA, 3)


def test_close_uncertain_pairs_teach_more_than_settled_ones() -> None:
    close = pair_information((25.0, 3.0), (25.5, 3.0), BETA)
    apart = pair_information((25.0, 3.0), (45.0, 3.0), BETA)
    settled = pair_information((25.0, 0.5), (25.5, 0.5), BETA)
    assert close > 5 * apart and close > 5 * settled
    ratings = {"a": (30.0, 1.0), "b": (20.0, 4.0), "c": (20.5, 4.0), "d": (5.0, 1.0)}
    played = dict.fromkeys(ratings, 5)
    assert next_table(sorted(ratings), 2, ratings, played, BETA, placement=1) == ("b", "c")


def test_choice_is_deterministic_and_ties_go_to_the_first_table() -> None:
    ratings = {n: (25.0, 8.3) for n in "dcba"}
    played = dict.fromkeys("abcd", 1)
    assert next_table(list("dcba"), 3, ratings, played, BETA, 0) == ("a", "b", "c")


def _match(position: int, winner: str, loser: str) -> MatchRecord:
    seats = (SeatRecord(winner, 1.0, 0, "ok"), SeatRecord(loser, 0.0, 1, "ok"))
    return MatchRecord(position, f"m{position}", f"s{position}", seats, None)


def test_a_new_version_inherits_its_previous_mu_with_sigma_reset() -> None:
    matches = [_match(i, "alice@1", "bob") for i in range(5)] + [_match(5, "bob", "alice@2")]
    fresh = RatingSettings(draw_probability=0.0)
    inherit = RatingSettings(draw_probability=0.0, inherit=(("alice@2", "alice@1"),))
    bots = ["alice@1", "alice@2", "bob"]
    before, _ = rate(matches[:5], fresh, bots)
    started, _ = rate(matches, inherit, bots)
    anew, _ = rate(matches, fresh, bots)
    assert before["alice@1"].mu > 30
    # alice@2 lost its one match from alice@1's mu: still far above a fresh start that lost
    assert started["alice@2"].mu > anew["alice@2"].mu + 3
    assert started["alice@1"] == before["alice@1"]


def test_every_table_is_played_once_before_any_is_played_again() -> None:
    ratings = {"a": (30.0, 1.0), "b": (20.0, 4.0), "c": (20.5, 4.0), "d": (5.0, 1.0)}
    played = dict.fromkeys(ratings, 5)
    counts = {("b", "c"): 1}
    chosen = next_table(sorted(ratings), 2, ratings, played, BETA, 1, counts)
    assert chosen != ("b", "c")
    seen = dict(counts)
    for _ in range(5):
        table = next_table(sorted(ratings), 2, ratings, played, BETA, 1, seen)
        seen[table] = seen.get(table, 0) + 1
    assert sorted(seen.values()) == [1] * 6  # all 6 pairs once, none twice
