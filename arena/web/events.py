"""The organiser's log of ``arena serve``: one line on stderr for each submission, refusal,
gate result and match, so whoever runs a competition sees it live without opening a page.

Lines go through the ``arena.serve`` logger; ``arena serve`` sends them to stderr with the
time (UTC). They carry names, versions, statuses and the referee's and gate's first words,
never a token, an archive's content or a bot's stderr; what came from an author (a build's
first error line, a path) is cut to one line of printable text, so an author cannot write
lines of their own into the organiser's log.
"""

from __future__ import annotations

import logging
import sys
import time

from arena.sandbox import clean_output

LOG = logging.getLogger("arena.serve")
LINE_CHARS = 300  # of one line: a long reason is cut


def note(message: str) -> None:
    """One line of the organiser's log."""
    line = " ".join(clean_output(message).split())
    LOG.info(line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 3] + "...")


def to_stderr() -> None:
    """Print the organiser's log on stderr, each line with its time (UTC)."""
    handler = logging.StreamHandler(sys.stderr)
    formatter = logging.Formatter("%(asctime)s arena: %(message)s", "%Y-%m-%dT%H:%M:%SZ")
    formatter.converter = time.gmtime
    handler.setFormatter(formatter)
    LOG.addHandler(handler)
    LOG.setLevel(logging.INFO)
    LOG.propagate = False
