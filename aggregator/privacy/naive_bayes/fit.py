"""The non-private Naive Bayes fit (SPEC §1): the baseline every private model is compared with."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..schema import Attribute, Categorical, Numeric
from .model import NaiveBayesModel

__all__ = ["fit_nonprivate"]


def fit_nonprivate(
    class_attribute: Categorical, attributes: Sequence[Attribute], X, y, alpha: float = 1.0
) -> NaiveBayesModel:
    """Add-``alpha`` (Laplace) smoothed counts for categorical attributes, per-class mean and standard deviation
    (ddof 0, as scikit-learn's GaussianNB) for numeric ones; the prior from class frequencies."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    k = class_attribute.size
    if X.ndim != 2 or X.shape[1] != len(attributes) or y.shape != (X.shape[0],) or X.shape[0] == 0:
        raise ValueError("X must be a non-empty (n, m) array with one class code per row")
    if alpha < 0:
        raise ValueError("alpha must be ≥ 0")
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
    return NaiveBayesModel(class_attribute, attributes, class_counts, conditionals, metadata={"mechanism": "nonprivate"})
