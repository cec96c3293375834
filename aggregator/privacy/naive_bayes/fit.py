"""The non-private Naive Bayes fit (SPEC §1): the baseline every private model is compared with."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..schema import Attribute, Categorical, Numeric
from .model import NaiveBayesModel

__all__ = ["fit_nonprivate"]


def _codes_ok(values, size: int) -> bool:
    v = np.asarray(values, dtype=np.float64)
    return bool(np.all(np.isfinite(v)) and np.all(v == np.round(v)) and np.all(v >= 0) and np.all(v < size))


def fit_nonprivate(
    class_attribute: Categorical, attributes: Sequence[Attribute], X, y, alpha: float = 1.0
) -> NaiveBayesModel:
    """Add-``alpha`` (Laplace) smoothed counts for categorical attributes, per-class mean and standard deviation
    (ddof 0, as scikit-learn's GaussianNB) for numeric ones; the prior from class frequencies.

    A class without rows gets μ = 0, σ = 0 (floored by the model) and, with ``alpha = 0``, is rejected by the model
    (its P(a | c) would be 0/0)."""
    attributes = tuple(attributes)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    k = class_attribute.size
    if X.ndim != 2 or X.shape[1] != len(attributes) or X.shape[0] == 0:
        raise ValueError(f"X must be a non-empty (n, {len(attributes)}) array")
    if y.shape != (X.shape[0],):
        raise ValueError("y must hold one class code per row of X")
    if not np.isfinite(alpha) or alpha < 0:
        raise ValueError("alpha must be a finite number ≥ 0")
    if not _codes_ok(y, k):
        raise ValueError(f"y must hold class codes in [0, {k})")
    y = y.astype(np.int64)
    for j, attr in enumerate(attributes):
        if isinstance(attr, Categorical) and not _codes_ok(X[:, j], attr.size):
            raise ValueError(f"X column {j} ({attr.name!r}) must hold codes in [0, {attr.size})")
        if isinstance(attr, Numeric) and not np.all(np.isfinite(X[:, j])):
            raise ValueError(f"X column {j} ({attr.name!r}) must hold finite numbers")
    class_counts = np.bincount(y, minlength=k).astype(np.float64)
    conditionals = []
    for j, attr in enumerate(attributes):
        if isinstance(attr, Categorical):
            codes = X[:, j].astype(np.int64)
            joint = np.bincount(codes * k + y, minlength=attr.size * k).reshape(attr.size, k) + alpha
            conditionals.append(joint / joint.sum(axis=0))
        elif isinstance(attr, Numeric):
            mu = np.array([X[y == c, j].mean() if class_counts[c] else 0.0 for c in range(k)])
            sd = np.array([X[y == c, j].std() if class_counts[c] else 0.0 for c in range(k)])
            conditionals.append(np.vstack([mu, sd]))
        else:
            raise ValueError(f"unsupported attribute {attr!r}")
    return NaiveBayesModel(class_attribute, attributes, class_counts, conditionals,
                           metadata={"mechanism": "nonprivate"})
