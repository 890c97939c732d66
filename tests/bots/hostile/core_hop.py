"""Tries to leave the core its worker runs it on for every core of the machine, where other
matches play (``arena/sandbox/cores.py``), then reports the cores it may run on."""

from __future__ import annotations

import os

from _common import attempt, play_on, report

attempt("widen", lambda: os.sched_setaffinity(0, range(os.cpu_count() or 1)))
report("cores", " ".join(map(str, sorted(os.sched_getaffinity(0)))))
play_on()
