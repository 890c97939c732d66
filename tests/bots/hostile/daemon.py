"""Leaves a daemon behind: double fork + setsid, the grandchild ignores SIGHUP and SIGTERM and
sleeps for an hour; the bot itself then plays on (or exits at once when launched directly)."""

import os
import signal
import time

from _common import play_on, report

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        report("daemon", f"ok pid {os.getpid()}")
        time.sleep(3600)
    os._exit(0)
os.wait()
time.sleep(0.2)  # let the daemon report first
play_on()
