"""Opens files until it is refused, then plays on with what is left."""

import os

from _common import play_on, report

fds = []
try:
    while len(fds) < 1_000_000:
        fds.append(os.open("/dev/null", os.O_RDONLY))
except OSError as exc:
    report("open_files", f"{os.strerror(exc.errno or 0)} after {len(fds)}")
for fd in fds[:64]:  # keep enough free to play
    os.close(fd)
play_on()
