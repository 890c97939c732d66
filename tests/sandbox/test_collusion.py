"""Seats that try to talk through the files every sandbox shows: a sender and a receiver
(``tests/bots/hostile/collude.py``) in two seats of one match, and in two matches played at the
same time, through the real referee.

Unsandboxed (``rlimits``, the control) the receiver decodes the sender's 16 random bits
exactly through every channel, so the bots are real; at the level in force every channel is
closed before a single bit passes (the call fails with its errno), so the receiver can do no
better than chance.
"""

from __future__ import annotations

import multiprocessing
import sys

import pytest

from arena import sandbox
from arena.games import load_game
from arena.match.bots import parse_bot
from arena.match.referee import play_match
from arena.match.results import Limits

from .conftest import HOSTILE, ROOT, need, python_for

CHANNELS = ("proc_locks", "flock", "fcntl", "ofd", "inotify")
# Generous: the channels are tried before hello, each wait bounded by the bots themselves.
LIMITS = Limits(init_ms=120_000, move_ms=5000)
RANDOM = ROOT / "sample_bots/python/random_bot.py"


def _command(name: str, role: str) -> str:
    return f"{name}=python {HOSTILE}/collude.py --{role} --wait 30"


def _tails(commands: list[str], level: str) -> list[str]:
    """Play one Happy Mochi match of ``commands`` at ``level``; each seat's log."""
    bots = [parse_bot(c) for c in commands]
    result = play_match(
        load_game("happy_mochi"), bots, seed=5, options={"max_rounds": 1}, limits=LIMITS,
        sandbox_level=level,
    )  # fmt: skip
    assert result.void is None, result.void
    return [seat.log_tail for seat in result.seats]


def _said(log: str) -> dict[str, str]:
    return dict(
        line[len("COLLUDE ") :].split(": ", 1)
        for line in log.splitlines()
        if line.startswith("COLLUDE ")
    )


def _logs(level: str, together: bool) -> tuple[dict[str, str], dict[str, str]]:
    """What the sender and the receiver said: in two seats of one match (``together``), or
    each in a match of its own beside a random bot, both matches played at once."""
    send, receive = _command("send", "send"), _command("receive", "receive")
    if together:
        sent, got = _tails([send, receive], level)
    else:
        other = f"other=python {RANDOM}"
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            a = pool.apply_async(_tails, ([send, other], level))
            b = pool.apply_async(_tails, ([receive, other], level))
            sent, got = a.get(300)[0], b.get(300)[0]
    return _said(sent), _said(got)


@pytest.mark.parametrize("together", [True, False], ids=["one match", "two matches at once"])
@pytest.mark.timeout(400)  # each wait of the bots is bounded (30 s); a busy host is slow
def test_unsandboxed_the_channels_carry_every_bit(together: bool) -> None:
    """The control: the same bots do pass their secret when nothing stops them."""
    sender, receiver = _logs("rlimits", together)
    assert len(sender["sent"]) == 16
    for channel in CHANNELS:
        assert receiver[channel] == sender["sent"], (channel, sender, receiver)


@pytest.mark.parametrize("together", [True, False], ids=["one match", "two matches at once"])
def test_in_the_sandbox_no_channel_carries_a_bit(together: bool) -> None:
    level = sandbox.probe().level
    need(level)
    if python_for(level) != sys.executable:
        pytest.skip(f"{level} level: Arena's Python is not reachable by bot uids here")
    sender, receiver = _logs(level, together)
    assert len(sender["sent"]) == 16
    closed = {"flock": "ENOLCK", "fcntl": "ENOLCK", "ofd": "ENOLCK", "inotify": "EPERM"}
    for channel, code in closed.items():
        assert (sender[channel], receiver[channel]) == (code, code), channel
    # No lock can be set to show in /proc/locks; under bwrap the file cannot even be read.
    assert sender["proc_locks_mark"] == "ENOLCK"
    assert receiver["proc_locks"] == ("EACCES" if level == "bwrap" else "timeout")
    assert receiver["dnotify"] == receiver["fanotify"] == sender["lease"] == "EPERM"
    assert receiver["rwf_nowait"] in ("EOPNOTSUPP", "ENOTSUP")  # the same number on Linux
    assert sender["fadvise_dontneed"] == "ok None"  # dropping pages: a silent no-op
