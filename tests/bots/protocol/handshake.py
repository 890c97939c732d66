"""A bot whose hello is wrong in one way, chosen by argv[1].

version: speaks only protocol 99; token: a wrong token; not_a_map: a msgpack array;
not_msgpack: bytes that are not msgpack. It then waits for the referee's verdict, and plays on
if (wrongly) welcomed.
"""

from __future__ import annotations

import sys

from _raw import Link, play


def main() -> None:
    mode = sys.argv[1]
    link = Link()
    if mode == "version":
        link.hello(versions=[99])
    elif mode == "token":
        link.hello(token="0" * 32)
    elif mode == "not_a_map":
        link.send(["hello", 1, link.token])
    elif mode == "not_msgpack":
        link.send_raw(b"\xc1HELLO " + link.token.encode())
    else:
        raise SystemExit(f"unknown mode {mode}")
    play(link)


if __name__ == "__main__":
    main()
