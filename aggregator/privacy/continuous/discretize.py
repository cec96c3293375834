"""Equal-width discretization (EWD) over a numeric attribute's public bounds (SPEC §5a).

Bin width (u − l)/b; values outside [l, u] fall into the first or last bin. The edges depend on the public bounds
only, never on the data, so the browser and the server bin identically.
"""
from __future__ import annotations

import numpy as np

from ..schema import Categorical, Numeric

__all__ = ["ewd_edges", "ewd_codes", "ewd_attribute"]


def _check_bins(bins: int) -> int:
    bins = int(bins)
    if bins < 2:
        raise ValueError("bins must be at least 2")
    return bins


def ewd_edges(attr: Numeric, bins: int) -> np.ndarray:
    """The b + 1 edges l, l + w, …, u."""
    return np.linspace(attr.low, attr.high, _check_bins(bins) + 1)


def ewd_codes(attr: Numeric, x, bins: int) -> np.ndarray:
    """Bin index of every value: floor((x − l)/w), clipped into [0, b − 1]; the last bin is closed on the right."""
    bins = _check_bins(bins)
    x = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(x)):
        raise ValueError(f"attribute {attr.name!r}: values must be finite numbers")
    width = (attr.high - attr.low) / bins
    return np.clip(np.floor((x - attr.low) / width), 0, bins - 1).astype(np.int64)


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def ewd_attribute(attr: Numeric, bins: int) -> Categorical:
    """The categorical attribute of the bins, labelled "[l, l+w)", …, "[u−w, u]"."""
    edges = ewd_edges(attr, bins)
    labels = [f"[{_fmt(a)}, {_fmt(b)})" for a, b in zip(edges[:-2], edges[1:-1])]
    labels.append(f"[{_fmt(edges[-2])}, {_fmt(edges[-1])}]")
    return Categorical(attr.name, tuple(labels))
