"""Balanced incomplete designs: the tables a ladder plays when every combination is too many.

A design is a stream of tables drawn one at a time, each from the bots that have played the
fewest tables so far, so at every point of the stream the bots' table counts differ by at most
one. Among those bots a table is grown greedily: it opens with the pair that has met least,
and each next seat goes to the bot that has met the seated ones least (summed), ties broken by
a seeded draw. Pair counts therefore stay close to even (the tests state the bound); a
perfectly even design (a BIBD) exists only for some sizes, and finding one is not attempted.

Everything is a function of the sorted names and a salt: the draw comes from
``random.Random`` seeded with an integer (reproducible across processes and Python versions),
and numpy only adds and compares integer counts. A table costs one pass of numpy over the
bots' pair counts (O(bots^2) at most, for its opening pair), so a design costs time
proportional to its length, never to the number of combinations.
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Iterator, Sequence
from itertools import islice

import numpy as np

Table = tuple[str, ...]


@functools.lru_cache(maxsize=8)
def first_tables(field: tuple[str, ...], size: int, count: int, salt: str) -> tuple[Table, ...]:
    """The design's first ``count`` tables, kept: every read of a ladder (its table, a page of
    the server) builds its schedule again, and a long design is the costly part of that."""
    return tuple(islice(design(field, size, salt), count))


def design(pool: Sequence[str], size: int, salt: str) -> Iterator[Table]:
    """An endless balanced stream of tables of ``size`` bots from ``pool``, each sorted."""
    names = sorted(pool)
    n = len(names)
    rng = random.Random(int.from_bytes(hashlib.sha256(salt.encode()).digest()[:8], "big"))
    played = np.zeros(n, np.int64)
    met = np.eye(n, dtype=np.int64) << 40  # a bot "has met itself" too often to sit twice
    while True:
        tie = np.array([rng.random() for _ in range(n)])  # in [0, 1): below any count's step
        seats = _grow(played, met, size, tie)
        played[seats] += 1
        met[np.ix_(seats, seats)] += 1
        met[seats, seats] -= 1
        yield tuple(names[i] for i in sorted(seats))


def _grow(played: np.ndarray, met: np.ndarray, size: int, tie: np.ndarray) -> list[int]:
    """One table's seats (indices): the bots that have played least first, then by pairs."""
    low = played.min()
    seats = [int(i) for i in np.flatnonzero(played == low)]
    if len(seats) >= size:
        pool, seats = played == low, []
    else:
        pool = played == low + 1
    if not seats and size > 1:
        idx = np.flatnonzero(pool)
        sub = met[np.ix_(idx, idx)] + (tie[idx][:, None] + tie[idx][None, :]) / 2
        first, second = divmod(int(np.argmin(sub)), len(idx))
        seats = [int(idx[first]), int(idx[second])]
    free = pool.copy()
    free[seats] = False
    while len(seats) < size:
        score = met[seats].sum(axis=0) + tie
        pick = int(np.argmin(np.where(free, score, np.inf)))
        seats.append(pick)
        free[pick] = False
    return seats
