"""Forks until the kernel refuses, keeping every child alive, then plays on."""

import errno
import os
import time

from _common import play_on, report

children = 0
while children < 100_000:
    try:
        pid = os.fork()
    except OSError as exc:
        report("fork", f"{errno.errorcode[exc.errno]} after {children}")
        break
    if pid == 0:
        time.sleep(3600)
        os._exit(0)
    children += 1
play_on()
