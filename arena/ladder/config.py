"""Ladder files (TOML): load, check every key, and resolve paths, before anything runs.

A mistake in a ladder file is found here, named by file and key (``ladders/x.toml:
bots[2].command: expected a string, got 3``), so a run never starts on a half-valid file and
the database is never touched by one. Every mistake is reported, not only the first, each on
its own line, with the nearest key or bot name when one is close (``round`` -> ``rounds``).
``ladders/README.md`` documents every key.

Path rule: every relative path in the file (``database``, ``replays``, ``root``, a bot's
``cwd``) is relative to the directory holding the ladder file, never to the shell's directory.
``database`` may instead be a ``postgresql://`` URL (``arena/ladder/database.py``).
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import math
import shlex
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import Any, TypeVar

from arena.games import UnknownGame, available_games, load_game
from arena.games.base import Game, OptionError
from arena.ladder.database import Location, locate
from arena.ladder.matchmaking import STARTS, FollowSettings
from arena.ladder.ratings import RatingSettings
from arena.ladder.schedule import FULL_ROUND_LIMIT, combinations_per_round, tables_to_meet
from arena.match.bots import TRANSPORTS, BotCommandError, BotSpec, default_name
from arena.match.faults import FaultPolicy
from arena.match.results import CLOCKS, Limits
from arena.names import RULE, is_ref, name_key, shown
from arena.registry.gate import spec_of
from arena.registry.manifest import run_outside
from arena.registry.store import NoActiveVersion, Registry, RegistryError
from arena.sandbox import (
    LEVELS,
    BotPathError,
    SandboxError,
    SandboxLimits,
    check_command,
    runtime_path_problem,
)
from arena.sandbox import choose as choose_level
from arena.sandbox.limits import NUMBERS as LIMIT_NUMBERS

FORMATS = ("round-robin", "gauntlet")
MODELS = ("trueskill", "openskill")
DEFAULT_MAX_TABLES = 200
T = TypeVar("T")
F = TypeVar("F")


class LadderConfigError(ValueError):
    """A ladder file that cannot be run; each problem (one line) names the file and the key."""

    def __init__(self, *problems: str) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class LadderConfig:
    """A checked ladder file: everything the schedule, runner and reports need."""

    path: Path
    name: str
    game: Game
    seats: int
    options: dict[str, Any]
    bots: tuple[BotSpec, ...]
    limits: Limits
    sandbox_limits: SandboxLimits
    sandbox: str | None  # a level name, or None for the strongest available
    policy: FaultPolicy
    format: str
    candidate: str | None
    rounds: int
    seed: int
    max_tables: int
    rating: RatingSettings
    database: Location  # a SQLite file, or a postgresql:// URL
    replays: Path | None
    registry: Path | None = None  # where ``bot = "alice"`` entries are found
    refs: tuple[tuple[str, str], ...] = ()  # (bot name, registry reference given) per such bot
    follow: FollowSettings | None = None  # a following ladder (``[follow]``)
    shown: tuple[str, ...] = ()  # a following ladder's earlier versions: shown, not scheduled

    @property
    def bot_names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.bots) + self.shown

    def fingerprint(self) -> str:
        """What makes two matches with the same table and round the same match: game, options."""
        key = json.dumps([self.game.id, self.seats, sorted(self.options.items())], default=str)
        return hashlib.sha256(key.encode()).hexdigest()[:16]


def _type_name(value: Any) -> str:
    return f"{value!r}" if isinstance(value, str | int | float | bool) else type(value).__name__


def nearest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest choice to a mistyped ``word``, else ``""``."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


class TableReader:
    """Reads one TOML table, naming the file and the dotted key in every error.

    ``problems`` is shared by a file's readers: ``only`` and ``attempt`` record a mistake there
    and let the reading go on, so one pass reports every mistake of the file.
    """

    def __init__(
        self,
        label: str,
        data: Mapping[str, Any],
        prefix: str = "",
        problems: list[str] | None = None,
    ) -> None:
        self.label = label
        self.data = data
        self.prefix = prefix
        self.problems = [] if problems is None else problems

    def error(self, key: str, message: str) -> LadderConfigError:
        return LadderConfigError(f"{self.label}: {self.prefix}{key}: {message}")

    def only(self, allowed: tuple[str, ...]) -> None:
        for key in self.data:
            if key not in allowed:
                hint = nearest(key, allowed)
                expected = f"expected one of: {', '.join(allowed)}"
                self.problems.append(str(self.error(key, f"unknown key{hint} ({expected})")))

    def attempt(self, read: Callable[[], T], fallback: F) -> T | F:
        """``read()``, or ``fallback`` with its mistakes recorded."""
        try:
            return read()
        except LadderConfigError as exc:
            self.problems.extend(exc.problems)
            return fallback

    def get(self, key: str, kind: str, default: Any = None, required: bool = False) -> Any:
        if key not in self.data:
            if required:
                raise self.error(key, f"missing: expected {kind}")
            return default
        value = self.data[key]
        if not _CHECKS[kind](value):
            raise self.error(key, f"expected {kind}, got {_type_name(value)}")
        return value

    def number(self, key: str, default: float, low: float, high: float = math.inf) -> float:
        value = float(self.get(key, "a number", default))
        if not low <= value <= high:
            bound = f"at least {low}" if high == math.inf else f"between {low} and {high}"
            raise self.error(key, f"expected a number {bound}, got {value}")
        return value

    def integer(self, key: str, default: int, low: int) -> int:
        value = self.get(key, "an integer", default)
        if value < low:
            raise self.error(key, f"expected an integer of at least {low}, got {value}")
        return value

    def table(self, key: str) -> TableReader:
        """The sub-table ``key`` (empty, with the mistake recorded, when it is not a table)."""
        data: dict[str, Any] = self.attempt(lambda: self.get(key, "a table", {}), {})
        return TableReader(self.label, data, f"{self.prefix}{key}.", self.problems)


_CHECKS: dict[str, Callable[[Any], bool]] = {
    "a string": lambda v: isinstance(v, str),
    "an integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "a number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "a table": lambda v: isinstance(v, dict),
    "an array of tables": lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v),
    "a string or an array of strings": lambda v: (
        isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))
    ),
    "an array of strings": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "true, false or a folder": lambda v: isinstance(v, bool | str),
    "true or false": lambda v: isinstance(v, bool),
}

TOP_KEYS = (
    "name",
    "game",
    "seats",
    "format",
    "candidate",
    "rounds",
    "seed",
    "max_tables",
    "root",
    "database",
    "replays",
    "options",
    "limits",
    "sandbox",
    "runtime_paths",
    "reuse",
    "transport",
    "faults",
    "rating",
    "registry",
    "follow",
    "bots",
)
CLOCK_KEYS = ("init_ms", "move_ms", "bank_ms", "grace_ms", "match_ms", "clock", "wall_factor")
SANDBOX_KEYS = LIMIT_NUMBERS


def load_ladder(
    path: Path, check_bots: bool = True, data: Mapping[str, Any] | None = None
) -> LadderConfig:
    """Read and check a ladder file; ``check_bots`` also checks every bot command can run.
    ``data``: the file's tables already read (a competition file builds them), checked as if
    they were ``path``'s, except that a field too large for a full round is not refused: a
    competition's grows with every upload, so it plays the default design rather than stop."""
    label = str(path)
    grows = data is not None
    try:
        if data is None:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LadderConfigError(f"{label}: cannot read: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise LadderConfigError(f"{label}: not valid TOML: {exc}") from None
    problems: list[str] = []
    top = TableReader(label, data, problems=problems)
    top.only(TOP_KEYS)
    base = path.resolve().parent
    game = top.attempt(lambda: _game(top), None)
    seats = top.attempt(lambda: _seats(top, game), 0)
    options: dict[str, Any] = (
        top.attempt(lambda: _options(top, game, seats), {}) if game and seats else {}
    )
    root = top.attempt(lambda: (base / top.get("root", "a string", ".")).resolve(), base)
    limits_table = top.table("limits")
    limits_table.only(CLOCK_KEYS + SANDBOX_KEYS)
    sandbox_limits = top.attempt(
        lambda: _sandbox_limits(limits_table, SandboxLimits()), SandboxLimits()
    )
    level = top.attempt(lambda: _sandbox_level(top, check_bots), None)
    registry = top.attempt(lambda: base / top.get("registry", "a string", "registry"), base)
    database = top.attempt(
        lambda: locate(top.get("database", "a string", f"{path.stem}.db"), base), base
    )
    replays = top.attempt(lambda: _replays(top, base, path.stem), None)
    private = [base, registry, *(p for p in (database, replays) if isinstance(p, Path))]
    runtime: tuple[str, ...] = top.attempt(lambda: _runtime_paths(top, private), ())
    sandbox_limits = replace(sandbox_limits, runtime_paths=runtime)
    before = len(problems)
    following = "follow" in data  # a registry bot with no active version waits, unscheduled
    transport = top.attempt(lambda: _transport(top), "zmq")
    bots, refs = _bots(
        top, root, check_bots, sandbox_limits, level, registry, game, following, transport
    )
    if not top.attempt(lambda: top.get("reuse", "true or false", True), True):
        bots = tuple(replace(b, reuse=False) for b in bots)  # the organiser turned reuse off
    if seats and len(problems) == before and len(bots) < seats and not following:
        problems.append(str(top.error("bots", f"{len(bots)} bots cannot fill {seats} seats")))
    fmt, candidate = top.attempt(lambda: _format(top, bots, seats), ("round-robin", None))
    cfg: dict[str, Any] = {
        "name": top.attempt(lambda: top.get("name", "a string", path.stem), path.stem),
        "limits": top.attempt(lambda: _limits(limits_table), Limits()),
        "policy": top.attempt(lambda: _policy(top.table("faults")), FaultPolicy()),
        "rounds": top.attempt(lambda: top.integer("rounds", 1, 1), 1),
        "seed": top.attempt(lambda: top.integer("seed", 0, 0), 0),
        "max_tables": top.attempt(
            lambda: _max_tables(top, len(bots), seats, candidate, following or grows),
            DEFAULT_MAX_TABLES,
        ),
        "rating": top.attempt(lambda: _rating(top.table("rating")), RatingSettings()),
        "database": database,
        "replays": replays,
    }
    follow = top.attempt(lambda: _follow(top), None) if "follow" in data else None
    shown: tuple[str, ...] = ()
    given = [e["bot"] for e in data.get("bots", []) if isinstance(e, dict) and "bot" in e]
    if follow is not None and given:
        playing = {b.name for b in bots}
        read = functools.partial(_earlier_versions, registry, given, playing)
        shown, inherit = top.attempt(read, ((), ()))
        if follow.start == "inherit":
            cfg["rating"] = replace(cfg["rating"], inherit=inherit)
    if problems:
        raise LadderConfigError(*problems)
    assert game is not None
    # every interval's guarantee rests on the game's score range (ladders/README.md)
    cfg["rating"] = replace(cfg["rating"], score_range=game.score_range(seats, options))
    return LadderConfig(
        path=path,
        game=game,
        seats=seats,
        options=options,
        bots=bots,
        sandbox_limits=sandbox_limits,
        sandbox=level,
        format=fmt,
        candidate=candidate,
        registry=registry,
        refs=refs,
        follow=follow,
        shown=shown,
        **cfg,
    )


def _follow(top: TableReader) -> FollowSettings:
    table = top.table("follow")
    table.only(("placement", "start", "poll_s"))
    start = table.get("start", "a string", FollowSettings.start)
    if start not in STARTS:
        raise table.error("start", f"expected one of {', '.join(STARTS)}, got {start!r}")
    return FollowSettings(
        placement=table.integer("placement", FollowSettings.placement, 0),
        start=start,
        poll_s=table.number("poll_s", FollowSettings.poll_s, 0.05),
    )


def _earlier_versions(
    registry: Path, given: list[str], playing: set[str]
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """A following ladder's versions of each unpinned registry bot that ever played but do not
    play now (shown with their results, not scheduled), and (version, previous version) pairs
    for rating starts."""
    shown, inherit = [], []
    if not (registry / "registry.db").is_file():
        return (), ()  # said by the bot entries already
    with Registry(registry) as reg:
        for ref in given:
            if not isinstance(ref, str) or "@" in ref:
                continue
            versions = [v.ref for v in reg.versions(ref) if v.status not in _NEVER_PLAYED]
            shown += [v for v in versions if v not in playing]
            inherit += list(pairwise(versions))
    return tuple(shown), tuple(inherit)


_NEVER_PLAYED = ("building", "validating", "rejected")


def _game(top: TableReader) -> Game:
    game_id = top.get("game", "a string", required=True)
    try:
        return load_game(game_id)
    except UnknownGame as exc:
        raise top.error("game", f"{exc}{nearest(game_id, available_games())}") from None


def _seats(top: TableReader, game: Game | None) -> int:
    seats = top.get("seats", "an integer", required=True)
    if game is not None and not game.min_players <= seats <= game.max_players:
        raise top.error(
            "seats",
            f"{game.id} takes {game.min_players} to {game.max_players} players, got {seats}",
        )
    return seats


def _options(top: TableReader, game: Game, seats: int) -> dict[str, Any]:
    given = top.table("options")
    for key in given.data:
        try:
            game.option(key)
        except OptionError as exc:
            raise given.error(key, str(exc)) from None
    try:
        return game.resolve_options(given.data, seats)
    except OptionError as exc:
        raise top.error("options", str(exc)) from None


def _bots(
    top: TableReader,
    root: Path,
    check: bool,
    limits: SandboxLimits,
    level: str | None,
    registry: Path,
    game: Game | None,
    following: bool = False,
    transport: str = "zmq",
) -> tuple[tuple[BotSpec, ...], tuple[tuple[str, str], ...]]:
    """Every bot entry checked on its own, each entry's mistakes recorded; the good ones, and
    the registry reference of each one named from the registry. ``transport``: the ladder's,
    for command entries that name none (a registry bot speaks its manifest's)."""
    entries: list[dict[str, Any]] = top.attempt(
        lambda: top.get("bots", "an array of tables", required=True), []
    )
    seen: dict[str, tuple[int, str]] = {}
    bots = []
    refs = []
    running = top.attempt(lambda: _running_level(top, level), None) if check and entries else None
    for i, entry in enumerate(entries):
        item = TableReader(top.label, entry, f"bots[{i}].", top.problems)
        if "bot" in entry:
            read = functools.partial(_registry_bot, item, registry, limits, game, following)
            spec = item.attempt(read, None)
            if spec is not None:
                refs.append((spec.name, entry["bot"]))
        else:
            spec = item.attempt(functools.partial(_bot, item, root, limits, transport), None)
        if spec is None:
            continue
        key = name_key(spec.name)  # ``Greedy`` would pass for ``greedy``
        if key in seen:
            named = "" if "name" in entry else " (from its command: give it a name)"
            first, other = seen[key]
            message = f"{spec.name!r}{named} is already the name of bots[{first}]"
            if other != spec.name:
                message += f" ({other!r}: names are compared ignoring case, with . _ - alike)"
            top.problems.append(str(item.error("name", message)))
            continue
        seen[key] = (i, spec.name)
        if check:
            try:
                spec.check(running)
                if "bot" not in entry:  # a registry version was checked by its gate
                    check_command(spec.argv(), spec.cwd, limits.runtime_paths)
            except (BotCommandError, BotPathError) as exc:
                top.problems.append(str(item.error("command", str(exc))))
                continue
        bots.append(spec)
    return tuple(bots), tuple(refs)


def _registry_bot(
    item: TableReader, registry: Path, limits: SandboxLimits, game: Game | None, following: bool
) -> BotSpec | None:
    """A ``bot = "alice"`` (latest active version) or ``"alice@2"`` entry: the version's own
    command and folder, stored under its versioned name; None for a following ladder's bot
    with no active version now."""
    item.only(("bot", "limits"))
    ref = item.get("bot", "a string")
    if not (registry / "registry.db").is_file():
        message = f"no registry at {registry} (`arena bot submit PATH --registry {registry}`)"
        raise item.error("bot", message)
    try:
        with Registry(registry) as reg:
            version = reg.active(ref)
    except NoActiveVersion as exc:
        if following:
            return None
        raise item.error("bot", str(exc)) from None
    except RegistryError as exc:
        raise item.error("bot", str(exc)) from None
    outside = run_outside(version.manifest.run)  # a version stored before the rule
    if outside:
        if following:
            return None
        raise item.error("bot", f"{version.ref}: its run: {outside}")
    games = version.manifest.games
    if game is not None and games and game.id not in games:
        message = f"{version.ref} plays {', '.join(games)}, not {game.id} (its manifest's games)"
        raise item.error("bot", message)
    own = item.table("limits")
    own.only(SANDBOX_KEYS)
    return replace(spec_of(version), limits=_sandbox_limits(own, limits) if own.data else None)


def _running_level(top: TableReader, level: str | None) -> str:
    """The level bots will run at (``level``, or the strongest available)."""
    try:
        return choose_level(level)
    except SandboxError as exc:
        raise top.error("sandbox", str(exc)) from None


def _transport(table: TableReader, default: str = "zmq") -> str:
    """A ``transport`` key: one of ``TRANSPORTS``."""
    transport = table.get("transport", "a string", default)
    if transport not in TRANSPORTS:
        allowed = ", ".join(TRANSPORTS)
        raise table.error("transport", f"expected one of {allowed}, got {transport!r}")
    return transport


def _bot(item: TableReader, root: Path, limits: SandboxLimits, transport: str) -> BotSpec:
    """One ``[[bots]]`` entry; without a ``name``, the one its command implies (as on the
    command line: the script's file stem); without a ``transport``, the ladder's."""
    item.only(("name", "command", "cwd", "transport", "limits", "reuse"))
    command = item.get("command", "a string or an array of strings", required=True)
    try:
        argv = tuple(shlex.split(command) if isinstance(command, str) else command)
    except ValueError as exc:
        raise item.error("command", str(exc)) from None
    if not argv:
        raise item.error("command", "expected a command, got an empty one")
    cwd = (root / item.get("cwd", "a string", ".")).resolve()
    name = item.get("name", "a string", default_name(argv, cwd))
    if not is_ref(name):
        raise item.error("name", f"expected {RULE} (or NAME@VERSION), got {shown(name)}")
    transport = _transport(item, transport)
    own = item.table("limits")
    own.only(SANDBOX_KEYS)
    own_limits = _sandbox_limits(own, limits) if own.data else None
    reuse = item.get("reuse", "true or false", True)
    return BotSpec(name, argv, cwd, transport, own_limits, reuse)


def _format(top: TableReader, bots: tuple[BotSpec, ...], seats: int) -> tuple[str, str | None]:
    fmt = top.get("format", "a string", "round-robin")
    if fmt not in FORMATS:
        raise top.error("format", f"expected one of {', '.join(FORMATS)}, got {fmt!r}")
    candidate = top.get("candidate", "a string")
    if fmt == "round-robin":
        if candidate is not None:
            raise top.error("candidate", 'only used with format = "gauntlet"')
        return fmt, None
    if candidate is None:
        raise top.error("candidate", 'missing: format = "gauntlet" needs a candidate bot name')
    names = [b.name for b in bots]
    if candidate not in names:
        hint = nearest(candidate, names)
        raise top.error("candidate", f"expected the name of a bot, got {candidate!r}{hint}")
    return fmt, candidate


def _max_tables(
    top: TableReader, bots: int, seats: int, candidate: str | None, default: bool
) -> int:
    """``max_tables``, which a file must give when a full round would exceed
    ``FULL_ROUND_LIMIT`` tables: the default design would then be too small a choice to make
    silently (most pairs would never meet), and the full round too large to build or play.
    ``default``: take the default whatever the size (a following ladder has no rounds, a
    competition's field grows)."""
    limit: int = top.integer("max_tables", DEFAULT_MAX_TABLES, 1)
    if "max_tables" in top.data or default or not 0 < seats <= bots:
        return limit
    full = combinations_per_round(bots, seats, candidate is not None)
    if full <= FULL_ROUND_LIMIT:
        return limit
    meet = tables_to_meet(bots, seats, candidate is not None)
    raise top.error(
        "max_tables",
        f"missing: {bots} bots at {seats} seats make {full:,} tables a round, too many to play "
        f"every one; set max_tables to the tables a round plays from a balanced design "
        f"({meet:,} let every pair meet about once a round)",
    )


def _limits(table: TableReader) -> Limits:
    return Limits(
        init_ms=table.integer("init_ms", Limits.init_ms, 1),
        move_ms=table.integer("move_ms", Limits.move_ms, 1),
        bank_ms=table.integer("bank_ms", Limits.bank_ms, 0),
        grace_ms=table.integer("grace_ms", Limits.grace_ms, 0),
        match_ms=table.integer("match_ms", Limits.match_ms, 1),
        clock=_clock(table),
        wall_factor=table.integer("wall_factor", Limits.wall_factor, 1),
    )


def _clock(table: TableReader) -> str:
    """What a seat is charged: its own wall time, or its CPU time (``arena.match.clock``)."""
    clock = table.get("clock", "a string", Limits.clock)
    if clock not in CLOCKS:
        raise table.error("clock", f"expected one of {', '.join(CLOCKS)}, got {clock!r}")
    return clock


def _sandbox_limits(table: TableReader, base: SandboxLimits) -> SandboxLimits:
    """The sandbox keys of a ``limits`` table applied over ``base``."""
    given = {k: table.integer(k, 1, 1) for k in SANDBOX_KEYS if k in table.data}
    return base.merged(given)


def _sandbox_level(top: TableReader, check: bool) -> str | None:
    """The level asked for (None: the strongest); ``check``: it must be available here."""
    level = top.get("sandbox", "a string", "auto")
    if level not in ("auto", *LEVELS):
        raise top.error("sandbox", f"expected auto or one of {', '.join(LEVELS)}, got {level!r}")
    if level == "auto":
        return None
    if check:
        try:
            choose_level(level)
        except SandboxError as exc:
            raise top.error("sandbox", str(exc)) from None
    return level


def _policy(table: TableReader) -> FaultPolicy:
    try:
        return FaultPolicy().merged(table.data)
    except ValueError as exc:
        raise LadderConfigError(f"{table.label}: faults: {exc}") from None


def _rating(table: TableReader) -> RatingSettings:
    table.only(("model", "mu", "sigma", "beta", "tau", "draw_probability"))
    defaults = RatingSettings()
    model = table.get("model", "a string", defaults.model)
    if model not in MODELS:
        raise table.error("model", f"expected one of {', '.join(MODELS)}, got {model!r}")
    draw = table.number("draw_probability", defaults.draw_probability, 0.0, 0.99)
    if draw == 0 and model == "trueskill":  # a tie would have no probability at all
        raise table.error("draw_probability", "expected a number above 0 with TrueSkill, got 0: "
                          "it would give a tied match no chance, and rate one as nonsense (a "
                          "sigma that grows)")  # fmt: skip
    return RatingSettings(
        model=model,
        mu=table.number("mu", defaults.mu, -math.inf),
        sigma=table.number("sigma", defaults.sigma, 1e-9),
        beta=table.number("beta", defaults.beta, 1e-9),
        tau=table.number("tau", defaults.tau, 0.0),
        draw_probability=draw,
    )


def _runtime_paths(top: TableReader, private: list[Path]) -> tuple[str, ...]:
    """``runtime_paths``: folders or files every bot is shown read-only as part of the runtime
    (a JDK outside /usr); absolute, existing, and never the ladder's own places."""
    value = top.get("runtime_paths", "an array of strings", [])
    for path in value:
        problem = runtime_path_problem(path, private)
        if problem:
            raise top.error("runtime_paths", problem)
    return tuple(value)


def _replays(top: TableReader, base: Path, stem: str) -> Path | None:
    return replays_folder(top.get("replays", "true, false or a folder", False), base, stem)


def replays_folder(value: bool | str, base: Path, stem: str) -> Path | None:
    """Where a ladder file's replays go: ``replays = true`` beside it, a folder, or none."""
    if value is False:
        return None
    return base / (f"{stem}.replays" if value is True else value)
