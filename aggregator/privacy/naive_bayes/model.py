"""The Naive Bayes model object: what gets published, downloaded and used to classify (SPEC §1).

A model is fully described by P(c), P(a | c) for every categorical attribute and (μ_ic, σ_ic) for every numeric
one. Prediction: argmax_c log P(c) + Σ_i log P(x_i | c), with the Gaussian log-density from ``scipy.stats.norm``.

Floors (estimates from randomized data can contain zeros): probabilities are floored at ``PROB_FLOOR`` before the
logarithm — without renormalising, so a floored zero stays a tiny penalty rather than shifting the other values —
and standard deviations at ``SIGMA_FLOOR_FRACTION`` of the attribute's public range. The constructor normalises the
prior and every P(a | c) column to sum to 1 (inputs may be unnormalised non-negative weights).
"""
from __future__ import annotations

import json
from typing import Sequence

import numpy as np
from scipy.stats import norm

from ..jsonable import json_safe
from ..schema import Attribute, Categorical, Numeric, attribute_from_dict

__all__ = ["NaiveBayesModel", "PROB_FLOOR", "SIGMA_FLOOR_FRACTION", "FORMAT", "VERSION"]

PROB_FLOOR = 1e-6
SIGMA_FLOOR_FRACTION = 1e-3
NORMALISED_TOLERANCE = 1e-9
FORMAT, VERSION = "coinflip-nb", 1


def _normalised(p: np.ndarray) -> np.ndarray:
    """Divide by the column sums, unless they already equal 1 within ``NORMALISED_TOLERANCE`` (then the values are kept
    bit for bit, so a JSON round trip reproduces the model exactly)."""
    sums = p.sum(axis=0)
    return p if np.all(np.abs(sums - 1.0) <= NORMALISED_TOLERANCE) else p / sums


class NaiveBayesModel:
    """P(c) (``prior``, length k) and one conditional table per attribute (``conditionals``).

    ``conditionals[i]``: for a categorical attribute an (n_i, k) array of P(a | c) whose columns sum to 1; for a
    numeric attribute a (2, k) array [μ_c; σ_c] in the attribute's own units.
    """

    def __init__(
        self,
        class_attribute: Attribute,  # validated below: must be Categorical (``from_dict`` passes any attribute)
        attributes: Sequence[Attribute],
        prior,
        conditionals: Sequence,
        metadata: dict | None = None,
    ):
        if not isinstance(class_attribute, Categorical):
            raise ValueError("the class attribute must be categorical")
        if class_attribute.size < 2:
            raise ValueError("a classifier needs at least two classes")
        self.class_attribute = class_attribute
        self.attributes = tuple(attributes)
        k = class_attribute.size
        prior = np.asarray(prior, dtype=np.float64)
        if prior.shape != (k,) or np.any(~np.isfinite(prior)) or np.any(prior < 0) or prior.sum() <= 0:
            raise ValueError(f"prior must be {k} non-negative finite probabilities")
        self.prior = _normalised(prior)
        if len(conditionals) != len(self.attributes):
            raise ValueError(f"expected {len(self.attributes)} conditional tables, got {len(conditionals)}")
        tables = []
        for attr, table in zip(self.attributes, conditionals, strict=True):
            table = np.asarray(table, dtype=np.float64)
            if isinstance(attr, Categorical):
                if table.shape != (attr.size, k):
                    raise ValueError(f"attribute {attr.name!r}: P(a|c) must have shape ({attr.size}, {k})")
                if np.any(~np.isfinite(table)) or np.any(table < 0):
                    raise ValueError(f"attribute {attr.name!r}: P(a|c) must be non-negative")
                sums = table.sum(axis=0)
                if np.any(sums <= 0):
                    raise ValueError(f"attribute {attr.name!r}: every class needs a distribution over the values")
                table = _normalised(table)
            elif isinstance(attr, Numeric):
                if table.shape != (2, k) or np.any(~np.isfinite(table)) or np.any(table[1] < 0):
                    raise ValueError(f"attribute {attr.name!r}: [μ; σ] must be a finite (2, {k}) array with σ ≥ 0")
            else:
                raise ValueError(f"unsupported attribute {attr!r}")
            tables.append(table)
        self.conditionals = tables
        self.metadata = dict(metadata or {})

    # -- classification ----------------------------------------------------------------------
    @property
    def classes(self) -> tuple[str, ...]:
        return self.class_attribute.values

    def _check_X(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim == 1:
            X = X[None, :]
        m = len(self.attributes)
        if X.ndim != 2 or X.shape[1] != m:
            raise ValueError(f"X must have shape (n, {m}): one column per attribute")
        if not np.all(np.isfinite(X)):
            raise ValueError("X must hold finite numbers")
        for j, attr in enumerate(self.attributes):
            if isinstance(attr, Categorical):
                col = X[:, j]
                if np.any(col != np.round(col)) or np.any(col < 0) or np.any(col >= attr.size):
                    raise ValueError(f"column {j} ({attr.name!r}) must hold codes in [0, {attr.size})")
        return X

    def log_joint(self, X) -> np.ndarray:
        """(n, k) array of log P(c) + Σ_i log P(x_i | c)."""
        X = self._check_X(X)
        out = np.tile(np.log(np.maximum(self.prior, PROB_FLOOR)), (X.shape[0], 1))
        for j, (attr, table) in enumerate(zip(self.attributes, self.conditionals, strict=True)):
            if isinstance(attr, Categorical):
                out += np.log(np.maximum(table, PROB_FLOOR))[X[:, j].astype(np.int64)]
            else:
                sigma = np.maximum(table[1], SIGMA_FLOOR_FRACTION * (attr.high - attr.low))
                out += norm.logpdf(X[:, j, None], loc=table[0][None, :], scale=sigma[None, :])
        return out

    def predict_proba(self, X) -> np.ndarray:
        lj = self.log_joint(X)
        lj -= lj.max(axis=1, keepdims=True)
        p = np.exp(lj)
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, X) -> np.ndarray:
        """Class codes (ties go to the lowest code)."""
        return np.argmax(self.log_joint(X), axis=1)

    def predict_labels(self, X) -> list[str]:
        return [self.classes[c] for c in self.predict(X)]

    def accuracy(self, X, y) -> float:
        y = np.asarray(y)
        return float(np.mean(self.predict(X) == y)) if y.size else float("nan")

    # -- serialisation -----------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "class_attribute": self.class_attribute.to_dict(),
            "attributes": [a.to_dict() for a in self.attributes],
            "prior": self.prior.tolist(),
            "conditionals": [t.tolist() for t in self.conditionals],
            "metadata": json_safe(self.metadata),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "NaiveBayesModel":
        if data.get("format") != FORMAT:
            raise ValueError(f"not a Coinflip Naive Bayes model (format {data.get('format')!r})")
        if data.get("version") != VERSION:
            raise ValueError(f"unsupported model version {data.get('version')!r}; this code reads version {VERSION}")
        return cls(
            attribute_from_dict(data["class_attribute"]),
            [attribute_from_dict(a) for a in data["attributes"]],
            data["prior"],
            data["conditionals"],
            metadata=data.get("metadata") or {},
        )

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> "NaiveBayesModel":
        return cls.from_dict(json.loads(text))

    def __repr__(self) -> str:
        return f"NaiveBayesModel(classes={list(self.classes)}, attributes={[a.name for a in self.attributes]})"
