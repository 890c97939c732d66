"""The replay viewer: one self-contained HTML page per replay, opened offline in any browser.

The match is re-simulated from its recorded answers, and for every decision the page holds what
each seat was shown at that moment: its ``view`` (exactly what the engine sends the bot) and the
events it was sent since the previous decision. A seat's page (``seat=N``) holds that seat's
data only (its bot's notes, ``action.info``, included), and of the other seats' decisions only
whose turn it was: it is what the author of that seat's bot may see of the match. The full
page, for organisers, holds every seat and an omniscient mode (the table once with every seat's
own cards, the omniscient event log and the game's position).

To stay small, each step stores only what changed in each view since the previous step, as
patch operations down to the parts that differ (``[path, value]``, ``[path]`` to delete a key),
and what all seats share once (under ``"*"``); the player folds them back into whole views once,
when the page opens. Options and prompts are stored once each, decisions refer to them. The page
inlines the generic player (``viewer/player.js`` and ``player.css``) and the game's renderer,
``render.js`` beside its engine (found with importlib.resources, so a game from another package
brings its own); a game without one is drawn as a readable tree of its view.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from arena.games import load_game, packaged_text
from arena.games.base import Game, State
from arena.match.replay import ReplayError, engine_of, log_lines, read, start_state

RENDERER = "render.js"
_ASSETS = resources.files("arena.report") / "viewer"


def _plain(value: Any) -> Any:
    """What the bot receives after encoding: tuples become lists, keys strings."""
    return json.loads(json.dumps(value))


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":")))


def _patch(before: Any, after: Any, path: list[Any] | None = None) -> list[list[Any]]:
    """Operations that turn ``before`` into ``after``: ``[path, value]`` sets, ``[path]``
    deletes a key. Maps and equal-length lists are compared item by item, down to where they
    differ, unless replacing the whole is shorter."""
    path = path or []
    if before == after:
        return []
    ops: list[list[Any]] = []
    if isinstance(before, dict) and isinstance(after, dict):
        for key, value in after.items():
            if key in before:
                ops += _patch(before[key], value, [*path, key])
            else:
                ops.append([[*path, key], value])
        ops += [[[*path, key]] for key in before if key not in after]
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for i, (old, new) in enumerate(zip(before, after, strict=True)):
            ops += _patch(old, new, [*path, i])
    else:
        return [[path, after]]
    return ops if not path or _size(ops) < _size(after) else [[path, after]]


def _position(state: State) -> dict[str, Any] | None:
    """The state's full position, or None for a game that cannot write one."""
    position = state.position()
    return None if position is None else _plain(position)


def _turn_numbers(decisions: Sequence[Mapping[str, Any]]) -> dict[tuple[int, int], int]:
    """(seat, turn seq) -> decision index: the referee numbers the turns it sends a seat from 1,
    and sends none for a decision it answers itself (``auto``)."""
    out: dict[tuple[int, int], int] = {}
    sent: dict[int, int] = {}
    for i, record in enumerate(decisions):
        if record.get("by") != "auto":
            seat = record["seat"]
            sent[seat] = sent.get(seat, 0) + 1
            out[seat, sent[seat]] = i
    return out


def _incidents(data: Mapping[str, Any], seats: Sequence[int]) -> tuple[dict[int, list], list]:
    """The recorded incidents of ``seats``: by decision index where the turn is known, and the
    rest (the handshake, after the game) for the match as a whole."""
    turns = _turn_numbers(data["decisions"])
    by_decision: dict[int, list] = {}
    rest = []
    for result in data["result"]:
        if result.get("seat") not in seats:
            continue
        for incident in result.get("incidents", []):
            item = {"seat": result["seat"], **incident}
            index = turns.get((result["seat"], incident.get("seq") or 0))
            if index is None or data["decisions"][index].get("kind") != incident.get("kind"):
                rest.append(item)
            else:
                by_decision.setdefault(index, []).append(item)
    return by_decision, rest


def collect(data: Mapping[str, Any], seat: int | None = None) -> dict[str, Any]:
    """Re-simulate a replay into the viewer's steps; ReplayError if it does not re-simulate.

    With ``seat``, only that seat's views, events, decisions and incidents are kept.
    """
    game = engine_of(data)
    players = len(data["players"])
    if seat is not None and not 0 <= seat < players:
        raise ReplayError(f"--seat must be 0..{players - 1} (the replay's seats), got {seat}")
    seats = list(range(players)) if seat is None else [seat]
    incidents, unplaced = _incidents(data, seats)
    try:
        options = game.resolve_options(data["game"].get("options"), players)
        state = start_state(game, data)
        steps = _steps(state, data, seats, incidents, omniscient=seat is None)
    except ReplayError:
        raise
    except Exception as exc:  # a corrupt replay must give a clear error, not a traceback
        raise ReplayError(f"re-simulation failed: {type(exc).__name__}: {exc}") from None
    option_table, prompt_table = _tables(steps)
    return {
        "match": data["match"],
        "game": {
            "id": game.id,
            "title": game.title,
            "version": game.version,
            "options": data["game"].get("options", {}),
        },
        "players": [{"seat": p["seat"], "name": p["name"]} for p in data["players"]],
        "seats": seats,
        "omniscient": seat is None,
        "data": _plain(game.public_data(options)),
        "steps": steps,
        "options": option_table,
        "prompts": prompt_table,
        "outcome": {k: data["outcome"].get(k) for k in ("scores", "ranks")},
        "result": [_result(r, r.get("seat") in seats) for r in data["result"]],
        "incidents": unplaced,
    }


def _tables(steps: list[dict[str, Any]]) -> tuple[list[Any], list[str]]:
    """Store each distinct option and prompt once: a match offers the same few again and again
    (a long Motora match: 27,666 options offered, 446 distinct). Decisions keep indices."""
    options: dict[str, int] = {}
    option_list: list[Any] = []
    prompts: dict[str, int] = {}
    for step in steps:
        decision = step.get("decision", {})
        if "options" not in decision:
            continue
        indices = []
        for option in decision["options"]:
            key = _key(option)
            if key not in options:
                options[key] = len(option_list)
                option_list.append(option)
            indices.append(options[key])
        decision["options"] = indices
        decision["prompt"] = prompts.setdefault(decision["prompt"], len(prompts))
    return option_list, list(prompts)


def _result(r: Mapping[str, Any], own: bool) -> dict[str, Any]:
    """A seat's result: place and status for every seat, its stderr only for its own page."""
    out = {k: r.get(k) for k in ("seat", "rank", "status", "detail")}
    if own:
        out["log"] = log_lines(r.get("log_tail", ""))
    return out


def _steps(
    state: State,
    data: Mapping[str, Any],
    seats: Sequence[int],
    incidents: Mapping[int, list],
    omniscient: bool,
) -> list[dict[str, Any]]:
    """One step per decision (before its answer is applied), then one for the game's end."""
    decisions = data["decisions"]
    log = data["events"]
    cursors = dict.fromkeys(seats, 0)
    views: dict[int, dict[str, Any]] = {}
    position: dict[str, Any] | None = None
    steps = []
    mark = 0
    for i in range(len(decisions) + 1):
        step: dict[str, Any] = {}
        if i < len(decisions):
            record = decisions[i]
            pending = {d.seat: d for d in state.pending()}
            decision = pending.get(record["seat"])
            if decision is None or decision.kind != record.get("kind"):
                raise ReplayError(f"decision {i + 1}: seat {record['seat']} was not asked")
            if not 0 <= record["choice"] < len(decision.options):
                raise ReplayError(f"decision {i + 1}: choice {record['choice']} out of range")
            step["decision"] = _decision(record, decision, incidents.get(i, []), seats)
        elif state.pending():
            raise ReplayError("the recorded answers end before the game does")
        step["views"], step["events"] = _seat_data(state, seats, cursors, views)
        if omniscient:
            end = decisions[i].get("events", len(log)) if i < len(decisions) else len(log)
            step["log"] = log[mark:end]
            mark = end
            now = _position(state)
            if now is not None and (change := _patch(position or {}, now)):
                step["position"] = change
            position = now
        steps.append(step)
        if i < len(decisions):
            state.act(decisions[i]["seat"], decisions[i]["choice"])
    return steps


def _decision(
    record: Mapping[str, Any], decision: Any, incidents: list, seats: Sequence[int]
) -> dict[str, Any]:
    """The decision as its seat saw it; of another seat's decision only whose it was."""
    if record["seat"] not in seats:
        return {"seat": record["seat"]}
    return {
        "seat": record["seat"],
        "kind": decision.kind,
        "prompt": decision.prompt,
        "options": _plain(list(decision.options)),
        "choice": record["choice"],
        "by": record.get("by"),
        "ms": record.get("ms"),
        **({"info": record["info"]} if isinstance(record.get("info"), str) else {}),
        **({"incidents": incidents} if incidents else {}),
    }


def _seat_data(
    state: State,
    seats: Sequence[int],
    cursors: dict[int, int],
    views: dict[int, dict[str, Any]],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each seat's view patch and the events it was sent since the previous step.

    What every seat shares is stored once under ``"*"``: the patch operations all seats'
    patches hold, and the events when all seats were sent the same (most of a view is public).
    """
    patches: dict[str, list] = {}
    sent: dict[str, list] = {}
    for seat in seats:
        view = _plain(state.view(seat))
        patches[str(seat)] = _patch(views.get(seat, {}), view)
        views[seat] = view
        events, cursors[seat] = state.events_since(seat, cursors[seat])
        sent[str(seat)] = _plain(events)
    if len(seats) > 1:
        keys = [[_key(op) for op in ops] for ops in patches.values()]
        common = set(keys[0]).intersection(*keys[1:])
        if common:
            first = next(iter(patches.values()))
            shared = [op for op, key in zip(first, keys[0], strict=True) if key in common]
            patches = {
                seat: [op for op, key in zip(ops, k, strict=True) if key not in common]
                for (seat, ops), k in zip(patches.items(), keys, strict=True)
            }
            patches["*"] = shared
        lists = list(sent.values())
        if all(events == lists[0] for events in lists):
            sent = {"*": lists[0]}
    return _nonempty(patches), _nonempty(sent)


def _key(op: list[Any]) -> str:
    return json.dumps(op, sort_keys=True, separators=(",", ":"))


def _nonempty(by_seat: dict[str, list]) -> dict[str, list]:
    return {seat: items for seat, items in by_seat.items() if items}


def renderer(game: Game) -> str:
    """The game's ``render.js`` beside its engine, or "" for the generic tree view."""
    return packaged_text(game, RENDERER) or ""


def _script(text: str, where: str) -> str:
    if "</script" in text.lower():
        raise ValueError(f"{where} contains '</script' and cannot be inlined")
    return text


def inline_parts(game: Game) -> tuple[list[str], list[str]]:
    """The scripts and the stylesheets a viewer page of ``game`` inlines, in order: always the
    same texts (a server's Content-Security-Policy allows exactly these, by hash)."""
    scripts = [
        _script(_read("kit.js"), "kit.js"),
        "window.ArenaRenderers = {};",
        _script(renderer(game), f"{game.id} {RENDERER}"),
        _script(_read("player.js"), "player.js"),
    ]
    return scripts, [_read("player.css")]


def page(data: Mapping[str, Any], seat: int | None = None) -> str:
    """The viewer page of a replay (see the module docstring)."""
    viewer = collect(data, seat)
    scripts, styles = inline_parts(load_game(viewer["game"]["id"]))
    # JSON inside <script>: every "<" escaped, so no "</script>" or "<!--" in a bot's name or
    # words can end the element.
    payload = json.dumps(viewer, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    who = "all seats" if seat is None else f"seat {seat} ({viewer['players'][seat]['name']})"
    title = html.escape(f"{viewer['game']['title']} · match {viewer['match']} · {who}")
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{title}</title>",
            *(f"<style>{style}</style>" for style in styles),
            "</head><body>",
            f"<h1>{title}</h1>",
            '<div id="viewer"></div>',
            f'<script type="application/json" id="replay-data">{payload}</script>',
            *(f"<script>{script}</script>" for script in scripts),
            "</body></html>",
            "",
        ]
    )


def _read(name: str) -> str:
    return (_ASSETS / name).read_text(encoding="utf-8")


def write_viewer(replay: Path | Mapping[str, Any], out: Path, seat: int | None = None) -> Path:
    """Write the viewer of ``replay`` (a file or its data) to ``out``; ReplayError if it cannot."""
    data = read(replay) if isinstance(replay, Path) else replay
    text = page(data, seat)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out
