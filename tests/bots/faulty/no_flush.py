"""A stdio bot that writes its hello but never flushes stdout: the line stays in its buffer
(a pipe is block-buffered), so the referee never hears it (``timeout`` before hello)."""

import json
import os
import time

hello = {"v": 1, "type": "hello", "versions": [1], "token": os.environ["ARENA_TOKEN"], "name": "x"}
with open(1, "w", buffering=1 << 16, closefd=False) as out:  # block-buffered, as C on a pipe
    out.write(json.dumps(hello) + "\n")
    time.sleep(60)  # waits for a welcome that never comes; the referee ends it
