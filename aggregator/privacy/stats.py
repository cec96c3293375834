"""Additive sufficient statistics.

A frequency oracle's server half folds reports into ``Counts``: the number of reports ``n`` and one
support total per domain value. Statistics of disjoint shards add with ``+`` (``fold(A) + fold(B) ==
fold(A ∪ B)``), so several workers can fold in parallel and retraining costs O(parameters).
They serialize to plain JSON-able dicts for storage.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Counts"]


@dataclass(frozen=True, eq=False)
class Counts:
    """``n`` reports and ``support[v]`` = Σ over reports of the report's support for value ``v``.

    ``support`` is integer for protocols that count (DE, SUE, OUE, THE, OLH) and float for SHE,
    which sums noisy components.
    """

    n: int
    support: np.ndarray

    @classmethod
    def zero(cls, domain: int, dtype=np.int64) -> "Counts":
        return cls(0, np.zeros(domain, dtype=dtype))

    @property
    def domain(self) -> int:
        return int(self.support.shape[0])

    def __add__(self, other: "Counts") -> "Counts":
        if not isinstance(other, Counts):
            return NotImplemented
        if other.support.shape != self.support.shape:
            raise ValueError(f"cannot add statistics over domains {self.domain} and {other.domain}")
        return Counts(self.n + other.n, self.support + other.support)

    def __radd__(self, other):  # lets sum([...]) start from 0
        if other == 0:
            return self
        return NotImplemented

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, Counts)
            and self.n == other.n
            and self.support.shape == other.support.shape
            and bool(np.array_equal(self.support, other.support))
        )

    def to_dict(self) -> dict:
        return {"n": int(self.n), "support": self.support.tolist(), "dtype": self.support.dtype.kind}

    @classmethod
    def from_dict(cls, data: dict) -> "Counts":
        dtype = np.float64 if data.get("dtype") == "f" else np.int64
        return cls(int(data["n"]), np.asarray(data["support"], dtype=dtype))
