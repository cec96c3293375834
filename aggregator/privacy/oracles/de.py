"""Direct encoding (DE, k-ary randomized response), SPEC §3.

Client: keep the true value with probability p = e^ε/(e^ε+d−1), otherwise send one of the other d−1 values
uniformly. Report: one integer in [0, d). Server: support count = histogram of reports.
"""
from __future__ import annotations

import math

import numpy as np

from ..stats import Counts
from .base import PureProtocol, check_values

__all__ = ["DirectEncoding"]


class DirectEncoding(PureProtocol):
    name = "de"

    @property
    def p(self) -> float:
        return math.exp(self.epsilon) / (math.exp(self.epsilon) + self.domain - 1)

    @property
    def q(self) -> float:
        return 1.0 / (math.exp(self.epsilon) + self.domain - 1)

    def perturb(self, values, rng: np.random.Generator) -> np.ndarray:
        values = check_values(values, self.domain)
        keep = rng.random(values.shape[0]) < self.p
        # Another value uniformly: draw from d−1 values and skip over the true one.
        other = rng.integers(0, self.domain - 1, size=values.shape[0])
        other = other + (other >= values)
        return np.where(keep, values, other)

    def validate(self, reports) -> np.ndarray:
        reports = np.asarray(reports)
        if reports.ndim != 1:
            raise ValueError("DE reports must be a 1-d array of integers")
        return check_values(reports, self.domain)

    def aggregate(self, reports) -> Counts:
        """Histogram of the reports. Signed-integer arrays take a fast path: one ``max`` pass (so ``bincount``
        never sizes its output from a hostile value) and ``bincount``, which itself rejects negative values;
        anything else goes through ``validate``."""
        reports = np.asarray(reports)
        if reports.ndim == 1 and reports.dtype.kind == "i" and reports.size and reports.max() < self.domain:
            try:
                support = np.bincount(reports, minlength=self.domain)
            except ValueError:  # a negative value: let validate explain
                support = None
            if support is not None:
                return Counts(int(reports.shape[0]), support.astype(np.int64, copy=False))
        reports = self.validate(reports)
        return Counts(int(reports.shape[0]), np.bincount(reports, minlength=self.domain).astype(np.int64))
