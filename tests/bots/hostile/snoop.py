"""Reads what it must not: a file of another bot (argv[1]), the referee's environment (and any
``*SECRET*`` variable of it in its own), the shadow password file, the processes it can see, and
another bot's socket (argv[2]; ``other-seat``: the next seat's, named like its own)."""

import os
import socket
import sys

from _common import attempt, play_on


def read(path):
    with open(path, "rb") as f:
        return f.read(200)


def connect(path):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(path)
        return "connected"


attempt("other_bot_file", lambda: read(sys.argv[1]))
attempt("referee_environ", lambda: read(f"/proc/{os.getppid()}/environ"))
attempt("init_environ", lambda: read("/proc/1/environ"))
attempt("shadow", lambda: read("/etc/shadow"))
attempt("visible_pids", lambda: len([p for p in os.listdir("/proc") if p.isdigit()]))
attempt("secret_env", lambda: sorted(k for k in os.environ if "SECRET" in k))
victim = sys.argv[2] if len(sys.argv) > 2 else ""
if victim == "other-seat":
    own, seat = os.environ["ARENA_ENDPOINT"][len("ipc://") :], os.environ["ARENA_SEAT"]
    victim = own.replace(f"seat{seat}", f"seat{1 - int(seat)}")
if victim:
    attempt("other_socket", lambda: connect(victim))
play_on()
