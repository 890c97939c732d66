"""Transport cost: the referee's cost per decision against the raw transports, ZeroMQ and stdio.

For each transport, measured in the same run on the same machine:

* raw: a child process answers the parent: a DEALER to a ROUTER over ``ipc://`` (msgpack
  frames), or JSON lines over its stdin and stdout pipes; once echoing bytes, once decoding a
  real Happy Mochi turn message and encoding an action (what any bot must do);
* referee: full Happy Mochi matches of random Python bots through :func:`play_match` (the
  ``stdio:`` prefix for stdio); per decision we report the round trip the referee records (send
  of ``turn`` to receipt of ``action``) and the whole match's wall time divided by the bot
  decisions (process start in the sandbox, handshake and shutdown included).

    python bench/transport.py [--round-trips N] [--matches N]

Prints a table and saves bench/results/transport.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import zmq
from tabulate import tabulate

from arena.games import load_game
from arena.match.bots import parse_bot
from arena.match.referee import play_match
from arena.match.replay import read
from protocol import codec, messages

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "transport.json"

PEER = Path(__file__).with_name("raw_peer.py")  # echo, codec or msgpack: see its docstring


_PIPE_PEER = """
import sys
from protocol import codec, messages
decode = sys.argv[1] == "codec"
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    if decode:
        msg = codec.decode_line(line)
        line = codec.encode_line(messages.action(msg["seq"], 0))
    out.write(line)
    out.flush()
"""


def sample_turn() -> dict:
    """A real turn message from the middle of a 3-player Happy Mochi game."""
    state = load_game("happy_mochi").new(3, 1)
    for _ in range(10):
        decision = state.pending()[0]
        state.act(decision.seat, 0)
    decision = state.pending()[0]
    events, _ = state.events_since(decision.seat, 0)
    clock = {"move_ms": 1000, "bank_ms": 10000}
    return messages.turn(
        1,
        decision.kind,
        decision.prompt,
        list(decision.options),
        state.view(decision.seat),
        events[-5:],
        clock,
    )


def timed(count: int, round_trip: Callable[[], None]) -> list[float]:
    """``count`` timed round trips (microseconds) after a tenth as many for warm-up."""
    times = []
    for i in range(count + count // 10):
        started = time.perf_counter()
        round_trip()
        if i >= count // 10:
            times.append((time.perf_counter() - started) * 1e6)
    return times


def raw_pipe_round_trips(mode: str, payload: bytes, count: int) -> list[float]:
    peer = subprocess.Popen(
        [sys.executable, "-c", _PIPE_PEER, mode],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert peer.stdin is not None and peer.stdout is not None
    stdin, stdout = peer.stdin, peer.stdout

    def round_trip() -> None:
        stdin.write(payload)
        stdin.flush()
        answer = stdout.readline()
        if mode == "codec":
            codec.decode_line(answer)

    times = timed(count, round_trip)
    stdin.close()
    peer.wait(timeout=10)
    return times


def raw_zmq_round_trips(mode: str, payload: bytes, count: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        ctx = zmq.Context()
        router = ctx.socket(zmq.ROUTER)
        router.setsockopt(zmq.LINGER, 0)
        endpoint = f"ipc://{tmp}/raw.sock"
        router.bind(endpoint)
        peer = subprocess.Popen([sys.executable, str(PEER), endpoint, mode], cwd=ROOT)
        identity, _ = router.recv_multipart()

        def round_trip() -> None:
            router.send_multipart([identity, payload])
            _, answer = router.recv_multipart()
            if mode == "codec":
                codec.decode(answer)

        times = timed(count, round_trip)
        router.send_multipart([identity, b"stop"])
        peer.wait(timeout=10)
        router.close()
        ctx.term()
    return times


def referee_decisions(transport: str, matches: int) -> tuple[list[float], float]:
    game = load_game("happy_mochi")
    bots = [
        parse_bot(f"r{i}={transport}:python sample_bots/python/random_bot.py --seed {i}", ROOT)
        for i in range(3)
    ]
    round_trips, wall_per_decision = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(matches):
            path = Path(tmp) / f"{seed}.json"
            result = play_match(game, bots, seed, replay_path=path)
            records = [d for d in read(path)["decisions"] if d["by"] == "bot"]
            round_trips += [d["ms"] * 1000 for d in records]
            wall_per_decision.append(result.duration_ms * 1000 / len(records))
    return round_trips, statistics.median(wall_per_decision)


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "n": len(ordered),
        "median_us": round(statistics.median(ordered), 1),
        "p99_us": round(ordered[int(len(ordered) * 0.99) - 1], 1),
    }


def measure(transport: str, turn: dict, count: int, matches: int) -> dict[str, dict]:
    """Raw echo, raw with the codec, and the referee, for one transport."""
    if transport == "zmq":
        raw, payload = raw_zmq_round_trips, codec.encode(turn)
    else:
        raw, payload = raw_pipe_round_trips, codec.encode_line(turn)
    echo = summary(raw("echo", payload, count))
    raw_codec = summary(raw("codec", payload, count))
    trips, wall = referee_decisions(transport, matches)
    referee = summary(trips)
    referee["wall_per_decision_us"] = round(wall, 1)
    referee["ratio_to_raw_codec"] = round(referee["median_us"] / raw_codec["median_us"], 2)
    return {"raw_echo": echo, "raw_codec": raw_codec, "referee": referee, "bytes": len(payload)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round-trips", type=int, default=5000)
    parser.add_argument("--matches", type=int, default=5)
    args = parser.parse_args()
    os.chdir(ROOT)
    turn = sample_turn()
    results = {t: measure(t, turn, args.round_trips, args.matches) for t in ("zmq", "stdio")}
    rows = []
    for transport, r in results.items():
        base = r["raw_codec"]["median_us"]
        rows += [
            [f"{transport}: raw echo ({r['bytes']} B)", r["raw_echo"]["median_us"],
             r["raw_echo"]["p99_us"], ""],
            [f"{transport}: raw with codec", base, r["raw_codec"]["p99_us"], "1.00"],
            [f"{transport}: referee round trip", r["referee"]["median_us"],
             r["referee"]["p99_us"], r["referee"]["ratio_to_raw_codec"]],
            [f"{transport}: referee wall / decision", r["referee"]["wall_per_decision_us"], "",
             round(r["referee"]["wall_per_decision_us"] / base, 2)],
        ]  # fmt: skip
    print(tabulate(rows, headers=["what", "median us", "p99 us", "ratio to raw codec"]))
    meta = {
        "python": platform.python_version(),
        "zmq": zmq.zmq_version(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "load_1min": os.getloadavg()[0],
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
