"""Public assignment of respondents to the input they report (SPEC §4 "one report per person", §5b groups).

Which input a respondent reports is public (it is part of the report): only the reported value is randomized.
The assignment is drawn by the client with the survey's published probabilities, by inverse CDF on one uniform.
"""
from __future__ import annotations

import numpy as np

__all__ = ["check_probabilities", "assign", "cdf"]


def check_probabilities(probabilities, size: int | None = None, name: str = "assignment") -> np.ndarray:
    """Validate a probability vector (non-negative, sums to 1, optionally of a given length)."""
    p = np.asarray(probabilities, dtype=np.float64)
    if p.ndim != 1 or p.size == 0 or (size is not None and p.size != size):
        raise ValueError(f"{name} must be a vector of {size if size is not None else 'some'} probabilities")
    if np.any(~np.isfinite(p)) or np.any(p < 0) or not np.isclose(p.sum(), 1.0, atol=1e-9):
        raise ValueError(f"{name} probabilities must be non-negative and sum to 1")
    return p / p.sum()


def cdf(probabilities) -> np.ndarray:
    """The cumulative distribution used by ``assign`` (last entry exactly 1). Protocols publish it so that the
    browser draws with the very same numbers: index = first i with u < cdf[i]."""
    c = np.cumsum(check_probabilities(probabilities))
    c[-1] = 1.0
    return c


def assign(n: int, probabilities, rng: np.random.Generator) -> np.ndarray:
    """``n`` input indices drawn with the given probabilities (inverse CDF of one ``rng.random`` each)."""
    c = cdf(probabilities)
    return np.minimum(np.searchsorted(c, rng.random(n), side="right"), c.size - 1).astype(np.int64)
