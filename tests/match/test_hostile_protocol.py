"""Protocol-level hostile bots against the real referee (research §7): each plays a real Happy
Mochi match beside a random bot, and the test checks the verdict on the hostile seat, that the
other seat played to the end unharmed, and that no process of either bot is left over.

Every attack that is not about ZeroMQ itself runs on both binary transports: ZeroMQ and the
lean pipe (length-prefixed msgpack on stdin and stdout), which must hold bots to the same rules.
"""

from __future__ import annotations

import resource
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from arena.games import load_game
from arena.match.bots import BotSpec, parse_bot
from arena.match.faults import FaultPolicy
from arena.match.referee import play_match
from arena.match.results import Limits, MatchResult
from arena.sandbox import SandboxLimits
from tests.procs import leftovers

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests/bots/protocol"
GAME = load_game("happy_mochi")
LIMITS = Limits(init_ms=5000, move_ms=500, bank_ms=1000)
ONE_ROUND = {"max_rounds": 1}
HOSTILE = 1  # the hostile bot's seat; seat 0 is the random bot
BOTH = pytest.mark.parametrize("transport", ["zmq", "pipe"])


@pytest.fixture
def bot_dir(tmp_path: Path) -> Path:
    """A private copy of the bots, so that leftover processes can be found by their path."""
    folder = tmp_path / f"proto-{uuid.uuid4().hex[:8]}"
    shutil.copytree(BOTS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "sample_bots/python/random_bot.py", folder / "random_bot.py")
    return folder


def play(
    folder: Path,
    command: str,
    limits: Limits = LIMITS,
    options: dict[str, Any] | None = ONE_ROUND,
    transport: str = "zmq",
    **settings: Any,
) -> MatchResult:
    """A match of the random bot (seat 0) against ``command`` (seat 1, run from ``folder``),
    both on ``transport``."""
    bots: list[BotSpec] = [
        parse_bot(f"random={transport}:python {folder}/random_bot.py --seed 1"),
        parse_bot(f"hostile={transport}:python {folder}/{command}"),
    ]
    result = play_match(GAME, bots, seed=7, options=options, limits=limits, **settings)
    left = leftovers(folder)
    assert left == [], f"processes left after the match: {left}"
    return result


def assert_other_seat_fine(result: MatchResult) -> None:
    """The random bot finished normally and the game was played to its end."""
    assert result.void is None, result.void
    other = result.seats[0]
    assert other.status == "ok", (other.status, other.detail, other.log_tail)
    assert other.decisions > 0
    assert result.outcome and len(result.outcome["ranks"]) == 2


def hostile(result: MatchResult) -> Any:
    return result.seats[HOSTILE]


def assert_forfeited(result: MatchResult, status: str) -> None:
    seat = hostile(result)
    assert seat.status == status, (seat.status, seat.detail, seat.incidents[-3:])
    assert result.ranks == [0, 1]
    assert_other_seat_fine(result)


# -- the handshake ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "status"),
    [
        ("version", "version_mismatch"),
        ("token", "bad_token"),
        ("not_a_map", "malformed"),
        ("not_msgpack", "malformed"),
    ],
)
@BOTH
def test_a_wrong_hello_forfeits_at_once(
    bot_dir: Path, mode: str, status: str, transport: str
) -> None:
    started = time.monotonic()
    result = play(bot_dir, f"handshake.py {mode}", transport=transport)
    assert_forfeited(result, status)
    assert hostile(result).decisions == 0
    assert time.monotonic() - started < LIMITS.init_ms / 1000  # ruled on arrival, not at init_ms


# -- answers that break the protocol ---------------------------------------------------------

MALFORMED = ["c1", "truncated", "trailing", "deep", "array32", "bad_utf8", "ext", "multipart"]


@pytest.mark.parametrize("variant", MALFORMED)
@BOTH
def test_a_malformed_answer_forfeits(bot_dir: Path, variant: str, transport: str) -> None:
    result = play(bot_dir, f"bad_answer.py {variant} --after 2", transport=transport)
    assert_forfeited(result, "malformed")
    assert hostile(result).decisions == 2


@pytest.mark.parametrize("variant", ["float", "bin", "uint64", "none", "list", "no_seq"])
@BOTH
def test_an_answer_with_a_wrong_field_forfeits(bot_dir: Path, variant: str, transport: str) -> None:
    result = play(bot_dir, f"bad_answer.py {variant} --after 2", transport=transport)
    assert_forfeited(result, "bad_field")
    assert hostile(result).decisions == 2


@BOTH
def test_an_answer_with_a_non_string_key_forfeits(bot_dir: Path, transport: str) -> None:
    result = play(bot_dir, "bad_answer.py int_keys --after 2", transport=transport)
    assert hostile(result).status in ("bad_field", "malformed")
    assert_forfeited(result, hostile(result).status)


@BOTH
def test_an_illegal_choice_forfeits(bot_dir: Path, transport: str) -> None:
    result = play(bot_dir, "bad_answer.py illegal --after 2", transport=transport)
    assert_forfeited(result, "illegal_action")
    assert "choice" in hostile(result).detail


@BOTH
def test_an_oversized_answer_is_too_large(bot_dir: Path, transport: str) -> None:
    """2 MiB against a 1 MiB limit: libzmq drops the connection, and the monitor must say why;
    on a pipe its length says it before any of it is kept."""
    result = play(bot_dir, "bad_answer.py oversized --after 2", transport=transport)
    assert_forfeited(result, "too_large")


def test_an_oversized_pipe_answer_is_skipped_and_the_seat_plays_on_if_substituted(
    bot_dir: Path,
) -> None:
    """The stream stays in step: the 2 MiB are dropped as they come, and the next answers of
    the seat are read as answers."""
    policy = FaultPolicy(protocol="substitute")
    result = play(bot_dir, "bad_answer.py oversized --after 2", policy=policy, transport="pipe")
    seat = hostile(result)
    assert (seat.status, seat.strikes) == ("ok", 1), (seat.status, seat.detail)
    assert [i["code"] for i in seat.incidents] == ["too_large"]
    assert seat.decisions > 3
    assert_other_seat_fine(result)


def test_an_endless_oversized_pipe_answer_is_a_flood_once_the_skipped_bytes_pile_up(
    bot_dir: Path,
) -> None:
    """Dropping a message costs the referee a read per chunk: past 8 MiB of them it is a
    flood, whatever the policy, and the bot is gone."""
    policy = FaultPolicy(protocol="substitute")
    result = play(bot_dir, "bad_answer.py endless --after 2", policy=policy, transport="pipe")
    assert_forfeited(result, "flood")
    assert "oversized messages" in hostile(result).detail
    assert [i["code"] for i in hostile(result).incidents] == ["too_large", "flood"]


def test_a_pipe_bot_that_sends_half_a_message_and_exits_is_malformed_at_once(
    bot_dir: Path,
) -> None:
    started = time.monotonic()
    result = play(bot_dir, "bad_answer.py half_exit --after 2", transport="pipe")
    assert_forfeited(result, "malformed")
    assert "ends in the middle of a message" in hostile(result).detail
    assert time.monotonic() - started < 20  # seen at its exit, not at a deadline


@pytest.mark.parametrize("variant", ["half", "header"])
def test_a_pipe_bot_that_stops_in_the_middle_of_a_message_times_out(
    bot_dir: Path, variant: str
) -> None:
    """Half a message is waited for on the seat's own clock, never longer."""
    result = play(bot_dir, f"bad_answer.py {variant} --after 2", transport="pipe")
    assert_forfeited(result, "timeout")
    assert hostile(result).decisions == 2


@BOTH
def test_a_closed_socket_then_a_slow_exit_is_a_crash_not_too_large(
    bot_dir: Path, transport: str
) -> None:
    """A dropped connection alone does not mean an oversized frame: the exit code decides."""
    result = play(bot_dir, "bad_answer.py close --after 2", transport=transport)
    assert_forfeited(result, "crashed")
    assert "exited with code 3" in hostile(result).detail


# -- answers at the wrong moment: counted, never fatal ---------------------------------------


@BOTH
def test_a_late_answer_is_stale_and_discarded(bot_dir: Path, transport: str) -> None:
    """Under a substitute policy the late bot plays on; its answer to turn k arrives in k+1."""
    policy = FaultPolicy(timeout="substitute")
    result = play(bot_dir, "bad_answer.py late --after 2", policy=policy, transport=transport)
    seat = hostile(result)
    assert seat.status == "ok", (seat.status, seat.detail)
    assert seat.warnings.get("stale_seq") == 1, seat.warnings
    assert seat.strikes == 1
    assert_other_seat_fine(result)


@BOTH
def test_a_duplicate_answer_is_counted_not_fatal(bot_dir: Path, transport: str) -> None:
    result = play(bot_dir, "bad_answer.py duplicate --after 2", transport=transport)
    seat = hostile(result)
    assert seat.status == "ok", (seat.status, seat.detail)
    warnings = seat.warnings
    assert warnings.get("stale_seq", 0) + warnings.get("unexpected", 0) == 1, warnings
    assert_other_seat_fine(result)


@BOTH
def test_unsolicited_actions_are_counted_not_fatal(bot_dir: Path, transport: str) -> None:
    result = play(bot_dir, "bad_answer.py unsolicited", transport=transport)
    seat = hostile(result)
    assert seat.status == "ok", (seat.status, seat.detail)
    assert seat.warnings == {"unexpected": 2}, seat.warnings
    assert seat.decisions > 0
    assert_other_seat_fine(result)


# -- a flood ---------------------------------------------------------------------------------


@BOTH
def test_a_message_flood_neither_blows_up_the_referee_nor_spoils_the_game(
    bot_dir: Path, transport: str
) -> None:
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    started = time.monotonic()
    result = play(bot_dir, "flood.py --count 100000 --after 1", transport=transport)
    elapsed = time.monotonic() - started
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before) / 1024
    seat = hostile(result)
    assert_other_seat_fine(result)
    assert grown_mib < 200, f"referee peak RSS grew by {grown_mib:.0f} MiB"
    assert elapsed < 45, f"match took {elapsed:.1f} s"
    # Charged per turn: the 33rd message since its last turn is a flood, ruled before decoding.
    assert seat.status == "flood", (seat.status, seat.detail)
    assert "more than 32 messages" in seat.detail
    assert len(seat.incidents) <= 60  # the record stays small whatever the count


# -- output and strings ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["stderr_spam", "stdout_spam"])
def test_output_spam_is_capped_and_harmless(bot_dir: Path, mode: str) -> None:
    started = time.monotonic()
    result = play(bot_dir, f"noisy.py {mode}")
    assert_other_seat_fine(result)
    seat = hostile(result)
    # EFBIG past RLIMIT_FSIZE lets it play on; SIGXFSZ (if not ignored) ends it as a crash.
    assert seat.status in ("ok", "crashed"), (seat.status, seat.detail)
    assert len(seat.log_tail) <= 4096
    assert_clean_strings(result)
    assert time.monotonic() - started < 30


def test_the_stderr_tail_kept_follows_the_output_limit(bot_dir: Path) -> None:
    result = play(bot_dir, "noisy.py stderr_spam", sandbox_limits=SandboxLimits(output_kb=1))
    assert 512 < len(hostile(result).log_tail) <= 1024


def strings_in(value: Any, path: str = "") -> list[tuple[str, str]]:
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in strings_in(v, f"{path}.{k}")]
    if isinstance(value, list | tuple):
        return [s for i, v in enumerate(value) for s in strings_in(v, f"{path}[{i}]")]
    return []


def assert_clean_strings(result: MatchResult) -> None:
    """No control characters or escapes anywhere in the result (log tails may keep \\n, \\t)."""
    for path, text in strings_in(result.as_dict()):
        allowed = "\n\t" if path.endswith(".log_tail") else ""
        bad = sorted({c for c in text if not (c.isprintable() or c in allowed)})
        assert not bad, f"{path} holds {bad!r}: {text[:120]!r}"
        assert "\x1b" not in text and "\x9b" not in text, path
        assert len(text) <= 4096, f"{path} is {len(text)} characters long"


@BOTH
def test_injected_escapes_never_reach_the_result(bot_dir: Path, transport: str) -> None:
    result = play(bot_dir, "noisy.py inject", transport=transport)
    seat = hostile(result)
    assert seat.status == "ok", (seat.status, seat.detail)
    assert_other_seat_fine(result)
    assert "red" in seat.log_tail  # the text is kept, its escapes are not
    assert_clean_strings(result)


@BOTH
def test_a_resignation_with_escapes_is_recorded_clean(bot_dir: Path, transport: str) -> None:
    result = play(bot_dir, "noisy.py inject_resign", transport=transport)
    assert_forfeited(result, "resigned")
    assert_clean_strings(result)


# -- CPU and lingering -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["spin_thread", "spin_child"])
@BOTH
def test_cpu_burnt_out_of_turn_does_not_cost_the_opponent(
    bot_dir: Path, mode: str, transport: str
) -> None:
    a_whole_game = None
    result = play(bot_dir, f"stubborn.py {mode}", options=a_whole_game, transport=transport)
    assert_other_seat_fine(result)
    other = result.seats[0]
    assert other.max_ms < LIMITS.move_ms, f"opponent's slowest answer took {other.max_ms} ms"
    assert other.bank_left_ms == LIMITS.bank_ms
    assert hostile(result).status == "ok", hostile(result).detail


@pytest.mark.parametrize("mode", ["linger", "daemon"])
@BOTH
def test_a_bot_that_ignores_sigterm_and_lingers_is_killed(
    bot_dir: Path, mode: str, transport: str
) -> None:
    started = time.monotonic()
    result = play(bot_dir, f"stubborn.py {mode}", transport=transport)  # asserts none is left
    assert_other_seat_fine(result)
    assert hostile(result).status == "ok", hostile(result).detail
    assert time.monotonic() - started < 20
