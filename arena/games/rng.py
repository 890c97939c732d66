"""The engines' random generator: ``random.Random`` drawing from keyed BLAKE2b in counter mode.

Python's own generator, the Mersenne Twister, is linear: 624 of its outputs rebuild its state,
and a small seed is found by trying them all. A bot that could do either would know every card
still to come. :class:`KeyedRandom` draws its bytes from BLAKE2b keyed by a 256-bit digest of
the seed, over a block counter (a pseudorandom function: without the key, no number of outputs
says anything about the next), so a deal is as hard to guess as its seed.

Engines keep calling ``shuffle``, ``randrange``, ``choice`` and ``sample``: CPython builds them
on ``getrandbits``, ``random`` and ``_randbelow``, which this class defines (``_randbelow`` too,
so a deal does not depend on how a Python release draws below a bound).

Its state is the key and the number of bytes drawn so far; in positions it is the JSON map
``{"key": <64 hex digits>, "drawn": <bytes drawn>}`` (:func:`rng_state`, :func:`rng_from`).
"""

from __future__ import annotations

import hashlib
import random
import re
import secrets
from typing import Any

from arena.games.base import PositionError

BLOCK = 64  # bytes of one BLAKE2b output: one counter value
KEY_BYTES = 32
MAX_DRAWN = 1 << 64  # a game draws a few kilobytes; a position may not say more than this
STATE_TAG = "arena-keyed-1"  # first item of getstate(), so a foreign state is refused
MT_WORDS = 625  # the Mersenne Twister state written by engines before this generator
_HEX_KEY = re.compile(r"[0-9a-f]{64}")


def seed_key(seed: int | str | bytes) -> bytes:
    """The generator's key for ``seed``: a BLAKE2b digest of its typed text, so 5 and "5"
    differ and any integer (negative, or of 128 bits) is accepted."""
    if isinstance(seed, int):
        data = b"int:" + str(seed).encode()
    elif isinstance(seed, str):
        data = b"str:" + seed.encode("utf-8", "surrogatepass")
    elif isinstance(seed, bytes | bytearray):
        data = b"bytes:" + bytes(seed)
    else:
        raise TypeError(f"a seed is an int, str or bytes, not {type(seed).__name__}")
    return hashlib.blake2b(data, digest_size=KEY_BYTES, person=b"arena-rng").digest()


class KeyedRandom(random.Random):
    """``random.Random`` whose bits are BLAKE2b(key, block counter); seeded as usual.

    ``KeyedRandom(seed)`` gives the same stream in every process; ``KeyedRandom()`` a key from
    ``secrets``. Copies, pickles and ``getstate``/``setstate`` carry the key and position.
    """

    _key: bytes
    _index: int  # the block being read
    _pos: int  # bytes of it already drawn
    _current: bytes  # its bytes

    def seed(self, a: Any = None, version: int = 2) -> None:
        key = secrets.token_bytes(KEY_BYTES) if a is None else seed_key(a)
        self._start(key, 0)
        self.gauss_next = None

    def _start(self, key: bytes, drawn: int) -> None:
        self._key = key
        self._index, self._pos = divmod(drawn, BLOCK)
        self._current = self._block(self._index)

    @property
    def drawn(self) -> int:
        """Bytes drawn from the stream so far."""
        return self._index * BLOCK + self._pos

    def _block(self, index: int) -> bytes:
        return hashlib.blake2b(index.to_bytes(8, "little"), key=self._key).digest()

    def _take(self, n: int) -> bytes:
        """The next ``n`` bytes of the stream."""
        pos = self._pos
        end = pos + n
        if end <= BLOCK:
            self._pos = end
            return self._current[pos:end]
        out = [self._current[pos:]]
        need = end - BLOCK
        while True:
            self._index += 1
            self._current = self._block(self._index)
            if need <= BLOCK:
                self._pos = need
                out.append(self._current[:need])
                return b"".join(out)
            out.append(self._current)
            need -= BLOCK

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        size = (k + 7) >> 3
        return int.from_bytes(self._take(size), "little") >> ((size << 3) - k)

    def random(self) -> float:
        return (int.from_bytes(self._take(7), "little") >> 3) * 2.0**-53

    def _randbelow(self, n: int) -> int:
        """A uniform integer in [0, n) by rejection from the top bits of whole bytes
        (``shuffle``, ``randrange``, ``choice`` and ``sample`` all come here); a bound up to
        256, the usual one, reads single bytes of the block in place."""
        k = (n - 1).bit_length()
        if k == 0:
            return 0  # nothing to draw, as getrandbits(0)
        if k > 8:
            size = (k + 7) >> 3
            shift = (size << 3) - k
            while (r := int.from_bytes(self._take(size), "little") >> shift) >= n:
                pass
            return r
        shift = 8 - k
        while True:
            pos = self._pos
            if pos == BLOCK:
                self._index += 1
                self._current = self._block(self._index)
                pos = 0
            self._pos = pos + 1
            r = self._current[pos] >> shift
            if r < n:
                return r

    def __copy__(self) -> KeyedRandom:
        """A twin that goes on from here: every field is immutable, so a shallow copy is
        whole (and much cheaper than the default, which seeds a generator to overwrite it)."""
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> KeyedRandom:
        return self.__copy__()

    def getstate(self) -> tuple[Any, ...]:
        return (STATE_TAG, self._key, self.drawn, self.gauss_next)

    def setstate(self, state: tuple[Any, ...]) -> None:
        if not (isinstance(state, tuple) and len(state) == 4 and state[0] == STATE_TAG):
            raise ValueError("not a KeyedRandom state")
        _, key, drawn, self.gauss_next = state
        self._start(key, drawn)


def rng_state(rng: random.Random) -> dict[str, Any]:
    """A generator's state as JSON: its key (hex) and the bytes it has drawn (engines never
    call ``gauss``, whose cached second value is all it leaves out)."""
    if not isinstance(rng, KeyedRandom):
        raise TypeError(f"engines deal from a KeyedRandom, not a {type(rng).__name__}")
    return {"key": rng._key.hex(), "drawn": rng.drawn}


def rng_from(data: Any, where: str = "rng") -> KeyedRandom:
    """The generator :func:`rng_state` described, checked field by field."""
    if isinstance(data, list) and len(data) == MT_WORDS:
        raise PositionError(
            where,
            "is a Mersenne Twister state (625 integers) from an engine before version 2, whose "
            "deals a bot could compute; this engine shuffles differently and cannot continue "
            'it: give {"key": <64 hex digits>, "drawn": 0} to go on with new shuffles',
        )
    if not isinstance(data, dict) or set(data) != {"key", "drawn"}:
        raise PositionError(where, 'must be {"key": <64 hex digits>, "drawn": <bytes drawn>}')
    key, drawn = data["key"], data["drawn"]
    if not isinstance(key, str) or not _HEX_KEY.fullmatch(key):
        raise PositionError(f"{where}.key", "must be 64 lowercase hex digits (256 bits)")
    if not isinstance(drawn, int) or isinstance(drawn, bool) or not 0 <= drawn < MAX_DRAWN:
        raise PositionError(f"{where}.drawn", f"must be an integer from 0 to {MAX_DRAWN - 1}")
    rng = KeyedRandom()
    rng.setstate((STATE_TAG, bytes.fromhex(key), drawn, None))
    return rng


def derived(rng: random.Random) -> KeyedRandom:
    """A fresh generator seeded from 128 bits of ``rng``: a sampled state's own generator."""
    return KeyedRandom(rng.getrandbits(128))
