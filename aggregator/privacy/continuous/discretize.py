"""Equal-width discretization (EWD) over a numeric attribute's public bounds (SPEC §5a; seed 000 §3.2).

b bins of width (u − l)/b with edges e_0 = l, …, e_b = u. Bin t is [e_t, e_{t+1}), the last bin [e_{b−1}, u] closed.
Values below l fall into the first bin and values above u into the last. The edges depend on the public bounds only,
never on the data. The code is t = floor((x − l)/w) with w = (u − l)/b, clipped into [0, b − 1] — the very expression
of the browser (static/js/protocol.mjs ``ewdCode``), so both bin every double identically. (Floating-point division can
put a value within a few ulps of an inner edge into the neighbouring bin; ``ewd_edges`` is for display.)
After binning, the discrete LDP Naive Bayes applies (SPEC §4).
"""
from __future__ import annotations

import numpy as np

from ..schema import Categorical, Numeric

__all__ = ["ewd_edges", "ewd_codes", "ewd_attribute"]


def _check(attr: Numeric, bins) -> int:
    if not isinstance(attr, Numeric):
        raise ValueError("attr must be a numeric attribute")
    try:
        whole = not isinstance(bins, bool) and float(bins).is_integer()
    except (TypeError, ValueError):
        whole = False
    if not whole:
        raise ValueError(f"bins must be a whole number, got {bins!r}")
    bins = int(bins)
    if bins < 2:
        raise ValueError(f"bins must be at least 2, got {bins}")
    return bins


def ewd_edges(attr: Numeric, bins: int) -> np.ndarray:
    """The b + 1 edges l, l + w, …, u (w = (u − l)/b); the last one is exactly u."""
    bins = _check(attr, bins)
    return np.linspace(attr.low, attr.high, bins + 1)


def ewd_codes(attr: Numeric, x, bins: int) -> np.ndarray:
    """Bin index of every value (int64, same shape as ``x``): floor((x − l)/w), clipped into [0, b − 1]."""
    bins = _check(attr, bins)
    x = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(x)):
        raise ValueError(f"attribute {attr.name!r}: values must be finite numbers")
    width = (attr.high - attr.low) / bins
    return np.clip(np.floor((x - attr.low) / width), 0, bins - 1).astype(np.int64)


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def ewd_attribute(attr: Numeric, bins: int) -> Categorical:
    """The categorical attribute of the bins, same name, labelled "[l, l+w)", …, "[u−w, u]"."""
    edges = ewd_edges(attr, bins)
    labels = [f"[{_fmt(a)}, {_fmt(b)})" for a, b in zip(edges[:-2], edges[1:-1], strict=True)]
    labels.append(f"[{_fmt(edges[-2])}, {_fmt(edges[-1])}]")
    if len(set(labels)) != len(labels):  # bins narrower than 6 significant digits: print more digits
        labels = [f"[{a!r}, {b!r})" for a, b in zip(edges[:-2].tolist(), edges[1:-1].tolist(), strict=True)]
        labels.append(f"[{edges[-2].item()!r}, {edges[-1].item()!r}]")
    return Categorical(attr.name, tuple(labels))
