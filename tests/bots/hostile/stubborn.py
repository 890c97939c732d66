"""Ignores SIGTERM and SIGINT, then plays and keeps running after the match for an hour."""

import signal
import time

from _common import play_on, report

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
report("ignore_sigterm", "ok")
play_on()
time.sleep(3600)
