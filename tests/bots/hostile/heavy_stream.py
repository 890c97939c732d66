"""Streams valid 1 MiB messages over a second connection while it plays on the first.

Usage: heavy_stream.py [--count N]
Each message is a well-formed action for seq 0 (stale), just under the size limit and slow to
decode. Before charging, the referee decoded them as fast as they came, making the other seats'
answers late and their banks pay for it.
"""

from __future__ import annotations

import argparse
import threading

import msgpack
from _link import Link, heavy, play


def stream(count: int) -> None:
    second = Link()
    packed = msgpack.packb(heavy())
    for _ in range(count):
        second.sock.send(packed)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=10_000)
    args = parser.parse_args()
    link = Link()
    link.hello(name="heavy-stream")
    threading.Thread(target=stream, args=(args.count,), daemon=True).start()
    play(link)


if __name__ == "__main__":
    main()
