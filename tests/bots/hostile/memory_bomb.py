"""Eats memory until something stops it: ``heap`` (a growing list of 16 MiB blocks), ``tmpfs``
(files in /tmp) or ``shm`` (files in /dev/shm). Plays first with ``--after-hello``."""

import os
import sys

from _common import play_on, report

mode = sys.argv[1]
blocks = []
written = 0
try:
    while written < 64 << 30:
        if mode == "heap":
            blocks.append(bytearray(os.urandom(1)) * (16 << 20))
        else:
            folder = "/tmp" if mode == "tmpfs" else "/dev/shm"
            with open(f"{folder}/fill-{os.getpid()}-{written >> 24}", "wb") as f:
                f.write(b"x" * (16 << 20))
        written += 16 << 20
        report("progress", f"{written >> 20} MiB")
except OSError as exc:
    report(mode, f"{os.strerror(exc.errno or 0)} after {written >> 20} MiB")
except MemoryError:
    report(mode, f"MemoryError after {written >> 20} MiB")
play_on()
