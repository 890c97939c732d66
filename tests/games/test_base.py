"""The game contract's shared pieces: typed options, ranks, event visibility, the registry."""

from __future__ import annotations

import pytest

from arena.games import UnknownGame, available_games, load_game
from arena.games.base import EventLog, OptionError, OptionSpec, competition_ranks

ROUNDS = OptionSpec("rounds", int, 3, "rounds", minimum=1, maximum=9)
FAST = OptionSpec("fast", bool, False, "fast mode")
MODE = OptionSpec("mode", str, "a", "mode", choices=("a", "b"))
AUTO = OptionSpec("decks", bool, None, "decided by the player count")


@pytest.mark.parametrize(
    ("spec", "raw", "value"),
    [
        (ROUNDS, "7", 7),
        (ROUNDS, 2, 2),
        (FAST, "yes", True),
        (FAST, "0", False),
        (FAST, True, True),
        (MODE, "b", "b"),
        (AUTO, None, None),
        (AUTO, "auto", None),
        (AUTO, "true", True),
    ],
)
def test_option_values_are_parsed(spec: OptionSpec, raw: object, value: object) -> None:
    assert spec.parse(raw) == value


@pytest.mark.parametrize(
    ("spec", "raw", "words"),
    [
        (ROUNDS, "x", "must be an integer"),
        (ROUNDS, True, "must be an integer"),
        (ROUNDS, 0, "at least 1"),
        (ROUNDS, "10", "at most 9"),
        (FAST, "maybe", "true or false"),
        (MODE, "c", "one of a, b"),
        (FAST, None, "true or false"),
    ],
)
def test_bad_option_values_say_what_is_expected(spec: OptionSpec, raw: object, words: str) -> None:
    with pytest.raises(OptionError, match=words):
        spec.parse(raw)


def test_describe_shows_default_and_range() -> None:
    assert ROUNDS.describe() == "rounds=3 (1..9)"
    assert MODE.describe() == "mode='a' (a|b)"
    assert AUTO.describe() == "decks=auto"


def test_resolve_options_fills_defaults_and_names_unknown_options() -> None:
    game = load_game("happy_mochi")
    resolved = game.resolve_options({"max_rounds": "5"}, players=3)
    assert resolved["max_rounds"] == 5
    assert resolved["max_turns_per_round"] == 1000
    assert game.resolve_options(resolved, players=3) == resolved  # idempotent
    with pytest.raises(OptionError, match="has no option 'speed'"):
        game.resolve_options({"speed": 1})
    with pytest.raises(OptionError, match="takes 2 to 6 players, got 7"):
        game.resolve_options({}, players=7)


def test_competition_ranks_share_ties_and_skip() -> None:
    assert competition_ranks([20, 31, 20, 28]) == (0, 3, 0, 2)
    assert competition_ranks([5]) == (0,)


def test_event_log_visibility() -> None:
    log = EventLog()
    log.emit({"type": "deal", "n": 7}, private={0: {"hand": [1, 2]}, 1: {"hand": [3, 4]}})
    log.emit({"type": "peek"}, only=[1])
    seen0, cursor = log.since(0, 0)
    assert seen0 == [{"type": "deal", "n": 7, "hand": [1, 2]}]
    assert cursor == 2
    seen1, _ = log.since(1, 0)
    assert seen1 == [{"type": "deal", "n": 7, "hand": [3, 4]}, {"type": "peek"}]
    assert log.since(2, 0)[0] == [{"type": "deal", "n": 7}]
    assert log.since(1, 1)[0] == [{"type": "peek"}]
    assert log.full()[1] == {"event": {"type": "peek"}, "only": [1]}


def test_registry_finds_builtin_games_and_names_known_ones() -> None:
    assert "happy_mochi" in available_games()
    with pytest.raises(UnknownGame, match=r"known games: .*happy_mochi"):
        load_game("chess")
