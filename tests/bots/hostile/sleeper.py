"""Says hello (when run by a referee) and then never answers: the referee must be killed."""

import os
import time

from _common import report

report("sleeping", f"ok pid {os.getpid()}")
if "ARENA_ENDPOINT" in os.environ:
    import zmq

    from protocol import codec, messages

    sock = zmq.Context().socket(zmq.DEALER)
    sock.connect(os.environ["ARENA_ENDPOINT"])
    sock.send(codec.encode(messages.hello(os.environ["ARENA_TOKEN"], "sleeper")))
time.sleep(3600)
