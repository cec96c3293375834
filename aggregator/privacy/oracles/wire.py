"""JSON wire format of frequency-oracle reports (what a browser POSTs), one report per respondent.

| oracle | one report on the wire |
|---|---|
| DE | an integer in [0, d) |
| SUE, OUE | base64 (standard alphabet, padded) of the ``bits.pack`` bytes: ceil(d/8) bytes |
| SHE, THE | a list of d numbers |
| OLH | [a, b, y] integers |
| SS | as SUE/OUE, with exactly ω bits set (``from_wire`` checks the count; the schema's pattern cannot) |

Each oracle owns its codec: ``oracle.to_wire(reports)`` turns engine reports (arrays, one row per respondent) into
a list of JSON values; ``oracle.from_wire(values)`` turns a list of JSON values back into the engine's arrays,
raising ``ValueError`` with a readable message, and then runs the oracle's own ``validate`` (domains). This module
holds the number checks they share and the module-level ``to_wire(oracle, reports)`` / ``from_wire(oracle,
values)``, which delegate to the oracle.

Hostile input: integers must fit int64 (``is_int``; larger ones cannot be in any domain and would overflow
numpy), numbers must be finite float64 (``is_number``; booleans and strings are never numbers). SHE/THE components
(and the Gaussian vectors of ``privacy.protocol``) are noisy values on the 2⁻¹⁰ grid of ``privacy.noise``
(SPEC §3, §5b), so ``check_grid_values`` rejects components off the grid or beyond ``grid_noise_bound``: one plus
``TAIL_SCALES`` Laplace scales, which honest discrete-Laplace noise exceeds with probability < 2⁻⁶⁴ per component
(P(|γK| > t) = 2α^(⌊t/γ⌋+1)/(1+α) < 2e^(−t/b), ``noise.discrete_laplace_tail``). Without the bound one report
holding 1e300 would wipe out every estimate of a summing protocol.

JSON Schema: each oracle's ``wire_schema()`` is the JSON Schema (2020-12) of one wire value, built from
the helpers below with the same bounds as its ``from_wire`` checks, so that a value the schema admits is one
``from_wire`` accepts and the other way round (``integer_schema``, ``grid_numbers_schema``, ``tuple_schema``,
``base64_schema``; the survey protocols compose them, ``protocol.schemas``). The base class's default, any JSON
value, is for an oracle that declares no schema: ``from_wire`` alone then judges.
"""
from __future__ import annotations

import math

import numpy as np

from .. import noise

__all__ = ["to_wire", "from_wire", "check_list", "is_int", "is_number", "grid_noise_bound", "check_grid_values",
           "TAIL_SCALES", "integer_schema", "grid_numbers_schema", "tuple_schema", "base64_schema", "INT64_MAX"]

#: Laplace scales beyond which honest noise lies with probability < 2⁻⁶⁴ (per component; module docstring).
TAIL_SCALES = 65 * math.log(2)
_INT64_MIN, _INT64_END = -(1 << 63), 1 << 63
INT64_MAX = _INT64_END - 1
_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


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


def check_list(values) -> list:
    """``values`` if it is a list (one wire value per respondent), else ``ValueError``."""
    if not isinstance(values, list):
        raise ValueError("reports must be a list")
    return values


def to_wire(oracle, reports) -> list:
    """``oracle.to_wire(reports)`` (kept for existing callers)."""
    return oracle.to_wire(reports)


def from_wire(oracle, values: list):
    """``oracle.from_wire(values)``: engine reports from wire values, ``ValueError`` on malformed input (no values:
    ``oracle.no_reports()``)."""
    if isinstance(values, list) and not values:
        return oracle.no_reports()
    return oracle.from_wire(values)


# -- JSON Schema of wire values (module docstring) ---------------------------------------------------------------

def integer_schema(low: int = _INT64_MIN, high: int = INT64_MAX) -> dict:
    """A JSON integer in [low, high] (``is_int``: within int64)."""
    return {"type": "integer", "minimum": int(low), "maximum": int(high)}


def grid_numbers_schema(scale: float, count: int) -> dict:
    """A list of ``count`` numbers on the 2⁻¹⁰ grid within ±``grid_noise_bound(scale)`` (``check_grid_values``)."""
    bound = grid_noise_bound(scale)
    number = {"type": "number", "multipleOf": noise.GRID, "minimum": -bound, "maximum": bound}
    return {"type": "array", "items": number, "minItems": int(count), "maxItems": int(count)}


def tuple_schema(items: list) -> dict:
    """A list of exactly ``len(items)`` values, the i-th admitted by ``items[i]``."""
    return {"type": "array", "prefixItems": list(items), "items": False, "minItems": len(items)}


def base64_pattern(width: int, zero_bits: int = 0) -> str:
    """Regular expression of the canonical base64 (standard alphabet, padded) of ``width`` bytes whose last byte has
    its ``zero_bits`` most significant bits zero (``bits.pack``'s padding beyond the domain), and whose filler bits
    (beyond the data, before "=") are zero."""
    data_bits = 8 * width
    zero = set(range(data_bits - 8, data_bits - 8 + zero_bits))  # MSB first: the last byte's high bits
    chars = -(-data_bits // 6)
    zero |= set(range(data_bits, 6 * chars))
    parts: list[str] = []
    free = 0
    for j in range(chars):
        masks = [1 << (5 - (s - 6 * j)) for s in range(6 * j, 6 * j + 6) if s in zero]
        if not masks:
            free += 1
            continue
        if free:
            parts.append(f"[A-Za-z0-9+/]{{{free}}}" if free > 1 else "[A-Za-z0-9+/]")
            free = 0
        allowed = "".join(c for v, c in enumerate(_BASE64) if not any(v & m for m in masks))
        parts.append(allowed if len(allowed) == 1 else f"[{allowed}]")
    if free:
        parts.append(f"[A-Za-z0-9+/]{{{free}}}" if free > 1 else "[A-Za-z0-9+/]")
    parts.append("=" * (-chars % 4))
    return "^" + "".join(parts) + "$"


def base64_schema(width: int, zero_bits: int = 0) -> dict:
    """A base64 string of ``width`` bytes (``base64_pattern``)."""
    return {"type": "string", "contentEncoding": "base64", "pattern": base64_pattern(width, zero_bits),
            "minLength": 4 * -(-width // 3), "maxLength": 4 * -(-width // 3)}
