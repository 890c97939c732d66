"""Protocol 1.2: views as deltas and game data sent once (arena.match.views, PROTOCOL.md 8.5).

In process, for random games of every engine: the referee's deltas, encoded and decoded as on
the wire and applied by the SDK, give exactly the full views. Through the real referee, with
real SDK bots in the sandbox on ZeroMQ and on the pipe: what each seat was sent (recorded at the
referee's send), the digest of the view each bot's ``choose`` saw (in its answers' ``info``,
kept in the replay) against the engine's full view, and a kept process's welcomes.
"""

from __future__ import annotations

import json
import random
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest

from arena.games import load_game
from arena.games.base import Game, State
from arena.match.bots import BotSpec, parse_bot
from arena.match.check_bot import check_bot
from arena.match.pool import BotPool
from arena.match.referee import Referee, play_match
from arena.match.replay import read
from arena.match.results import Limits, MatchResult
from arena.match.views import Process, SeatViews
from protocol import codec, messages
from protocol.bot import Views
from protocol.codec import ProtocolError
from tests.bots.protocol.view_digest import digest
from tests.procs import leftovers

ROOT = Path(__file__).resolve().parents[2]
ENGINES = {"happy_mochi": (2, 5), "mottainai": (2, 4), "mai_star": (3, 5), "motora": (2, 4)}
LIMITS = Limits(init_ms=5000, move_ms=1000, bank_ms=2000)
TURN_KEYS = {"v", "type", "seq", "kind", "prompt", "options", "view", "events", "clock"}
SHORT = {"max_rounds": 1, "max_turns_per_round": 6}


def canonical(value: Any) -> str:
    """Equal strings only for equal values of equal types (1, 1.0 and true differ)."""
    return json.dumps(value, sort_keys=True)


def views_of(game: Game, players: int, seed: int) -> Iterator[tuple[State, int]]:
    """Each moment a seat is sent a view in a random game: its decisions, then the end."""
    state = game.new(players, seed, None)
    rng = random.Random(seed)
    while pending := state.pending():
        decision = pending[rng.randrange(len(pending))]
        yield state, decision.seat
        state.act(decision.seat, rng.randrange(len(decision.options)))
    for seat in range(players):
        yield state, seat


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_applying_the_deltas_gives_exactly_the_full_views(game_id: str) -> None:
    game = load_game(game_id)
    low, high = ENGINES[game_id]
    sizes = {"full": 0, "delta": 0}
    dropped_keys = 0
    for seed in range(6):
        players = low + seed % (high - low + 1)
        sent = [SeatViews() for _ in range(players)]  # the referee's side
        held = [Views() for _ in range(players)]  # each bot's side (the SDK)
        first = set(range(players))
        for state, seat in views_of(game, players, seed):
            full = state.view(seat)
            wire_full = codec.encode(messages.turn(1, "k", "", [{}], full, [], {}))
            view, dropped = sent[seat].delta(full)
            wire = codec.encode(messages.turn(1, "k", "", [{}], view, [], {}, dropped))
            if seat in first:  # the first of a match is whole
                assert (view, dropped) == (full, [])
                first.discard(seat)
            rebuilt = held[seat].view(msgpack.unpackb(wire))
            assert canonical(rebuilt) == canonical(full), (game_id, seed, seat)
            assert rebuilt is not held[seat].last
            rebuilt.clear()  # the bot's own map: what the SDK keeps is unaffected
            sizes["full"] += len(wire_full)
            sizes["delta"] += len(wire)
            dropped_keys += len(dropped)
    assert sizes["delta"] < sizes["full"], sizes
    if game_id == "happy_mochi":  # its "holding" comes and goes
        assert dropped_keys > 0


def test_a_changed_type_is_resent() -> None:
    seat = SeatViews()
    seat.delta({"flag": 1, "score": 3, "same": [1, 2], "gone": 0})
    assert seat.delta({"flag": True, "score": 3.0, "same": [1, 2]}) == (
        {"flag": True, "score": 3.0},
        ["gone"],
    )


def test_game_data_is_left_out_only_for_the_same_game_and_a_process_that_takes_deltas() -> None:
    game = {"id": "g", "version": "1", "options": {"a": 1}, "data": {"cards": [1, 2]}}
    other = dict(game, options={"a": 2})
    full = Process()
    assert [full.welcome_game(g, json.dumps(g["options"])) for g in (game, game)] == [game, game]
    process = Process()
    process.deltas = True
    same = {"id": "g", "version": "1", "options": {"a": 1}, "same": True}
    sent = [
        process.welcome_game(g, json.dumps(g["options"])) for g in (game, game, other, game, game)
    ]
    assert sent == [game, same, other, game, same]
    bot = Views()
    for msg in sent:
        welcome = {"game": msg}
        bot.welcome(welcome)
        assert welcome["game"]["data"] == game["data"] and "same" not in welcome["game"]


# -- through the referee, with real bot processes --------------------------------------------


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A private copy of the bot, so that leftover processes can be found by their path."""
    here = tmp_path / f"deltas-{uuid.uuid4().hex[:8]}"
    here.mkdir()
    shutil.copy(ROOT / "tests/bots/protocol/view_digest.py", here / "view_digest.py")
    return here


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, dict[str, Any]]]:
    """Every message the referee sends, with its seat, as the bot decodes it."""
    log: list[tuple[int, dict[str, Any]]] = []
    send = Referee._send

    def record(referee: Referee, seat: Any, msg: dict[str, Any]) -> None:
        log.append((seat.index, msgpack.unpackb(codec.encode(msg))))
        send(referee, seat, msg)

    monkeypatch.setattr(Referee, "_send", record)
    return log


def digest_bot(folder: Path, name: str, mode: str, transport: str) -> BotSpec:
    return parse_bot(f"{name}={transport}:python {folder}/view_digest.py {mode}")


def assert_clean(result: MatchResult) -> None:
    assert result.void is None, result.void
    for seat in result.seats:
        assert (seat.status, seat.incidents) == ("ok", []), (seat.detail, seat.log_tail)


def of_seat(sent: list[tuple[int, dict[str, Any]]], seat: int, kind: str) -> list[dict[str, Any]]:
    return [msg for index, msg in sent if index == seat and msg["type"] == kind]


TRANSPORTS = pytest.mark.parametrize("transport", ["zmq", "pipe"])


@pytest.mark.parametrize("transport", ["zmq", "pipe", "stdio"])
@pytest.mark.parametrize("game_id", ["happy_mochi", "motora"])
def test_sdk_bots_see_full_views_and_a_bot_without_deltas_gets_todays_messages(
    folder: Path,
    sent: list[tuple[int, dict[str, Any]]],
    tmp_path: Path,
    transport: str,
    game_id: str,
) -> None:
    game = load_game(game_id)
    modes = ["deltas", "full", "deltas"]
    bots = [digest_bot(folder, f"b{i}", mode, transport) for i, mode in enumerate(modes)]
    options = SHORT if game_id == "happy_mochi" else {}
    path = tmp_path / "replay.json"
    result = play_match(game, bots, 4, options, LIMITS, replay_path=path, ask_forced=True)
    assert_clean(result)
    # Each answer's info is the digest of the view choose saw: the engine's full view then.
    data = read(path)
    state = game.new(3, 4, data["game"].get("options"))
    asked = 0
    for decision in data["decisions"]:
        assert decision["info"] == digest(state.view(decision["seat"])), decision
        state.act(decision["seat"], decision["choice"])
        asked += 1
    assert asked > 10
    for seat in range(3):  # on_game_over had the seat's last view, whole, as self.final_view
        assert f"final {digest(state.view(seat))}" in result.seats[seat].log_tail.splitlines()
    for seat, mode in enumerate(modes):
        (welcome,) = of_seat(sent, seat, "welcome")
        turns = of_seat(sent, seat, "turn") + of_seat(sent, seat, "game_over")
        assert welcome["minor"] == 2 and "data" in welcome["game"]
        if mode == "full":  # byte for byte what 1.1 sent: no new field anywhere
            assert "deltas" not in welcome
            assert all(set(msg) == TURN_KEYS for msg in turns[:-1])
            assert "dropped" not in turns[-1]
            assert turns[-1]["view"] == state.view(seat)
        else:
            assert welcome["deltas"] is True
            assert all("dropped" in msg for msg in turns)
            assert turns[0]["dropped"] == [] and set(turns[0]["view"]) == set(state.view(seat))
            rebuilt = Views()
            for msg in turns:
                view = rebuilt.view(msg)
            assert view == state.view(seat)  # game_over's delta too
    delta = sum(len(codec.encode(m["view"])) for i, m in sent if i != 1 and "view" in m)
    whole = sum(len(codec.encode(m["view"])) for i, m in sent if i == 1 and "view" in m)
    assert delta < 2 * whole  # two seats with deltas sent less than twice one seat's views


def welcomed_games(result: MatchResult, seat: int) -> list[str]:
    """The digests of the game maps the seat's process was given, one per match it played."""
    lines = [line.split() for line in result.seats[seat].log_tail.splitlines()]
    return [words[3] for words in lines if words[:1] == ["welcome"]]


@TRANSPORTS
def test_a_kept_process_that_takes_deltas_gets_the_game_data_once(
    folder: Path, sent: list[tuple[int, dict[str, Any]]], transport: str
) -> None:
    game = load_game("happy_mochi")
    bots = [
        digest_bot(folder, "d", "deltas", transport),
        digest_bot(folder, "f", "full", transport),
    ]
    pool = BotPool()
    try:
        results = [
            play_match(game, bots, seed, options, LIMITS, pool=pool, ask_forced=True)
            for seed, options in enumerate([SHORT, SHORT, dict(SHORT, max_rounds=2), SHORT])
        ]
    finally:
        pool.close()
    assert leftovers(folder) == []
    for result in results:
        assert_clean(result)
    deltas, full = (of_seat(sent, seat, "welcome") for seat in (0, 1))
    assert [("data" in w["game"], w["game"].get("same")) for w in deltas] == [
        (True, None),
        (False, True),  # the same game: left out
        (True, None),  # other options: the data again
        (True, None),  # not the same as the last one
    ]
    assert deltas[1]["game"] == {k: deltas[0]["game"][k] for k in ("id", "version", "options")} | {
        "same": True
    }
    assert all("data" in w["game"] and "same" not in w["game"] for w in full)
    for seat in (0, 1):  # one process each, given the whole game in every match
        shown = welcomed_games(results[-1], seat)
        assert len(shown) == 4 and shown[0] == shown[1] == shown[3] != shown[2], shown


def test_check_bot_passes_a_bot_that_takes_deltas(folder: Path) -> None:
    report = check_bot(
        load_game("mai_star"), digest_bot(folder, "mine", "deltas", "zmq"), games=2, limits=LIMITS
    )
    assert report.clean, report.findings
    assert sum(run.decisions for run in report.runs) > 10


CPP_BOT = ROOT / "sample_bots" / "cpp" / "build" / "random_bot"


@TRANSPORTS
def test_the_cpp_sample_takes_deltas_when_told_to(
    sent: list[tuple[int, dict[str, Any]]], transport: str
) -> None:
    if not CPP_BOT.is_file():
        pytest.skip("sample_bots/cpp not built: run `make bots`")
    bots = [
        parse_bot(f"c{i}={transport}:{CPP_BOT} --rule hash{flag}", ROOT)
        for i, flag in enumerate([" --deltas", ""])
    ]
    result = play_match(load_game("happy_mochi"), bots, 2, SHORT, LIMITS, ask_forced=True)
    assert_clean(result)
    assert all(seat.exit_code == 0 for seat in result.seats)
    for seat, deltas in enumerate([True, False]):
        (welcome,) = of_seat(sent, seat, "welcome")
        assert welcome.get("deltas", False) is deltas
        turns = of_seat(sent, seat, "turn")
        assert turns and all(("dropped" in msg) is deltas for msg in turns)


@pytest.mark.parametrize("offer", [1, "yes", None, [True]])
def test_a_hello_offering_deltas_with_anything_but_a_boolean_is_a_bad_field(offer: Any) -> None:
    hello = messages.hello("t", "n") | {"deltas": offer}
    with pytest.raises(ProtocolError) as caught:
        messages.check_bot_message(hello)
    assert caught.value.code == "bad_field" and "hello.deltas must be a boolean" in str(
        caught.value
    )
