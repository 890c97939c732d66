"""Views as deltas (protocol 1.2, PROTOCOL.md 8.5): bytes per turn and the referee's CPU.

For each game:

* bytes per turn message, full against delta, over the turns of random games (every decision
  with a choice, and the game_over's view), encoded as on the wire; beside them what a delta
  one level deeper would weigh (map values diffed key by key too), to tell whether it would pay;
* the referee's CPU per decision (its process, all threads) in full matches between random
  bots kept between matches on the pipe, Python SDK bots and C++ ones (``sample_bots``), each
  with deltas (``--deltas``) against with whole views, in blocks A B C D A B C D ... with
  the load average over them;
* the same work, without the noise of whole matches, timed here on those turns: the referee
  encoding each turn whole, and working out its delta and encoding it (best of 5 passes); and
  what the SDK bot spends decoding them (and applying the deltas).

    python bench/deltas.py [--quick]

Prints the table and saves bench/results/deltas.json.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
from typing import Any

import msgpack
from decision_loop import CPP_BOT, PYTHON_BOT, ROOT, SEATS, Sample, arena, at
from throughput import report

from arena.games import load_game
from arena.games.base import State
from arena.match.bots import parse_bot
from arena.match.views import SeatViews, same_value
from protocol import codec, messages
from protocol.bot import Views

RESULTS = Path(__file__).parent / "results" / "deltas.json"
MATCHES = {"happy_mochi": 1, "mottainai": 4, "mai_star": 3, "motora": 4}  # per block


def deeper(last: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The delta if map values were sent key by key as well (not the protocol: a measure)."""
    out = {}
    for key, value in delta.items():
        old = last.get(key)
        if isinstance(value, dict) and isinstance(old, dict):
            value = {k: v for k, v in value.items() if k not in old or not same_value(old[k], v)}
        out[key] = value
    return out


CLOCK = {"move_ms": 1000, "bank_ms": 10000}


class Wire:
    """The turn messages of random games, whole and as deltas, by seat, as a bot receives them."""

    def __init__(self) -> None:
        self.sizes = {"turns": 0, "full": 0, "delta": 0, "deeper": 0}
        self.full: list[bytes] = []
        self.delta: list[tuple[int, bytes]] = []
        self.turns: list[tuple[int, dict[str, Any], str, Any]] = []  # seat, view, kind, options

    def build_us(self, passes: int = 5) -> tuple[float, float]:
        """The referee's share that deltas change, per turn (best of ``passes``): the turn
        encoded with the whole view, and the delta worked out and the turn encoded with it."""
        whole = part = float("inf")
        for _ in range(passes):
            start = time.process_time()
            for _seat, view, kind, options in self.turns:
                codec.encode(messages.turn(1, kind, "", options, view, [], CLOCK))
            middle = time.process_time()
            sent: dict[int, SeatViews] = {}
            for seat, view, kind, options in self.turns:
                delta, dropped = sent.setdefault(seat, SeatViews()).delta(view)
                codec.encode(messages.turn(1, kind, "", options, delta, [], CLOCK, dropped))
            end = time.process_time()
            whole, part = min(whole, middle - start), min(part, end - middle)
        turns = len(self.turns) / 1e6
        return whole / turns, part / turns

    def decode_us(self) -> tuple[float, float]:
        """What a Python SDK bot spends per turn decoding them: whole, and as deltas applied."""
        start = time.process_time()
        for data in self.full:
            msgpack.unpackb(data)
        middle = time.process_time()
        held: dict[int, Views] = {}
        for seat, data in self.delta:
            held.setdefault(seat, Views()).view(msgpack.unpackb(data))
        end = time.process_time()
        turns = self.sizes["turns"] / 1e6
        return (middle - start) / turns, (end - middle) / turns


def weigh(wire: Wire, sent: SeatViews, seat: int, state: State, kind: str, options: Any) -> None:
    """Add the turn the seat is sent now to ``wire``: whole, as a delta, as a deeper delta."""
    view, last = state.view(seat), sent.last
    delta, dropped = sent.delta(view)
    full = codec.encode(messages.turn(1, kind, "", options, view, [], CLOCK))
    part = codec.encode(messages.turn(1, kind, "", options, delta, [], CLOCK, dropped))
    more = messages.turn(1, kind, "", options, deeper(last, delta), [], CLOCK, dropped)
    wire.full.append(full)
    wire.delta.append((seat, part))
    wire.turns.append((seat, view, kind, options))
    for name, data in (("full", full), ("delta", part), ("deeper", codec.encode(more))):
        wire.sizes[name] += len(data)
    wire.sizes["turns"] += 1


def turns_of(game_id: str, seeds: range) -> Wire:
    """The turn messages of random games (with the game_over's views)."""
    game, players = load_game(game_id), SEATS[game_id]
    wire = Wire()
    for seed in seeds:
        state, rng = game.new(players, seed), random.Random(seed)
        sent = [SeatViews() for _ in range(players)]
        while pending := state.pending():
            for d in pending:
                if len(d.options) > 1:  # as the referee: a single option is not asked
                    weigh(wire, sent[d.seat], d.seat, state, d.kind, list(d.options))
            for d in sorted(pending, key=lambda d: d.seat):
                state.act(d.seat, rng.randrange(len(d.options)))
        for seat in range(players):
            weigh(wire, sent[seat], seat, state, "game_over", [])
    return wire


KINDS = {"sdk": f"python {PYTHON_BOT}", "cpp": str(CPP_BOT)}  # the bots of each kind


def referee_cpu(game_id: str, blocks: int, matches: int) -> dict[str, Sample]:
    """The referee with SDK bots and with C++ bots, each taking deltas and whole views, block
    after block (``sdk``, ``sdk_full``, ``cpp``, ``cpp_full``)."""
    totals: dict[str, Sample] = {}
    for block in range(blocks):
        seeds = range(200 + block * matches, 200 + (block + 1) * matches)
        for kind, command in KINDS.items():
            for name, flag in ((kind, " --deltas"), (f"{kind}_full", "")):
                bots = [
                    parse_bot(f"p{i}=pipe:{command} --seed {i}{flag}", ROOT)
                    for i in range(SEATS[game_id])
                ]
                totals.setdefault(name, Sample()).add(arena(bots, seeds, game_id))
    return totals


def rows_of(game_id: str, wire: Wire, cpu: dict[str, Sample]) -> list[dict[str, Any]]:
    size = wire.sizes
    turns = size["turns"]
    decode_full, decode_delta = wire.decode_us()
    build_full, build_delta = wire.build_us()
    full, delta = size["full"] / turns, size["delta"] / turns
    rows = [
        {
            "figure": f"{game_id}: bytes per turn, delta",
            "value": round(delta, 1),
            "floor": "full view",
            "floor_value": round(full, 1),
            "unit": "B",
            "ratio": round(delta / full, 2),
            "goal": "",
            "met": None,
            "deeper_delta_bytes": round(size["deeper"] / turns, 1),
            "turns": turns,
        },
        *(
            {
                "figure": f"{game_id}: referee CPU per decision, {who} bots with deltas",
                "value": round(cpu[kind].cpu_us, 1),
                "floor": "with full views",
                "floor_value": round(cpu[f"{kind}_full"].cpu_us, 1),
                "unit": "us",
                "ratio": round(cpu[kind].cpu_us / cpu[f"{kind}_full"].cpu_us, 2),
                "goal": "",
                "met": None,
                "decisions": cpu[kind].count,
            }
            for kind, who in (("sdk", "SDK"), ("cpp", "C++"))
        ),
        {
            "figure": f"{game_id}: referee's turn encoding per decision, delta worked out",
            "value": round(build_delta, 2),
            "floor": "whole view",
            "floor_value": round(build_full, 2),
            "unit": "us",
            "ratio": round(build_delta / build_full, 2),
            "goal": "",
            "met": None,
        },
        {
            "figure": f"{game_id}: SDK bot's decoding per turn, deltas applied",
            "value": round(decode_delta, 2),
            "floor": "whole views decoded",
            "floor_value": round(decode_full, 2),
            "unit": "us",
            "ratio": round(decode_delta / decode_full, 2),
            "goal": "",
            "met": None,
        },
    ]
    for line in rows:
        at(line, *cpu.values())
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one block, fewer games")
    args = parser.parse_args()
    blocks = 1 if args.quick else 4
    rows = []
    for game_id in SEATS:
        wire = turns_of(game_id, range(2 if args.quick else 10))
        cpu = referee_cpu(game_id, blocks, MATCHES[game_id])
        rows += rows_of(game_id, wire, cpu)
    report(rows, RESULTS, blocks=blocks, matches_per_block=MATCHES)


if __name__ == "__main__":
    main()
