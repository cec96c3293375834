"""Histogram encoding: summation (SHE) and thresholding (THE), SPEC §3.

Client (both): one-hot encode v over d components and add independent Laplace noise of scale 2/ε to every
component (the L1 distance between two one-hot vectors is 2; the seed's extraction prints "Lap(ε/2)", SPEC
corrects it). The noise is the *discrete* Laplace of ``privacy.noise`` on the 2⁻¹⁰ grid (no floating-point
Laplace leaves a browser; one-hot values lie on the grid, so no rounding is needed and ε is exact).
Report: float64 array (n, d) of the noisy vectors, every entry a multiple of 2⁻¹⁰.

* SHE: the server sums component v over reports: Ê_v = Σ reports[:, v], unbiased, Var = n·Var(noise) (SPEC's
  table gives the continuous 8n/ε²; the discrete noise's variance is within 0.1 % of it and is what
  ``exact_variance`` reports). No frequency term.
* THE: the server counts components above the threshold t ∈ [0, 1]. A pure protocol with
  p = P(1 + N > t) and q = P(N > t) for the grid noise N (``noise.discrete_laplace_tail``); the continuous
  formulas p = 1 − ½e^{(ε/2)(t−1)}, q = ½e^{−(ε/2)t} of SPEC §3 are their γ → 0 limit
  (``the_probabilities(..., grid=None)``). Estimator and variances are ``PureProtocol``'s. ``threshold=None`` (default) takes the variance-optimal t, found numerically on (0.5, 1)
  as Wang et al. show it lies there; seed 000 used t = 0.25 (pass ``threshold=0.25`` to reproduce it).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.optimize import minimize_scalar

from .. import noise
from ..stats import Counts
from .base import FrequencyOracle, PureProtocol, check_values

__all__ = ["SummationHistogram", "ThresholdingHistogram", "the_probabilities", "optimal_threshold"]

_PERTURB_CELLS = 1 << 22


class _HistogramClient:
    """Client half and validation shared by SHE and THE (the report is the same noisy one-hot vector)."""

    domain: int
    epsilon: float
    name: str

    @property
    def laplace_scale(self) -> float:
        return 2.0 / self.epsilon

    def perturb(self, values, rng: np.random.Generator) -> np.ndarray:
        """Noisy one-hot vectors, float64 (n, d): discrete Laplace noise of scale 2/ε on every component (C order),
        plus 1 at the own value."""
        values = check_values(values, self.domain)
        d, n = self.domain, values.shape[0]
        out = np.empty((n, d), dtype=np.float64)
        rows = max(1, _PERTURB_CELLS // d)
        for start in range(0, n, rows):
            v = values[start:start + rows]
            block = noise.discrete_laplace(rng, self.laplace_scale, (v.shape[0], d))
            block[np.arange(v.shape[0]), v] += 1.0
            out[start:start + v.shape[0]] = block
        return out

    def validate(self, reports) -> np.ndarray:
        reports = np.asarray(reports)
        if reports.ndim != 2 or reports.shape[1] != self.domain:
            raise ValueError(f"{self.name.upper()} reports must have shape (n, {self.domain})")
        if not (np.issubdtype(reports.dtype, np.floating) or np.issubdtype(reports.dtype, np.integer)):
            raise ValueError(f"{self.name.upper()} reports must be numbers, got dtype {reports.dtype}")
        reports = reports.astype(np.float64, copy=False)
        if not np.all(np.isfinite(reports)):
            raise ValueError(f"{self.name.upper()} reports must be finite (no NaN or infinity)")
        return reports

    def params(self) -> dict:
        return {**super().params(), "laplace_scale": self.laplace_scale, "grid": noise.GRID}


class SummationHistogram(_HistogramClient, FrequencyOracle):
    name = "she"

    def zero_stats(self) -> Counts:
        return Counts.zero(self.domain, dtype=np.float64)

    def aggregate(self, reports) -> Counts:
        reports = self.validate(reports)
        return Counts(int(reports.shape[0]), reports.sum(axis=0))

    def estimate(self, stats: Counts) -> np.ndarray:
        """Ê_v = Σ of component v (SPEC §3)."""
        return stats.support.astype(np.float64, copy=True)

    def count_variance(self, n: int) -> float:
        """n·Var(noise) ≈ n·8/ε² (SPEC §3 table; exact for the discrete noise sent)."""
        return n * noise.discrete_laplace_variance(self.laplace_scale)

    def exact_variance(self, n: int, counts) -> np.ndarray:
        """Equal to ``count_variance``: the noise does not depend on the true value."""
        shape = np.shape(counts)
        return np.full(shape, self.count_variance(n), dtype=np.float64)


def the_probabilities(epsilon: float, threshold: float, grid: float | None = noise.GRID) -> tuple[float, float]:
    """THE's (p, q) for threshold t ∈ [0, 1] and noise of scale 2/ε.

    With ``grid`` (default: the grid the client uses) the exact probabilities of the discrete noise; with
    ``grid=None`` SPEC §3's continuous p = 1 − ½e^{(ε/2)(t−1)}, q = ½e^{−(ε/2)t}.
    """
    if grid is None:
        return 1.0 - 0.5 * math.exp(epsilon / 2 * (threshold - 1)), 0.5 * math.exp(-epsilon / 2 * threshold)
    scale = 2.0 / epsilon
    return noise.discrete_laplace_tail(threshold - 1.0, scale, grid), noise.discrete_laplace_tail(threshold, scale, grid)


@lru_cache(maxsize=256)
def optimal_threshold(epsilon: float) -> float:
    """The t ∈ (0.5, 1) minimising THE's variance q(1−q)/(p−q)² (Wang et al. 2017), by bounded Brent search."""

    def variance(t: float) -> float:
        p, q = the_probabilities(epsilon, t, grid=None)
        return q * (1 - q) / (p - q) ** 2

    result = minimize_scalar(variance, bounds=(0.5, 1.0), method="bounded", options={"xatol": 1e-10})
    return float(result.x)


class ThresholdingHistogram(_HistogramClient, PureProtocol):
    name = "the"

    def __init__(self, epsilon: float, domain: int, threshold: float | None = None):
        super().__init__(epsilon, domain)
        if threshold is None:
            threshold = optimal_threshold(self.epsilon)
        try:
            threshold = float(threshold)
        except (TypeError, ValueError):
            raise ValueError("threshold must be a number in [0, 1]") from None
        if not 0.0 <= threshold <= 1.0:
            raise ValueError("threshold must lie in [0, 1] (THE's p, q formulas assume it)")
        self.threshold = threshold
        self._p, self._q = the_probabilities(self.epsilon, threshold)

    @property
    def p(self) -> float:
        return self._p

    @property
    def q(self) -> float:
        return self._q

    def aggregate(self, reports) -> Counts:
        reports = self.validate(reports)
        return Counts(int(reports.shape[0]), np.count_nonzero(reports > self.threshold, axis=0).astype(np.int64))

    def params(self) -> dict:
        return {**super().params(), "threshold": self.threshold}
