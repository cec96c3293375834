"""JSON wire format of frequency-oracle reports (what a browser POSTs), one report per respondent.

| oracle | one report on the wire |
|---|---|
| DE | an integer in [0, d) |
| SUE, OUE | base64 (standard alphabet, padded) of the ``bits.pack`` bytes: ceil(d/8) bytes |
| SHE, THE | a list of d numbers |
| OLH | [a, b, y] integers |

``to_wire`` turns engine reports (arrays, one row per respondent) into a list of JSON values; ``from_wire`` turns
a list of JSON values back into the engine's arrays, raising ``ValueError`` with a readable message; the oracle's
own ``validate`` then checks domains.
"""
from __future__ import annotations

import base64
import binascii

import numpy as np

from .. import bits

__all__ = ["to_wire", "from_wire"]

_UNARY = ("sue", "oue")
_HISTOGRAM = ("she", "the")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def to_wire(oracle, reports) -> list:
    name = oracle.name
    if name == "de":
        return [int(v) for v in np.asarray(reports)]
    if name in _UNARY:
        return [base64.b64encode(bytes(row)).decode("ascii") for row in np.asarray(reports, dtype=np.uint8)]
    if name in _HISTOGRAM:
        return np.asarray(reports, dtype=np.float64).tolist()
    if name == "olh":
        a, b, y = reports
        return [[int(x), int(z), int(w)] for x, z, w in zip(a, b, y)]
    raise ValueError(f"no wire format for oracle {name!r}")


def from_wire(oracle, values: list):
    """Engine reports from wire values (a list, one per respondent); ``ValueError`` on malformed input."""
    name, d = oracle.name, oracle.domain
    if not isinstance(values, list):
        raise ValueError("reports must be a list")
    if name == "de":
        if not all(_is_int(v) for v in values):
            raise ValueError("a DE report is an integer")
        return oracle.validate(np.asarray(values, dtype=np.int64))
    if name in _UNARY:
        width = bits.packed_width(d)
        rows = []
        for v in values:
            if not isinstance(v, str):
                raise ValueError(f"a {name.upper()} report is a base64 string of {width} bytes")
            try:
                raw = base64.b64decode(v, validate=True)
            except (binascii.Error, ValueError):
                raise ValueError(f"a {name.upper()} report must be valid base64") from None
            if len(raw) != width:
                raise ValueError(f"a {name.upper()} report must decode to {width} bytes, got {len(raw)}")
            rows.append(np.frombuffer(raw, dtype=np.uint8))
        packed = np.vstack(rows) if rows else np.empty((0, width), dtype=np.uint8)
        return oracle.validate(packed)
    if name in _HISTOGRAM:
        if not all(isinstance(v, list) and len(v) == d for v in values):
            raise ValueError(f"a {name.upper()} report is a list of {d} numbers")
        if not all((isinstance(x, (int, float)) and not isinstance(x, bool)) for v in values for x in v):
            raise ValueError(f"a {name.upper()} report holds numbers only")
        return oracle.validate(np.asarray(values, dtype=np.float64).reshape(len(values), d))
    if name == "olh":
        if not all(isinstance(v, list) and len(v) == 3 and all(_is_int(x) for x in v) for v in values):
            raise ValueError("an OLH report is [a, b, y] with three integers")
        arr = np.asarray(values, dtype=np.int64).reshape(len(values), 3)
        return oracle.validate((arr[:, 0], arr[:, 1], arr[:, 2]))
    raise ValueError(f"no wire format for oracle {name!r}")
