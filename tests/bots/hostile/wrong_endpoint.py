"""Connects to an endpoint other than ``ARENA_ENDPOINT`` and says hello there, then waits."""

import os
import time

from _link import Link, report

endpoint = os.environ["ARENA_ENDPOINT"] + ".elsewhere"
link = Link(endpoint)
link.hello(name="lost")
report("endpoint", endpoint)
time.sleep(3600)
