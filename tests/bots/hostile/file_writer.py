"""Writes where it must not: the root, /usr, its own directory, a host file named on the
command line, and one file larger than its file-size limit in /tmp."""

import os
import sys

from _common import attempt, play_on


def write(path, size=10):
    with open(path, "wb") as f:
        f.write(b"x" * size)
    return path


attempt("write_root", lambda: write("/evil"))
attempt("write_usr", lambda: write("/usr/evil"))
attempt("write_own_dir", lambda: write(os.path.join(os.path.dirname(__file__), "evil")))
attempt("write_host_file", lambda: write(sys.argv[1]))
huge = f"/tmp/arena-huge-{os.getpid()}"  # /tmp is the host's at the uid level: tidy up
attempt("huge_tmp_file", lambda: write(huge, 64 << 20))
if os.path.exists(huge):
    os.unlink(huge)
play_on()
