"""Replay files: what a match was, decision by decision, and its verification by re-simulation.

A replay is one JSON document (``.json``, or gzip-compressed when the name ends in ``.gz``):

* ``format``/``format_version``: ``"arena-replay"``, 1;
* ``match``, ``game`` {``id``, ``version``, ``options``}, ``seed``, ``players`` [{``seat``,
  ``name``, ``command``}], ``limits``; ``position`` (only for a match started from a position:
  the full position it started from, instead of a deal from ``seed``);
* ``decisions``: every answer applied, in order: ``seat``, ``kind``, ``choice`` (index),
  ``option`` (the option chosen), ``by`` (``bot``, ``auto`` for a single-option decision,
  ``substitute`` for a forfeited seat), ``ms`` (the bot's thinking time), ``events`` (the
  length of the event log when the answer was applied: the events from there to the next
  decision's mark are what this answer caused) and ``info`` (only when the bot sent one: its
  note on this choice, printable, bounded by the referee);
* ``events``: the omniscient event log (each entry: ``event``, and ``only``/``private`` where
  the event is not fully public);
* ``outcome``: the game's own outcome; ``result``: per seat what the referee recorded: rank,
  status and fault detail, exit code or signal, transport, sandbox level, strikes, wall and CPU
  time, bank left, peak memory, warnings, every incident with the message that caused it, and
  the tail of its stderr;
* ``timing``: wall-clock facts. With the volatile seat fields (``VOLATILE_SEAT_FIELDS``) and
  each decision's ``ms``, the only parts that differ between two plays of one match.

``verify`` replays the recorded answers on a fresh engine and compares event log and outcome;
``position_at`` re-simulates up to a decision and writes the game's position there.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.games import load_game
from arena.match.channels import printable
from protocol.messages import MAX_INFO_LEN

if TYPE_CHECKING:
    from arena.games.base import Game, State
    from arena.match.results import MatchResult

FORMAT = "arena-replay"
FORMAT_VERSION = 1
TIMING_FIELDS = ("timing",)
VOLATILE_SEAT_FIELDS = (
    "time_ms",
    "max_ms",
    "bank_left_ms",
    "cpu_ms",
    "peak_memory_kb",
    "warnings",
    "incidents",
    "log_tail",
)


class ReplayError(ValueError):
    """A replay file that cannot be read or does not have the expected shape."""


@dataclass
class MatchRecord:
    """A match as played, in plain data: what a replay is written from."""

    match_id: str
    game: dict[str, Any]  # id, version, options
    seed: int
    players: list[dict[str, Any]]  # seat, name, command
    limits: dict[str, int | str]  # numbers, and the clock's kind ("wall" or "cpu")
    position: Mapping[str, Any] | None  # the full position it started from, if not a deal
    decisions: list[dict[str, Any]]  # every answer applied, in order
    events: list[dict[str, Any]]  # the omniscient event log
    outcome: dict[str, Any]
    result: MatchResult


def build(record: MatchRecord) -> dict[str, Any]:
    """The replay document of a match."""
    result = record.result
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "match": record.match_id,
        "game": record.game,
        "seed": record.seed,
        "players": record.players,
        "limits": record.limits,
        **({"position": record.position} if record.position is not None else {}),
        "decisions": record.decisions,
        "events": record.events,
        "outcome": record.outcome,
        "result": [
            {k: v for k, v in asdict(s).items() if k not in ("name", "score")} for s in result.seats
        ],
        "sandbox": result.sandbox,
        "timing": {"duration_ms": result.duration_ms},
    }


def write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, separators=(",", ":"), sort_keys=False)
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        path.write_text(text + "\n")


_REQUIRED = {
    "match": str,
    "game": dict,
    "seed": int,
    "players": list,
    "decisions": list,
    "events": list,
    "outcome": dict,
    "result": list,
}


def read(path: Path) -> dict[str, Any]:
    """Load and shape-check a replay; ReplayError says what is wrong and where."""
    try:
        raw = path.read_bytes()
        if path.name.endswith(".gz"):
            raw = gzip.decompress(raw)
        data = json.loads(raw)
    except FileNotFoundError:
        raise ReplayError(f"{path}: no such file") from None
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReplayError(f"{path}: not a readable replay ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReplayError(f"{path}: not an arena replay (no 'format': {FORMAT!r})")
    if data.get("format_version") != FORMAT_VERSION:
        raise ReplayError(f"{path}: replay format version {data.get('format_version')!r} unknown")
    for key, kind in _REQUIRED.items():
        if not isinstance(data.get(key), kind):
            raise ReplayError(f"{path}: field {key!r} missing or not a {kind.__name__}")
    for i, record in enumerate(data["decisions"]):
        if not (
            isinstance(record, dict)
            and isinstance(record.get("seat"), int)
            and isinstance(record.get("choice"), int)
        ):
            raise ReplayError(f"{path}: decision {i + 1} lacks an integer 'seat' or 'choice'")
    return data


def _plain(value: Any) -> Any:
    """What a value becomes after a JSON round trip (tuples to lists, int keys to strings)."""
    return json.loads(json.dumps(value))


@dataclass
class Verification:
    ok: bool
    message: str


def verify(data: dict[str, Any]) -> Verification:
    """Re-simulate the recorded answers and compare; never raises for a bad replay."""
    try:
        game = engine_of(data)
    except ReplayError as exc:
        return Verification(False, str(exc))
    try:
        state = start_state(game, data)
        problem = _apply(state, data["decisions"])
        if problem:
            return Verification(False, problem)
    except Exception as exc:  # a corrupt replay must give a verdict, not a traceback
        return Verification(False, f"re-simulation failed: {type(exc).__name__}: {exc}")
    if state.pending():
        return Verification(False, "the recorded answers end before the game does")
    events = _plain(state.event_log())
    if events != data["events"]:
        first = next(
            (i for i, (a, b) in enumerate(zip(events, data["events"], strict=False)) if a != b),
            min(len(events), len(data["events"])),
        )
        return Verification(False, f"event log differs from event {first + 1} on")
    if _plain(state.outcome().as_dict()) != data["outcome"]:
        return Verification(False, "outcome differs")
    return Verification(
        True, f"{len(data['decisions'])} decisions, {len(events)} events: identical"
    )


def engine_of(data: Mapping[str, Any]) -> Game:
    """The installed engine a replay was played with; ReplayError if missing or of a version
    other than the replay's (a different version may play the same answers differently)."""
    try:
        game = load_game(data["game"].get("id", ""))
    except LookupError as exc:
        raise ReplayError(str(exc)) from None
    made = data["game"].get("version")
    if made != game.version:
        raise ReplayError(
            f"made by {game.id} {made}, and this Arena's {game.id} is {game.version}, which "
            "deals and plays differently: the replay cannot be re-simulated here (which says "
            f"nothing against it); verify it with an Arena whose {game.id} is {made}"
        )
    return game


def start_state(game: Game, data: Mapping[str, Any]) -> State:
    """The state the match started from: its recorded position, or a deal from its seed."""
    if "position" in data:
        return game.load(data["position"])
    return game.new(len(data["players"]), data["seed"], data["game"].get("options"))


def _apply(state: State, decisions: list[dict[str, Any]], first: int = 1) -> str:
    """Apply recorded answers, checking each against what is pending; the first problem, its
    decision numbered from ``first`` (from 1, as ``replay show`` counts)."""
    for i, record in enumerate(decisions, start=first):
        pending = {d.seat: d for d in state.pending()}
        decision = pending.get(record["seat"])
        if decision is None or decision.kind != record.get("kind"):
            return f"decision {i}: seat {record['seat']} was not asked"
        if not 0 <= record["choice"] < len(decision.options):
            return f"decision {i}: choice {record['choice']} out of range"
        if "option" in record and _plain(decision.options[record["choice"]]) != record["option"]:
            return f"decision {i}: the option chosen differs"
        state.act(record["seat"], record["choice"])
    return ""


def position_at(data: dict[str, Any], number: int) -> dict[str, Any]:
    """The position before decision ``number`` (from 1, as ``replay show`` counts them).

    Raises ReplayError when the number is out of range, the game is not installed or cannot
    write positions, or the recorded answers do not re-simulate.
    """
    decisions = data["decisions"]
    if not 1 <= number <= len(decisions):
        raise ReplayError(
            f"--at must be 1..{len(decisions)} (the replay's decisions), got {number}"
        )
    game = engine_of(data)
    try:
        state = start_state(game, data)
        problem = _apply(state, decisions[: number - 1])
        position = state.position()
    except Exception as exc:  # a corrupt replay must give a clear error, not a traceback
        raise ReplayError(f"re-simulation failed: {type(exc).__name__}: {exc}") from None
    if problem:
        raise ReplayError(f"replay does not re-simulate: {problem}")
    if position is None:
        raise ReplayError(f"{game.id} cannot write positions")
    return position


def strip_timing(data: dict[str, Any]) -> dict[str, Any]:
    """The replay without wall-clock facts: two plays of one match give equal results."""
    out = {k: v for k, v in data.items() if k not in TIMING_FIELDS}
    out["decisions"] = [{k: v for k, v in d.items() if k != "ms"} for d in data["decisions"]]
    out["result"] = [
        {k: v for k, v in r.items() if k not in VOLATILE_SEAT_FIELDS} for r in data["result"]
    ]
    return out


def _fields(items: dict[str, Any], skip: str = "") -> str:
    return " ".join(f"{k}={json.dumps(v)}" for k, v in items.items() if k != skip)


def _describe_event(entry: dict[str, Any]) -> str:
    event = entry.get("event", {})
    line = f"{event.get('type', '?')} {_fields(event, skip='type')}".rstrip()
    if "only" in entry:
        line += f"  [seen by seat {', '.join(str(s) for s in entry['only'])}]"
    for seat, extra in entry.get("private", {}).items():
        line += f"  [seat {seat} also sees {_fields(extra)}]"
    return line


def describe(data: dict[str, Any]) -> list[str]:
    """A readable account of a replay: header, then each decision followed by what it caused."""
    names = {p["seat"]: p["name"] for p in data["players"]}
    game = data["game"]
    lines = [
        f"match {data['match']}: {game.get('id')} {game.get('version')}, seed {data['seed']}",
        f"options: {json.dumps(game.get('options', {}), sort_keys=True)}",
        "players: " + ", ".join(f"{s}={n}" for s, n in sorted(names.items())),
    ]
    events = data["events"]
    marks = [d.get("events", 0) for d in data["decisions"]] + [len(events)]
    lines += [f"  . {_describe_event(e)}" for e in events[: marks[0]]]
    for i, record in enumerate(data["decisions"]):
        seat = record["seat"]
        took = (
            f" [{record['ms']:.1f} ms]" if record.get("by") == "bot" else f" [{record.get('by')}]"
        )
        option = _fields(record.get("option", {}))
        lines.append(
            f"#{i + 1} seat {seat} ({names.get(seat, '?')}) {record.get('kind')}: "
            f"choice {record['choice']} {option}{took}"
        )
        if isinstance(record.get("info"), str):
            lines.append(f"  info: {printable(record['info'], MAX_INFO_LEN)}")
        lines += [f"  . {_describe_event(e)}" for e in events[marks[i] : marks[i + 1]]]
    lines.append("result:")
    outcome = data["outcome"]
    for r in data["result"]:
        score = outcome.get("scores", [None] * len(names))[r["seat"]]
        detail = f" ({r['detail']})" if r.get("detail") else ""
        lines.append(
            f"  seat {r['seat']} {names.get(r['seat'], '?')}: place {r['rank'] + 1}, "
            f"score {score}, {r['status']}{detail}"
        )
        lines += [f"    {line}" for line in describe_seat(r)]
    return lines


def _number(value: Any, unit: str, scale: float = 1.0) -> str:
    return "?" if value is None else f"{value / scale:.1f} {unit}"


def describe_seat(r: dict[str, Any]) -> list[str]:
    """How a seat's bot ran: resources, exit, strikes, incidents and its stderr tail."""
    if "transport" not in r:  # a replay written before these were recorded
        return []
    ended = f"signal {r['signal']}" if r.get("signal") else f"exit code {r.get('exit_code')}"
    lines = [
        f"{r['transport']} bot, sandbox {r['sandbox'] or '?'}, {r['decisions']} decisions, "
        f"{_number(r['time_ms'], 'ms')} thinking (max {_number(r['max_ms'], 'ms')}), "
        f"CPU {_number(r['cpu_ms'], 'ms')}, peak memory "
        f"{_number(r['peak_memory_kb'], 'MiB', 1024)}, bank left "
        f"{_number(r['bank_left_ms'], 'ms')}, strikes {r['strikes']}, {ended}",
    ]
    if r.get("warnings"):
        lines.append("warnings: " + ", ".join(f"{k} x{n}" for k, n in r["warnings"].items()))
    for incident in r.get("incidents", []):
        where = f" at seq {incident['seq']} ({incident['kind']})" if incident.get("seq") else ""
        fatal = "fatal " if incident.get("fatal") else ""
        lines.append(f"{fatal}{incident['code']}{where}: {incident['detail']}")
        if incident.get("message"):
            lines.append(f"  it sent: {incident['message']}")
    tail = log_lines(r.get("log_tail", ""))
    if tail:
        lines.append("stderr (its first and last lines):")
        lines += [f"  | {line}" for line in tail]
    return lines


def log_lines(log: str, head: int = 5, tail: int = 10) -> list[str]:
    """A bot's stderr for people: its first ``head`` and last ``tail`` non-blank lines, with
    a line saying how many were left out between (the error of a Node or Java bot comes first,
    its last words at the end)."""
    lines = [line for line in log.splitlines() if line.strip()]
    if len(lines) <= head + tail + 1:
        return lines
    cut = len(lines) - head - tail
    return [*lines[:head], f"[... {cut} lines cut ...]", *lines[-tail:]]
