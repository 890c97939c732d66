"""``arena check-bot``: play a bot against random opponents and explain every protocol problem.

A bot author's first question is "does my bot speak the protocol?", not "how strong is it?".
This module answers it: it plays a few matches with the bot in each seat in turn against
``sample_bots/python/random_bot.py``, asks even single-option decisions (``ask_forced``) so every
decision kind the games reach is exercised, and turns the referee's per-seat incidents into
findings worded for the author, each with the bot message that caused it (and the bot's stderr
tail when its process died). Only the checked bot's seat is reported; opponents are the
referee's concern.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.games.base import Game
from arena.match.bots import BotSpec, parse_bot, unique_names
from arena.match.referee import play_match
from arena.match.replay import log_lines
from arena.match.results import OK, Limits, MatchResult, SeatResult, is_host_void, is_load_void

ROOT = Path(__file__).resolve().parents[2]
OPPONENT = ROOT / "sample_bots" / "python" / "random_bot.py"
DEFAULT_GAMES = 3
DEFAULT_PLAYERS = 3

# What each code means, in the words of someone who wrote the bot (PROTOCOL.md has the rules).
EXPLAIN: dict[str, str] = {
    "version_mismatch": "hello.versions does not include a protocol version the referee speaks (1)",
    "bad_token": "hello.token is not the value of ARENA_TOKEN",
    "malformed": "a message could not be decoded (not a msgpack map / JSON object line, "
    "or over the nesting, string or item limits)",
    "bad_field": "a required field is missing or has the wrong type",
    "unknown_type": "a message type the bot may not send (only hello, action, error)",
    "too_large": "a message over the size limit (max_message_bytes)",
    "stale_seq": "an action for a turn that is no longer awaited; it was ignored",
    "unexpected": "a message nobody asked for (a seq not yet issued, a second hello, "
    "or anything before hello); it was ignored",
    "illegal_action": "the choice is not an index into the options offered",
    "timeout": "no answer in time (move_ms + bank + grace)",
    "bank_exhausted": "slow answers used up the time bank, then an answer came too late",
    "slow": "an answer took longer than move_ms; the excess was taken from the time bank",
    "crashed": "the bot's process ended during the match",
    "oom": "the bot went over its memory limit and was killed",
    "cpu_limit": "the bot went over its CPU time limit and was killed",
    "resigned": "the bot sent an error message, which gives the game up",
    "flood": "the bot sent more messages or bytes than allowed (32 messages or 2 MiB between "
    "two turns, 64 stale or unexpected in a match), or did not read its stdin",
    "too_many_connections": "the bot opened more than 4 connections to its socket",
    "match_timeout": "the match reached its wall-clock cap (match_ms) while waiting for the bot",
}


class CheckError(ValueError):
    """The check cannot run as asked (player count, missing opponent program)."""


@dataclass(frozen=True)
class Finding:
    """One problem of the checked bot, as the referee recorded it."""

    game: int  # 1-based number of the match in this check
    code: str
    fatal: bool
    detail: str
    message: str  # excerpt of the offending bot message, "" when there was none
    seq: int | None = None
    kind: str | None = None
    log_tail: str = ""  # the bot's stderr tail, for a process that ended

    @property
    def explanation(self) -> str:
        if self.code == "timeout" and self.seq is None:  # before any turn: the handshake
            return "the bot never said hello (init_ms)"
        return EXPLAIN.get(self.code, self.code)


@dataclass(frozen=True)
class GameRun:
    """One match of the check: where the bot sat and how it ended."""

    number: int
    seed: int
    seat: int
    status: str
    decisions: int
    void: str | None = None
    more: dict[str, int] = field(default_factory=dict)  # incidents counted but not listed


@dataclass
class CheckReport:
    """Everything ``arena check-bot`` prints."""

    game: str
    bot: BotSpec
    players: int
    runs: list[GameRun] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.findings and all(r.void is None for r in self.runs)

    def counts(self) -> dict[str, int]:
        """Findings per code, including those the referee only counted."""
        counts: dict[str, int] = {}
        for finding in self.findings:
            counts[finding.code] = counts.get(finding.code, 0) + 1
        for run in self.runs:
            for code, n in run.more.items():
                counts[code] = counts.get(code, 0) + n
        return dict(sorted(counts.items()))


def default_players(game: Game) -> int:
    """Three seats where the game allows it (two opponents, so views hold several others)."""
    return max(game.min_players, min(DEFAULT_PLAYERS, game.max_players))


def opponents(count: int, seed: int) -> list[BotSpec]:
    if not OPPONENT.is_file():
        raise CheckError(f"opponent bot {OPPONENT} not found (check-bot runs from a checkout)")
    return [parse_bot(f"random-{i + 1}=python {OPPONENT} --seed {seed}") for i in range(count)]


def check_bot(
    game: Game,
    bot: BotSpec,
    games: int = DEFAULT_GAMES,
    players: int | None = None,
    seed: int = 0,
    limits: Limits | None = None,
    options: Mapping[str, Any] | None = None,
) -> CheckReport:
    """Play ``games`` matches, the bot in seat ``i % players`` of match ``i`` (seed ``seed + i``).

    Raises CheckError for a player count the game does not allow; the game's OptionError for
    bad options.
    """
    players = players if players is not None else default_players(game)
    if not game.min_players <= players <= game.max_players:
        raise CheckError(
            f"{game.id} is for {game.min_players} to {game.max_players} players, not {players}"
        )
    if games < 1:
        raise CheckError("--games must be at least 1")
    game.resolve_options(options, players)  # fail before any bot starts
    report = CheckReport(game.id, bot, players)
    for index in range(games):
        match_seed = seed + index
        seat = index % players
        others = opponents(players - 1, match_seed)
        specs = unique_names([*others[:seat], bot, *others[seat:]])
        result = play_match(game, specs, match_seed, options, limits, ask_forced=True)
        _collect(report, index + 1, match_seed, seat, result)
        if is_host_void(result.void):
            break  # this machine cannot start bots: more games would say the same
    return report


def _collect(report: CheckReport, number: int, seed: int, seat: int, result: MatchResult) -> None:
    mine: SeatResult = result.seats[seat]
    listed: dict[str, int] = {}
    for incident in mine.incidents:
        code = incident["code"]
        listed[code] = listed.get(code, 0) + 1
        ended = code in ("crashed", "oom", "cpu_limit")
        report.findings.append(
            Finding(
                game=number,
                code=code,
                fatal=bool(incident["fatal"]),
                detail=incident["detail"],
                message=incident["message"],
                seq=incident["seq"],
                kind=incident["kind"],
                log_tail=mine.log_tail if ended else "",
            )
        )
    # The referee lists the first incidents in full and only counts the rest.
    more = {c: n - listed.get(c, 0) for c, n in mine.warnings.items() if n > listed.get(c, 0)}
    run = GameRun(number, seed, seat, mine.status, mine.decisions, result.void, more)
    report.runs.append(run)


def with_transport(spec: BotSpec, transport: str | None) -> BotSpec:
    """The spec with its transport forced, or as its command says (``stdio:`` prefix); a
    ``stdio:`` command checked with ``--transport zmq`` is a contradiction, refused."""
    if transport is None:
        return spec
    if spec.transport != "zmq" and transport != spec.transport:
        raise CheckError(
            f"the bot command asks for {spec.transport} (its {spec.transport}: prefix) but "
            f"--transport {transport} was given: drop one"
        )
    return replace(spec, transport=transport)


def render(report: CheckReport) -> list[str]:
    """The report as plain lines; the last one is the one-line verdict."""
    bot = report.bot
    lines = [
        f"checking {bot.name} ({' '.join(bot.command)}, {bot.transport}) on {report.game}: "
        f"{_plural(len(report.runs), 'game')} of {report.players} players against random bots, "
        "every decision asked",
    ]
    for run in report.runs:
        lines.append("")
        lines.append(_run_line(run))
        for finding in (f for f in report.findings if f.game == run.number):
            lines.extend(_finding_lines(finding))
        for code, n in run.more.items():
            lines.append(f"  ... and {n} more {code} not listed")
    lines.append("")
    lines.append(verdict(report))
    return lines


def _run_line(run: GameRun) -> str:
    head = f"game {run.number} (seed {run.seed}, seat {run.seat}):"
    if run.void is not None and is_host_void(run.void):
        return (
            f"{head} void: this machine could not start the bots, a problem of the host, not "
            f"of the bot (`arena sandbox probe` says more): {run.void.partition(': ')[2]}"
        )
    if is_load_void(run.void):
        busy = "this machine was too busy to give a seat its time, not the bot's fault"
        return f"{head} void: {busy}: {run.void}"
    if run.void is not None:
        return f"{head} void, a referee or engine error, not the bot's fault: {run.void}"
    if run.status == OK:
        return f"{head} played to the end, {_plural(run.decisions, 'decision')} answered"
    answered = _plural(run.decisions, "decision")
    return f"{head} FORFEITED ({run.status}) after {answered} answered"


def _finding_lines(finding: Finding) -> list[str]:
    where = []
    if finding.seq is not None:
        where.append(f"seq {finding.seq}")
    if finding.kind is not None:
        where.append(f"kind {finding.kind!r}")
    at = f" at {', '.join(where)}" if where else ""
    severity = "fatal" if finding.fatal else "warning"
    lines = [
        f"  {finding.code} ({severity}){at}: {finding.explanation}.",
        f"    referee: {finding.detail}",
    ]
    if finding.message:
        lines.append(f"    bot sent: {finding.message}")
    tail = log_lines(finding.log_tail)
    if tail:
        lines.append("    its stderr (first and last lines):")
        lines.extend(f"    | {line}" for line in tail)
    elif finding.code in ("crashed", "oom", "cpu_limit"):
        lines.append("    (nothing on its stderr)")
    return lines


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def verdict(report: CheckReport) -> str:
    """One line: ``ok`` with what was played, or ``FAIL`` with the problems by code."""
    decisions = sum(r.decisions for r in report.runs)
    played = f"{_plural(len(report.runs), 'game')}, {_plural(decisions, 'decision')}"
    voids = sum(r.void is not None for r in report.runs)
    if report.clean:
        return f"check-bot: ok: {played}, no protocol problems"
    if any(is_host_void(r.void) for r in report.runs):
        return (
            "check-bot: NOT CHECKED: this machine could not start the bots (a host problem, "
            "not the bot's); fix it and check again"
        )
    counts = report.counts()
    problems = sum(counts.values())
    parts = [f"{n} {code}" for code, n in counts.items()]
    if voids:
        parts.append(f"{voids} void game(s)")
    return (
        f"check-bot: FAIL: {_plural(problems, 'problem')} in {played} ({', '.join(parts)}); "
        "see protocol/PROTOCOL.md"
    )
