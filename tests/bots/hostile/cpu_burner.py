"""Burns CPU: in a background thread while playing, or (launched directly) in the foreground."""

import os
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
    burn()
