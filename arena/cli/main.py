"""The ``arena`` command line: thin wrappers that parse, call the library and print.

Every user error (unknown game, bad option, a bot command that cannot run, a broken replay)
ends with one line on stderr naming the problem and exit code 2; a voided match exits 1.
"""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path
from typing import Annotated, Any, ClassVar, NoReturn

import typer
from tabulate import tabulate

from arena.cli.lazy import Lazy, LazyGroup
from arena.cli.plain_help import App
from arena.cli.positions import read_position, replay_position, rules
from arena.cli.sandbox import sandbox_app
from arena.cli.view import replay_view
from arena.games import UnknownGame, available_games, load_game
from arena.games.base import Game, OptionError
from arena.match.bots import TRANSPORTS, BotCommandError, parse_bot, unique_names
from arena.match.check_bot import DEFAULT_GAMES, CheckError, check_bot, render, with_transport
from arena.match.faults import FaultPolicy
from arena.match.referee import new_match_id, play_match
from arena.match.replay import ReplayError, describe, engine_of, log_lines, read, verify
from arena.match.results import OK, Limits, MatchResult
from arena.sandbox import UNSANDBOXED, SandboxError
from arena.sandbox import choose as choose_level


class ArenaGroup(LazyGroup):
    """``arena``: the commands that need the ladder, the report, the statistics, the server or
    a cluster are imported when run (``arena games`` starts without them)."""

    lazy: ClassVar[dict[str, Lazy]] = {
        "test": Lazy(
            "arena.cli.sprt:test_command",
            "Play duplicate sets of A against B until a sequential test accepts H0 or H1.",
        ),
        "serve": Lazy(
            "arena.cli.serve:serve",
            "Run a competition: authors submit bots over HTTP, the ladder plays continuously "
            "behind it, everyone sees the standings, the queue and every replay.",
        ),
        "ladder": Lazy(
            "arena.cli.ladder:ladder_app",
            "Run ladders (round-robin, gauntlet) and read their tables.",
        ),
        "bot": Lazy(
            "arena.cli.bot:bot_app",
            "Submit bots to a registry (versioned, built, validated) and look at them.",
        ),
    }
    order = ("rules", "test", "serve", "games", "play", "check-bot", "replay", "ladder",
             "sandbox", "bot")  # fmt: skip


app = App(
    help="Arena: run bot matches and ladders for table games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=ArenaGroup,
)
replay_app = App(help="Inspect and verify replay files.", no_args_is_help=True)
app.add_typer(replay_app, name="replay")
app.add_typer(sandbox_app, name="sandbox")
app.command("rules")(rules)
replay_app.command("position")(replay_position)
replay_app.command("view")(replay_view)


BOT_FORMS = (
    "CMD, NAME=CMD, pipe:CMD, stdio:CMD, NAME=pipe:CMD or NAME=stdio:CMD (pipe: length-prefixed "
    "msgpack on stdin and stdout, stdio: JSON lines there, instead of ZeroMQ)"
)


def fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"arena: error: {message}", err=True)
    raise typer.Exit(code)


def parse_options(items: list[str], flag: str = "--option") -> dict[str, str]:
    options: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            fail(f"{flag} {item!r} must be KEY=VALUE")
        options[key.strip()] = value.strip()
    return options


@app.command()
def games(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the installed games: id, title, player range, options (auto: the game decides from
    the player count) and where each game's README is."""
    rows: list[dict[str, Any]] = []
    for game in available_games().values():
        rows.append(
            {
                "id": game.id,
                "title": game.title,
                "players": f"{game.min_players}-{game.max_players}",
                "options": [spec.describe() for spec in game.options],
                "readme": _readme(game),
            }
        )
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = [[r["id"], r["title"], r["players"], "\n".join(r["options"]) or "-"] for r in rows]
    typer.echo(tabulate(table, headers=["id", "title", "players", "options"], tablefmt="simple"))
    typer.echo("\nEach game's README (options, decision kinds, view fields, events):")
    for r in rows:
        typer.echo(f"  {r['id']}: {r['readme'] or '(none installed)'}")


def _readme(game: Game) -> str | None:
    """The README beside the game's package, shown relative to the current folder if inside it."""
    module = sys.modules[type(game).__module__].__file__
    path = Path(module or ".").resolve().parent / "README.md"
    if not path.is_file():
        return None
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else str(path)


STATUS_WIDTH = 100


def result_table(result: MatchResult) -> str:
    rows = []
    for s in result.seats:
        status = s.status if not s.detail else f"{s.status}: {s.detail}"
        if len(status) > STATUS_WIDTH:  # the whole detail is in --json and the replay
            status = status[: STATUS_WIDTH - 3] + "..."
        rows.append([s.seat, s.name, s.score, s.rank + 1, status])
    return tabulate(rows, headers=["seat", "bot", "score", "rank", "status"], tablefmt="simple")


def faulted_seats(result: MatchResult) -> list[str]:
    """For each seat with a fault (a crash, a timeout, an illegal answer ...), its stderr, and
    where the whole record is: a bot's own log often says why it was late or wrong."""
    lines = []
    for s in result.seats:
        if s.status == OK:
            continue
        tail = log_lines(s.log_tail)
        said = "its stderr (first and last lines):" if tail else "nothing on its stderr"
        lines.append(f"seat {s.seat} ({s.name}) {s.status}: {said}")
        lines += [f"  | {line}" for line in tail]
    if lines:
        where = f"arena replay show {result.replay_path}" if result.replay_path else "--json"
        lines.append(f"every seat's full record (incidents, stderr): {where}")
    return lines


@app.command()
def play(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id (see `arena games`).")],
    bot: Annotated[
        list[str],
        typer.Option("--bot", metavar="CMD", help=f"{BOT_FORMS}; once per seat, in seat order."),
    ],
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed of the deal, for local testing: it is not secret (a bot that knows it "
            "knows every card) [default: 128 random bits from the secrets module]."
        ),
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", metavar="KEY=VALUE", help="Game option (repeatable)."),
    ] = None,
    replay: Annotated[
        Path | None,
        typer.Option(help="Replay file to write [default: replays/GAME-MATCH.json]."),
    ] = None,
    move_ms: Annotated[int, typer.Option(help="Time per decision (ms).")] = Limits.move_ms,
    bank_ms: Annotated[int, typer.Option(help="Overage bank per seat (ms).")] = Limits.bank_ms,
    init_ms: Annotated[int, typer.Option(help="Time to say hello (ms).")] = Limits.init_ms,
    sandbox: Annotated[
        str | None,
        typer.Option(metavar="LEVEL", help="Sandbox level [default: the strongest available]."),
    ] = None,
    fault: Annotated[
        list[str] | None,
        typer.Option(
            "--fault",
            metavar="CLASS=ACTION",
            help="ACTION is forfeit or substitute, e.g. illegal_action=substitute (repeatable).",
        ),
    ] = None,
    max_strikes: Annotated[
        int, typer.Option(help="Substituted faults a seat may make before it forfeits.")
    ] = FaultPolicy.max_strikes,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    position: Annotated[
        Path | None,
        typer.Option(help="Start from this position (JSON, full or short form; see the README)."),
    ] = None,
) -> None:
    """Play one match between bots and print each seat's score, rank and status.

    Ranks are shown from 1 (best) in the table; in JSON, rank counts from 0 as in the
    protocol. Python bots (python x.py, python3 x.py or a bare x.py) run with the interpreter
    Arena runs under.
    """
    try:
        game = load_game(game_id)
        start = None if position is None else read_position(game, position, len(bot))
        if start is not None and option:
            raise ValueError("--option cannot be used with --position (it carries its options)")
        given = parse_options(option or []) if start is None else start["options"]
        options = game.resolve_options(given, len(bot))
        specs = unique_names([parse_bot(text) for text in bot])
        level = choose_level(sandbox)
        for spec in specs:
            spec.check(level)
        policy = FaultPolicy(max_strikes=max_strikes).merged(parse_options(fault or [], "--fault"))
    except (UnknownGame, OptionError, BotCommandError, ValueError) as exc:
        fail(str(exc))
    if level == "rlimits":
        typer.echo(f"arena: warning: {UNSANDBOXED}", err=True)
    limits = Limits(init_ms=init_ms, move_ms=move_ms, bank_ms=bank_ms)
    match_id = new_match_id()
    path = replay or Path("replays") / f"{game.id}-{match_id}.json"
    result = play_match(
        game,
        specs,
        secrets.randbits(128) if seed is None else seed,
        options,
        limits,
        replay_path=path,
        match_id=match_id,
        policy=policy,
        sandbox_level=sandbox,
        position=start,
    )
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
    elif result.void:  # no table: a void match has no ranks, only seats that never got to play
        fail(f"match void: {result.void}", code=1)
    else:
        typer.echo(result_table(result))
        for line in faulted_seats(result):
            typer.echo(line)
        if result.replay_path:
            typer.echo(f"replay: {result.replay_path}")
    if result.void:
        fail(f"match void: {result.void}", code=1)


@app.command("check-bot")
def check_bot_command(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id (see `arena games`).")],
    bot: Annotated[
        str, typer.Option("--bot", metavar="CMD", help=f"The bot to check: {BOT_FORMS}.")
    ],
    games: Annotated[
        int, typer.Option(help="Matches to play; the bot takes each seat in turn.")
    ] = DEFAULT_GAMES,
    transport: Annotated[
        str | None,
        typer.Option(
            help="zmq, pipe or stdio [default: zmq, or the transport of a `pipe:` or `stdio:` "
            "command]."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the first deal (then +1 per game).")] = 0,
    players: Annotated[
        int | None, typer.Option(help="Seats per match [default: 3 where the game allows].")
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", metavar="KEY=VALUE", help="Game option (repeatable)."),
    ] = None,
    move_ms: Annotated[int, typer.Option(help="Time per decision (ms).")] = Limits.move_ms,
    bank_ms: Annotated[int, typer.Option(help="Overage bank per seat (ms).")] = Limits.bank_ms,
    init_ms: Annotated[int, typer.Option(help="Time to say hello (ms).")] = Limits.init_ms,
) -> None:
    """Check that a bot speaks the protocol: play it against random bots, report every problem.

    Every decision is asked, even one with a single option. Each problem is printed with the
    message that caused it; the exit status is 0 when there were none, 1 otherwise.
    """
    if transport is not None and transport not in TRANSPORTS:
        fail(f"--transport must be one of {', '.join(TRANSPORTS)}, got {transport!r}")
    try:
        game = load_game(game_id)
        spec = with_transport(parse_bot(bot), transport)
        spec.check(choose_level(None))
        limits = Limits(init_ms=init_ms, move_ms=move_ms, bank_ms=bank_ms)
        report = check_bot(game, spec, games, players, seed, limits, parse_options(option or []))
    except (UnknownGame, OptionError, BotCommandError, CheckError, SandboxError) as exc:
        fail(str(exc))
    for line in render(report):
        typer.echo(line)
    if not report.clean:
        raise typer.Exit(1)


def _load(path: Path) -> dict[str, Any]:
    try:
        return read(path)
    except ReplayError as exc:
        fail(str(exc))


ReplayArg = Annotated[Path, typer.Argument(metavar="REPLAY", help="Replay file.")]


@replay_app.command("show")
def replay_show(path: ReplayArg) -> None:
    """A readable account of a match, decision by decision (numbered from 1)."""
    for line in describe(_load(path)):
        typer.echo(line)


@replay_app.command("verify")
def replay_verify(path: ReplayArg) -> None:
    """Re-simulate the recorded answers and compare events and outcome.

    Exit status: 0 when identical; 1 when they differ (the first difference is named, its
    decision numbered from 1 as in replay show); 2 when the file cannot be read, or its game
    is not installed or in another version (which deals differently) than the replay's.
    """
    data = _load(path)
    try:
        engine_of(data)
    except ReplayError as exc:
        fail(f"{path}: cannot verify it here: {exc}")
    verdict = verify(data)
    if not verdict.ok:
        fail(f"{path}: replay does not verify: {verdict.message}", code=1)
    typer.echo(f"{path}: ok ({verdict.message})")
