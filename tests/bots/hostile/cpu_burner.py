"""Burns CPU: in a background thread while playing, or (launched directly) in the foreground,
in as many processes as its first argument says (one by default)."""

import os
import sys
import threading

from _common import play_on, report


def burn():
    while True:
        pass


report("burn", "ok")
if "ARENA_ENDPOINT" in os.environ:
    threading.Thread(target=burn, daemon=True).start()
    play_on()
else:
    for _ in range(int(sys.argv[1]) - 1 if len(sys.argv) > 1 else 0):
        if os.fork() == 0:
            break
    burn()
