"""JSON wire format of frequency-oracle reports (what a browser POSTs), one report per respondent.

| oracle | one report on the wire |
|---|---|
| DE | an integer in [0, d) |
| SUE, OUE | base64 (standard alphabet, padded) of the ``bits.pack`` bytes: ceil(d/8) bytes |
| SHE, THE | a list of d numbers |
| OLH | [a, b, y] integers |

Each oracle owns its codec: ``oracle.to_wire(reports)`` turns engine reports (arrays, one row per respondent) into
a list of JSON values; ``oracle.from_wire(values)`` turns a list of JSON values back into the engine's arrays,
raising ``ValueError`` with a readable message, and then runs the oracle's own ``validate`` (domains). This module
holds the number checks they share and the module-level ``to_wire(oracle, reports)`` / ``from_wire(oracle,
values)``, which delegate to the oracle.

Hostile input (issue 5): integers must fit int64 (``is_int``; larger ones cannot be in any domain and would overflow
numpy), numbers must be finite float64 (``is_number``; booleans and strings are never numbers). SHE/THE components
(and the Gaussian vectors of ``survey_protocol``) are noisy values on the 2⁻¹⁰ grid of ``privacy.noise``
(SPEC §3, §5b), so ``check_grid_values`` rejects components off the grid or beyond ``grid_noise_bound``: one plus
``TAIL_SCALES`` Laplace scales, which honest discrete-Laplace noise exceeds with probability < 2⁻⁶⁴ per component
(P(|γK| > t) = 2α^(⌊t/γ⌋+1)/(1+α) < 2e^(−t/b), ``noise.discrete_laplace_tail``). Without the bound one report
holding 1e300 would wipe out every estimate of a summing protocol.
"""
from __future__ import annotations

import math

import numpy as np

from .. import noise

__all__ = ["to_wire", "from_wire", "check_list", "is_int", "is_number", "grid_noise_bound", "check_grid_values",
           "TAIL_SCALES"]

#: Laplace scales beyond which honest noise lies with probability < 2⁻⁶⁴ (per component; module docstring).
TAIL_SCALES = 65 * math.log(2)
_INT64_MIN, _INT64_END = -(1 << 63), 1 << 63


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
    """``oracle.from_wire(values)``: engine reports from wire values, ``ValueError`` on malformed input."""
    return oracle.from_wire(values)
