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

Hostile input (issue 5): integers must fit int64 (``is_int``; larger ones cannot be in any domain and would overflow
numpy), numbers must be finite float64 (``is_number``; booleans and strings are never numbers). SHE/THE components
(and the Gaussian vectors of ``survey_protocol``) are noisy values on the 2⁻¹⁰ grid of ``privacy.noise``
(SPEC §3, §5b), so ``check_grid_values`` rejects components off the grid or beyond ``grid_noise_bound``: one plus
``TAIL_SCALES`` Laplace scales, which honest discrete-Laplace noise exceeds with probability < 2⁻⁶⁴ per component
(P(|γK| > t) = 2α^(⌊t/γ⌋+1)/(1+α) < 2e^(−t/b), ``noise.discrete_laplace_tail``). Without the bound one report
holding 1e300 would wipe out every estimate of a summing protocol.
"""
from __future__ import annotations

import base64
import binascii
import math

import numpy as np

from .. import bits, noise

__all__ = ["to_wire", "from_wire", "is_int", "is_number", "grid_noise_bound", "check_grid_values", "TAIL_SCALES"]

#: Laplace scales beyond which honest noise lies with probability < 2⁻⁶⁴ (per component; module docstring).
TAIL_SCALES = 65 * math.log(2)
_INT64_MIN, _INT64_END = -(1 << 63), 1 << 63

_UNARY = ("sue", "oue")
_HISTOGRAM = ("she", "the")


def is_int(x) -> bool:
    """A JSON integer (not a boolean) that fits int64."""
    return isinstance(x, int) and not isinstance(x, bool) and _INT64_MIN <= x < _INT64_END


def is_number(x) -> bool:
    """A JSON number (int or float, not a boolean) that is a finite float64 (huge integers overflow it)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(float(x))
    except OverflowError:
        return False


def grid_noise_bound(scale: float) -> float:
    """Largest magnitude accepted for a grid-noised component of a value in [−1, 1]: 1 + ``TAIL_SCALES``·b."""
    return 1.0 + TAIL_SCALES * scale


def check_grid_values(values: np.ndarray, scale: float, what: str) -> np.ndarray:
    """``values`` (float64) if every entry lies within ±``grid_noise_bound(scale)`` and on the 2⁻¹⁰ grid; else
    ``ValueError`` naming ``what``."""
    bound = grid_noise_bound(scale)
    if values.size and not np.all(np.abs(values) <= bound):
        raise ValueError(f"{what} components must lie within ±{bound:.6g} (honest noise never goes further)")
    if values.size and not np.all(np.floor(values / noise.GRID) * noise.GRID == values):
        raise ValueError(f"{what} components must be multiples of 2^-10 (the noise grid)")
    return values


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
        if not all(is_int(v) for v in values):
            raise ValueError(f"a DE report is an integer in [0, {d})")
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
        if not all(is_number(x) for v in values for x in v):
            raise ValueError(f"a {name.upper()} report holds finite numbers only")
        matrix = np.asarray(values, dtype=np.float64).reshape(len(values), d)
        return oracle.validate(check_grid_values(matrix, oracle.laplace_scale, f"{name.upper()} report"))
    if name == "olh":
        if not all(isinstance(v, list) and len(v) == 3 and all(is_int(x) for x in v) for v in values):
            raise ValueError("an OLH report is [a, b, y] with three integers")
        arr = np.asarray(values, dtype=np.int64).reshape(len(values), 3)
        return oracle.validate((arr[:, 0], arr[:, 1], arr[:, 2]))
    raise ValueError(f"no wire format for oracle {name!r}")
