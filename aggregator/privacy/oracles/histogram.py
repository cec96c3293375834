"""Histogram encoding: summation (SHE) and thresholding (THE), SPEC §3.

Client (both): one-hot encode v over d components and add independent Laplace noise of scale 2/ε to every
component (the L1 distance between two one-hot vectors is 2; the seed's extraction prints "Lap(ε/2)", SPEC
corrects it). The noise is the *discrete* Laplace of ``privacy.noise`` on the 2⁻¹⁰ grid (no floating-point
Laplace leaves a browser; one-hot values lie on the grid, so no rounding is needed and ε is exact).
Report: float64 array (n, d) of the noisy vectors, every entry a multiple of 2⁻¹⁰; on the wire a list of d numbers,
checked to be finite, on the grid and within ``wire.grid_noise_bound`` of 0. Components are randomized
independently, so the count estimates are uncorrelated (``count_covariance``'s 0 off the diagonal is exact).

* SHE: the server sums component v over reports: Ê_v = Σ reports[:, v], unbiased, Var = n·Var(noise) (SPEC's
  table gives the continuous 8n/ε²; the discrete noise's variance is smaller by a relative ≈ (γε)²/48 (2·10⁻⁸
  at ε = 1) and is what ``count_variance`` / ``exact_variance`` report). No frequency term.
* THE: the server counts components above the threshold t ∈ [0, 1]. A pure protocol with
  p = P(1 + N > t) and q = P(N > t) for the grid noise N (``noise.discrete_laplace_tail``); the continuous
  formulas p = 1 − ½e^{(ε/2)(t−1)}, q = ½e^{−(ε/2)t} of SPEC §3 are their γ → 0 limit
  (``the_probabilities(..., grid=None)``; relative difference < γε). Estimator and variances are
  ``PureProtocol``'s. ``threshold=None`` (default) takes the variance-optimal t, found numerically on (0.5, 1) as
  Wang et al. show it lies there; seed 000 used t = 0.25 (pass ``threshold=0.25`` to reproduce it).

Server cost: ``aggregate`` folds the reports in blocks of 2¹⁸ components (cache-sized), validating finiteness
with one BLAS matrix–vector product per block instead of a full ``isfinite`` pass; ≈ 0.18 µs (SHE) and
0.35 µs (THE) per report at d = 256, i.e. the cost of reading the 2 KiB report once.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.optimize import minimize_scalar

from .. import browser_arithmetic, noise
from ..describe import Description, Parameter
from ..stats import Counts
from .base import FrequencyOracle, PureProtocol, check_values
from .wire import check_grid_values, check_list, grid_numbers_schema, is_number

__all__ = ["SummationHistogram", "ThresholdingHistogram", "the_probabilities", "optimal_threshold",
           "laplace_fourth_cumulant"]

_PERTURB_CELLS = 1 << 22
# Components per block in ``aggregate`` (2 MiB of float64: the block stays in cache while it is folded).
_FOLD_CELLS = 1 << 18


class _HistogramClient(FrequencyOracle):
    """Client half, validation and wire codec shared by SHE and THE (the report is the same noisy one-hot vector)."""

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

    def _as_matrix(self, reports) -> np.ndarray:
        """Shape and dtype checks of ``validate`` (everything but finiteness): float64 (n, d)."""
        reports = np.asarray(reports)
        if reports.ndim != 2 or reports.shape[1] != self.domain:
            raise ValueError(f"{self.name.upper()} reports must have shape (n, {self.domain})")
        if reports.dtype.kind not in "iuf":
            raise ValueError(f"{self.name.upper()} reports must be numbers, got dtype {reports.dtype}")
        return reports.astype(np.float64, copy=False)

    def validate(self, reports) -> np.ndarray:
        """float64 (n, d) with every component finite (no NaN, no ±∞)."""
        reports = self._as_matrix(reports)
        if not np.all(np.isfinite(reports)):
            raise ValueError(f"{self.name.upper()} reports must be finite (no NaN or infinity)")
        return reports

    def _blocks(self, reports):
        """Consecutive row blocks of about ``_FOLD_CELLS`` components of the (shape-checked) reports:
        ``aggregate`` folds each block while it is in cache, and temporaries stay small."""
        reports = self._as_matrix(reports)
        rows = max(1, _FOLD_CELLS // self.domain)
        for start in range(0, reports.shape[0], rows):
            yield reports[start:start + rows]

    def _check_sums(self, block: np.ndarray, sums: np.ndarray) -> bool:
        """Finiteness check riding on sums of the block's components (by rows or by columns; BLAS, cheaper than
        ``isfinite`` over the block): a NaN or ±∞ component makes its sums NaN or ±∞. Only when a sum is not
        finite is the block checked component by component (raising ``ValueError``); returns False if the
        components are finite and the sum merely overflowed."""
        if np.all(np.isfinite(sums)):
            return True
        self.validate(block)
        return False

    def params(self) -> dict:
        return {**super().params(), "laplace_scale": self.laplace_scale, "grid": noise.GRID}

    # -- browser arithmetic ------------------------------------------------------------------------
    @classmethod
    def realized_epsilon(cls, params: dict) -> float:
        """∞: the browser's grid Laplace is bounded (``browser_arithmetic``'s module docstring; the unmatched mass
        ``grid_laplace_unmatched_mass`` is the δ beside the ideal ε)."""
        return math.inf

    @classmethod
    def max_supported_epsilon(cls, domain: int | None = None) -> float:
        """Grid Laplace of scale 2/ε on the 2^-10 grid: ``browser_arithmetic``'s "laplace" bound."""
        return browser_arithmetic.max_supported_epsilon("laplace")

    def browser_unmatched_mass(self) -> float:
        """``browser_arithmetic.grid_laplace_unmatched_mass`` of this noise (a one-hot shift of 1)."""
        return browser_arithmetic.grid_laplace_unmatched_mass(self.laplace_scale, noise.GRID)

    # -- wire codec --------------------------------------------------------------------------------
    def to_wire(self, reports) -> list:
        return np.asarray(reports, dtype=np.float64).tolist()

    def from_wire(self, values: list) -> np.ndarray:
        check_list(values)
        name, d = self.name.upper(), self.domain
        if not all(isinstance(v, list) and len(v) == d for v in values):
            raise ValueError(f"a {name} report is a list of {d} numbers")
        if not all(is_number(x) for v in values for x in v):
            raise ValueError(f"a {name} report holds finite numbers only")
        matrix = np.asarray(values, dtype=np.float64).reshape(len(values), d)
        return self.validate(check_grid_values(matrix, self.laplace_scale, f"{name} report"))

    def wire_schema(self) -> dict:
        """d numbers on the noise grid within ``wire.grid_noise_bound`` of the Laplace scale 2/ε."""
        return grid_numbers_schema(self.laplace_scale, self.domain)


class SummationHistogram(_HistogramClient):
    name = "she"
    label = "summation with histogram encoding"
    title = "SHE — summation with histogram encoding"
    description = Description(
        "she", "SHE (summation with histogram encoding)",
        "A list of numbers, one per possible value (1 for the answer, 0 for the others), each with Laplace noise "
        "added; the survey sums the lists.", "", "SPEC §3",
        "One disguised answer per person: a list of noisy numbers, summed (SHE)")

    def zero_stats(self) -> Counts:
        return Counts.zero(self.domain, dtype=np.float64)

    def aggregate(self, reports) -> Counts:
        """support[v] = Σ of component v over the reports, accumulated block by block (column sums by BLAS).

        Client reports are multiples of 2⁻¹⁰ far below 2⁴³ in magnitude, so their sums are exact whatever the
        order of additions: folding shards in any order gives identical statistics."""
        n, d = 0, self.domain
        support = np.zeros(d, dtype=np.float64)
        for block in self._blocks(reports):
            with np.errstate(invalid="ignore", over="ignore"):  # non-finite sums are handled just below
                sums = np.ones(block.shape[0]) @ block
            if not self._check_sums(block, sums):
                raise ValueError("SHE report components are too large to sum")
            with np.errstate(over="ignore"):
                support += sums
            n += block.shape[0]
        if not np.all(np.isfinite(support)):
            raise ValueError("SHE report components are too large to sum")
        return Counts(int(n), support)

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

    # -- plausibility (no support sets: the total S is the sum of the components) --------------------
    def report_totals(self, reports) -> np.ndarray:
        return self.validate(reports).sum(axis=1)

    def honest_moments(self) -> tuple[float, float, float]:
        """μ = 1, σ² = d·Var(N), κ₄ = d·κ₄(N) for the grid Laplace noise N (privacy/plausibility.py)."""
        scale = self.laplace_scale
        return 1.0, self.domain * noise.discrete_laplace_variance(scale), self.domain * laplace_fourth_cumulant(scale)

    def estimate_sum(self, mean_total: float) -> float:
        """S̄ itself: Ê_v sums component v."""
        return mean_total


def laplace_fourth_cumulant(scale: float, grid: float = noise.GRID) -> float:
    """κ₄ of the grid Laplace noise γK: γ⁴·2α(1+4α+α²)/(1−α)⁴, α = e^(−γ/b) (γ times the difference of two
    geometric variables, whose cumulants add; privacy/plausibility.py)."""
    alpha = np.exp(-grid / scale)
    return float(grid**4 * 2 * alpha * (1 + 4 * alpha + alpha**2) / (1 - alpha) ** 4)


def the_probabilities(epsilon: float, threshold: float, grid: float | None = noise.GRID) -> tuple[float, float]:
    """THE's (p, q) for threshold t ∈ [0, 1] and noise of scale 2/ε.

    With ``grid`` (default: the grid the client uses) the exact probabilities of the discrete noise; with
    ``grid=None`` SPEC §3's continuous p = 1 − ½e^{(ε/2)(t−1)}, q = ½e^{−(ε/2)t}.
    """
    if grid is None:
        return 1.0 - 0.5 * math.exp(epsilon / 2 * (threshold - 1)), 0.5 * math.exp(-epsilon / 2 * threshold)
    scale = 2.0 / epsilon
    return (noise.discrete_laplace_tail(threshold - 1.0, scale, grid),
            noise.discrete_laplace_tail(threshold, scale, grid))


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
    label = "thresholding with histogram encoding, variance-optimal threshold"
    title = "THE — thresholding with histogram encoding"
    description = Description(
        "the", "THE (thresholding with histogram encoding)",
        "The same noisy list as SHE, but the survey counts a value when its noisy number exceeds a threshold t.",
        "By default t is the one that gives the least variance.", "SPEC §3",
        "One disguised answer per person: a list of noisy numbers, thresholded (THE)")
    same_reports_as = "she"
    parameters = (Parameter("threshold", "THE threshold t",
                            "THE only: threshold t. Empty: the variance-optimal t (the paper used 0.25).", 0.0, 1.0,
                            "the threshold t of THE must lie in [0, 1]"),)

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
        """support[v] = number of reports whose component v exceeds the threshold, block by block."""
        n, d = 0, self.domain
        support = np.zeros(d, dtype=np.int64)
        above, ones = None, np.ones(d)
        for block in self._blocks(reports):
            with np.errstate(invalid="ignore", over="ignore"):
                row_sums = block @ ones
            self._check_sums(block, row_sums)  # an overflowing row sum of finite components is harmless
            m = block.shape[0]
            if above is None:
                above = np.empty(block.shape, dtype=bool)
            np.greater(block, self.threshold, out=above[:m])
            support += np.add.reduce(above[:m].view(np.uint8), axis=0, dtype=np.int32)
            n += m
        return Counts(int(n), support)

    def params(self) -> dict:
        return {**super().params(), "threshold": self.threshold}

    # -- plausibility: a report supports the components above the threshold, independently --------
    supports_pair_check = True

    def support_blocks(self, reports, rows: int):
        for start in range(0, reports.shape[0], rows):
            yield (reports[start:start + rows] > self.threshold).astype(np.uint8)
