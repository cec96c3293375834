"""Plain JSON values from engine results (numpy arrays and scalars, tuples, non-finite floats)."""
from __future__ import annotations

import math

import numpy as np

__all__ = ["json_safe"]


def json_safe(value):
    """numpy arrays/scalars → Python lists/numbers, tuples → lists, ±∞ → "Infinity"/"-Infinity", NaN → None."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def format_epsilon(value, spec: str = ".3g") -> str:
    """A stored or computed ε for people: "∞" for +∞ (``json_safe`` stores it as "Infinity"), else ``format(spec)``."""
    number = float(value)  # float("Infinity") is inf
    return "∞" if math.isinf(number) and number > 0 else format(number, spec)
