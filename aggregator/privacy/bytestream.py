"""A random source that reads a stream of bytes with the browser's exact sampling rules.

The browser's randomizer (``static/js/random.mjs``) draws from ``crypto.getRandomValues``; this class draws the same
way from given bytes, so feeding both the same bytes must give the same report. Committed test vectors
(random bytes in → report out) are produced by running the Python client halves on a ``ByteStream``.

Rules (mirrored in JavaScript):
* ``uint32``: the next 4 bytes, little-endian.
* ``random()``: a double in [0, 1) with 53 random bits: (a >>> 5)·2²⁶ + (b >>> 6), divided by 2⁵³, from two uint32s.
  Comparing it with a probability p gives a Bernoulli draw that is exact for p's double value.
* ``integers(low, high)``: uniform on [low, high) for a range r ≤ 2³², by rejection: draw uint32 u until
  u < 2³² − (2³² mod r), return low + (u mod r).
Arrays are filled in C order, one draw after another.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ByteStream", "ByteStreamExhausted"]

_TWO32 = 1 << 32


class ByteStreamExhausted(RuntimeError):
    pass


class ByteStream:
    """A ``numpy.random.Generator`` stand-in offering ``random`` and ``integers`` over a byte stream."""

    def __init__(self, data: bytes):
        self._data = bytes(data)
        self._pos = 0

    @property
    def consumed(self) -> int:
        return self._pos

    def uint32(self) -> int:
        if self._pos + 4 > len(self._data):
            raise ByteStreamExhausted("the byte stream ran out")
        value = int.from_bytes(self._data[self._pos : self._pos + 4], "little")
        self._pos += 4
        return value

    def _double(self) -> float:
        a = self.uint32() >> 5
        b = self.uint32() >> 6
        return (a * 67108864.0 + b) / 9007199254740992.0

    def _int(self, low: int, high: int) -> int:
        r = high - low
        if not 1 <= r <= _TWO32:
            raise ValueError("integers() supports ranges of 1 to 2**32 values")
        limit = _TWO32 - (_TWO32 % r)
        while True:
            u = self.uint32()
            if u < limit:
                return low + (u % r)

    @staticmethod
    def _count(size) -> tuple[int, tuple]:
        if size is None:
            return 1, ()
        # ``size`` is numpy's: an integer or a sequence of integers. mypy sees only isscalar's broad guard (which also
        # admits complex, bytes, memoryview, …); int() of such a scalar raises TypeError, a bad size either way.
        shape = (int(size),) if np.isscalar(size) else tuple(int(s) for s in size)  # type: ignore[arg-type]
        return int(np.prod(shape, dtype=np.int64)), shape

    def random(self, size=None):
        count, shape = self._count(size)
        values = np.array([self._double() for _ in range(count)], dtype=np.float64)
        return float(values[0]) if size is None else values.reshape(shape)

    def integers(self, low, high=None, size=None, dtype=np.int64):
        if high is None:
            low, high = 0, low
        count, shape = self._count(size)
        values = np.array([self._int(int(low), int(high)) for _ in range(count)], dtype=np.int64)
        return int(values[0]) if size is None else values.reshape(shape).astype(dtype)
