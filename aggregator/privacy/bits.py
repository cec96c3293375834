"""Packing of unary (bit-vector) reports: little-endian bit order, ``ceil(d/8)`` bytes per report.

Bit ``v`` of a report lives in byte ``v // 8`` at position ``v % 8`` (value 1 << (v % 8)). The browser uses
the same layout (and base64 of these bytes on the wire).
"""
from __future__ import annotations

import numpy as np

__all__ = ["pack", "unpack", "packed_width", "column_counts"]


def packed_width(domain: int) -> int:
    return (domain + 7) // 8


def pack(bits: np.ndarray) -> np.ndarray:
    """(n, d) array of 0/1 → (n, ceil(d/8)) uint8."""
    return np.packbits(np.asarray(bits, dtype=np.uint8), axis=-1, bitorder="little")


def unpack(packed: np.ndarray, domain: int) -> np.ndarray:
    """(n, ceil(d/8)) uint8 → (n, d) uint8 of 0/1."""
    return np.unpackbits(np.asarray(packed, dtype=np.uint8), axis=-1, count=domain, bitorder="little")


# _BYTE_BITS[b, j] = bit j of byte b.
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.int64)


def column_counts(packed: np.ndarray, domain: int) -> np.ndarray:
    """Number of set bits at each of the ``domain`` positions, summed over all packed reports.

    Never unpacks: per byte column, one ``bincount`` of its 256 possible values, multiplied by the byte→bits
    table (8× fewer element operations than unpacking and summing). Rows are processed in blocks of
    ``_BLOCK_ROWS`` so each block stays in cache while its columns are counted (one global ``bincount`` over
    n·d/8 keys would miss the cache).
    """
    packed = np.asarray(packed)
    if packed.dtype != np.uint8:
        packed = packed.astype(np.uint8)
    if packed.ndim != 2 or packed.shape[1] != packed_width(domain):
        raise ValueError(f"packed unary reports must have shape (n, {packed_width(domain)})")
    width = packed.shape[1]
    hist = np.zeros((width, 256), dtype=np.int64)
    for start in range(0, packed.shape[0], _BLOCK_ROWS):
        block = packed[start:start + _BLOCK_ROWS]
        for j in range(width):
            hist[j] += np.bincount(block[:, j], minlength=256)
    return (hist @ _BYTE_BITS).ravel()[:domain]


_BLOCK_ROWS = 65536
