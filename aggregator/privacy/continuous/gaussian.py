"""LDP Gaussian Naive Bayes (SPEC §5b; seed 000 §2.2.2–2.2.3 and §3.2).

Every respondent is publicly assigned (``privacy.assignment``) to one of three groups and sends one ε-LDP report:

* ``PRIOR``  — the class through a frequency oracle (SPEC §4, "class prior as in §4");
* ``MEAN``   — class-hiding vectors z with z_c = x̃ at the own class c and 0 elsewhere (x̃ ∈ [−1, 1], SPEC §5);
* ``SQUARE`` — the same with x̃² ∈ [0, 1].

Multi-dimensional reporting (m attributes, k classes), each ε-LDP. One class-hiding vector changes by at most 2 in L1
between any two inputs (|a| + |b| ≤ 2 in both groups), so:

* Approach 1: all m vectors, every component + Lap(2m/ε) (L1 sensitivity 2m);
* Approach 2: Duchi et al.'s one bit over the D = m·k entries V: pick j uniformly, u ~ Bernoulli((V_j(e^ε−1) + e^ε + 1)
  /(2e^ε + 2)), send (j, ±1); the server reads V'_j = ±D(e^ε+1)/(e^ε−1), zero elsewhere, and E[V'] = V entrywise;
* Approach 3: one attribute's vector (attribute drawn uniformly, public), components + Lap(2/ε).

The Laplace noise is ``privacy.noise.laplace_mechanism``: discrete, on a 2⁻¹⁰ grid, unbiased, exactly ε-LDP.

Server: per group, additive sums, sums of squares and per-attribute report counts (``MomentSums``). The mean of the
reported z_c estimates P(c)·E[x̃ | c] without bias, so μ̃_ic = m_ic / P̂(c), s̃_ic = (square-group m_ic) / P̂(c) and
σ̃²_ic = max(s̃_ic − μ̃²_ic, SIGMA_FLOOR²); μ = l + (μ̃+1)(u−l)/2 and σ = σ̃(u−l)/2 in the attribute's units.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .. import noise, oracles
from ..assignment import assign, check_probabilities
from ..postprocess import to_distribution
from ..schema import Categorical, Numeric
from ..stats import Counts

__all__ = ["LDPGaussianNB", "GaussianReports", "GaussianStats", "MomentSums", "PRIOR", "MEAN", "SQUARE", "SIGMA_FLOOR"]

PRIOR, MEAN, SQUARE = 0, 1, 2
#: Smallest standard deviation in normalised units (0.5 % of an attribute's range): a noisy s̃ − μ̃² can be ≤ 0.
SIGMA_FLOOR = 0.01
#: Smallest class probability divided by (guards μ̃ = m / P̂(c) when a class is estimated at 0).
PRIOR_FLOOR = 1e-6


@dataclass(frozen=True, eq=False)
class MomentSums:
    """Σ of reported class-hiding components, Σ of their squares, how many reports cover each attribute, and the
    number of reports ``n`` in the group."""

    n: int
    sums: np.ndarray  # (m, k)
    sumsq: np.ndarray  # (m, k)
    counts: np.ndarray  # (m,)

    @classmethod
    def zero(cls, m: int, k: int) -> "MomentSums":
        return cls(0, np.zeros((m, k)), np.zeros((m, k)), np.zeros(m, dtype=np.int64))

    def __add__(self, other: "MomentSums") -> "MomentSums":
        if self.sums.shape != other.sums.shape:
            raise ValueError("cannot add moment sums of different shapes")
        return MomentSums(self.n + other.n, self.sums + other.sums, self.sumsq + other.sumsq, self.counts + other.counts)

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, MomentSums)
            and self.n == other.n
            and np.array_equal(self.counts, other.counts)
            and np.allclose(self.sums, other.sums, rtol=1e-12, atol=1e-9)
            and np.allclose(self.sumsq, other.sumsq, rtol=1e-12, atol=1e-9)
        )

    def means(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean reported component m_ic and its standard error (from the empirical variance of the reports)."""
        if np.any(self.counts < 2):
            raise ValueError("every attribute needs at least two reports in each of the mean and square groups")
        n = self.counts[:, None].astype(np.float64)
        mean = self.sums / n
        var = np.maximum(self.sumsq / n - mean**2, 0.0) * n / (n - 1)
        return mean, np.sqrt(var / n)

    def to_dict(self) -> dict:
        return {"n": int(self.n), "sums": self.sums.tolist(), "sumsq": self.sumsq.tolist(), "counts": self.counts.tolist()}

    @classmethod
    def from_dict(cls, data: dict) -> "MomentSums":
        return cls(int(data["n"]), np.asarray(data["sums"], float), np.asarray(data["sumsq"], float), np.asarray(data["counts"], np.int64))


@dataclass(frozen=True, eq=False)
class GaussianStats:
    prior: Counts
    mean: MomentSums
    square: MomentSums

    def __add__(self, other: "GaussianStats") -> "GaussianStats":
        return GaussianStats(self.prior + other.prior, self.mean + other.mean, self.square + other.square)

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, GaussianStats)
            and self.prior == other.prior
            and self.mean == other.mean
            and self.square == other.square
        )

    @property
    def n(self) -> int:
        """Number of respondents folded."""
        return int(self.prior.n + self.mean.n + self.square.n)

    def to_dict(self) -> dict:
        return {"prior": self.prior.to_dict(), "mean": self.mean.to_dict(), "square": self.square.to_dict()}

    @classmethod
    def from_dict(cls, data: dict) -> "GaussianStats":
        return cls(Counts.from_dict(data["prior"]), MomentSums.from_dict(data["mean"]), MomentSums.from_dict(data["square"]))


@dataclass(frozen=True)
class GaussianReports:
    """Reports of n respondents: ``group`` (public), then each group's reports in respondent order.

    Vector reports by approach — 1: float (n_g, m, k); 2: tuple (j int (n_g,), sign ±1 int (n_g,));
    3: tuple (attribute int (n_g,), float (n_g, k)).
    """

    group: np.ndarray
    prior: object
    mean: object
    square: object


class LDPGaussianNB:
    """Gaussian Naive Bayes from ε-LDP reports (SPEC §5b); ``estimate`` returns a ``NaiveBayesModel``."""

    def __init__(
        self,
        class_attribute: Categorical,
        attributes: Sequence[Numeric],
        epsilon: float,
        approach: int = 3,
        prior_oracle: str = "oue",
        shares: Sequence[float] | None = None,
        postprocess: str = "norm-sub",
    ):
        if not isinstance(class_attribute, Categorical):
            raise ValueError("class_attribute must be categorical")
        attributes = tuple(attributes)
        if not attributes or not all(isinstance(a, Numeric) for a in attributes):
            raise ValueError("attributes must be a non-empty sequence of numeric attributes")
        if approach not in (1, 2, 3):
            raise ValueError("approach must be 1, 2 or 3")
        self.class_attribute = class_attribute
        self.attributes = attributes
        self.approach = int(approach)
        self.prior_oracle = oracles.get(prior_oracle, epsilon=epsilon, domain=class_attribute.size)
        self.epsilon = self.prior_oracle.epsilon
        self.postprocess = postprocess
        m = len(attributes)
        if shares is None:
            # Approach 3 spreads respondents uniformly over the 2m + 1 inputs; 1 and 2 report every attribute at once.
            shares = (1.0, m, m) if approach == 3 else (0.1, 0.45, 0.45)
            shares = np.asarray(shares, float) / np.sum(shares)
        self.shares = check_probabilities(shares, 3, "shares (prior, mean, square)")
        if np.any(self.shares == 0):
            raise ValueError("each of the prior, mean and square groups needs a positive share")

    # -- sizes and constants ------------------------------------------------------------------
    @property
    def m(self) -> int:
        return len(self.attributes)

    @property
    def k(self) -> int:
        return self.class_attribute.size

    @property
    def sensitivity(self) -> float:
        """L1 sensitivity of what is noised: 2m (Approach 1, all m vectors) or 2 (Approach 3, one vector)."""
        if self.approach == 2:
            raise ValueError("Approach 2 adds no Laplace noise")
        return 2.0 * self.m if self.approach == 1 else 2.0

    @property
    def laplace_scale(self) -> float:
        """Laplace scale of each component: (Δ + γ)/ε with Δ = 2m (Approach 1) or 2 (Approach 3) and the noise grid γ
        (``privacy.noise``: values are randomly rounded to the grid, which widens the sensitivity by γ)."""
        return noise.noise_scale(self.sensitivity, self.epsilon)

    @property
    def onebit_magnitude(self) -> float:
        """|V'_j| = D(e^ε+1)/(e^ε−1) of Approach 2."""
        e = math.exp(self.epsilon)
        return self.m * self.k * (e + 1) / (e - 1)

    def onebit_probability(self, v) -> np.ndarray:
        """P[u = 1] = (v(e^ε−1) + e^ε + 1)/(2e^ε + 2) for entries v ∈ [−1, 1] (Approach 2)."""
        e = math.exp(self.epsilon)
        return (np.asarray(v, float) * (e - 1) + e + 1) / (2 * e + 2)

    # -- client half --------------------------------------------------------------------------
    def _normalised(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.m:
            raise ValueError(f"X must have shape (n, {self.m})")
        if not np.all(np.isfinite(X)):
            raise ValueError("X must hold finite numbers")
        return np.column_stack([a.normalise(X[:, i]) for i, a in enumerate(self.attributes)]) if self.m else X

    def _vectors(self, z: np.ndarray, y: np.ndarray, rng: np.random.Generator):
        """Randomize the class-hiding vectors of values ``z`` (n_g, m) with classes ``y``."""
        n = z.shape[0]
        if self.approach == 1:
            V = np.zeros((n, self.m, self.k))
            V[np.arange(n), :, y] = z
            return noise.laplace_mechanism(V, self.sensitivity, self.epsilon, rng)
        if self.approach == 2:
            j = rng.integers(0, self.m * self.k, size=n)
            attr, cls = np.divmod(j, self.k)
            v = np.where(cls == y, z[np.arange(n), attr], 0.0)
            u = rng.random(n) < self.onebit_probability(v)
            return j.astype(np.int64), np.where(u, 1, -1).astype(np.int64)
        attr = rng.integers(0, self.m, size=n)
        V = np.zeros((n, self.k))
        V[np.arange(n), y] = z[np.arange(n), attr]
        return attr.astype(np.int64), noise.laplace_mechanism(V, self.sensitivity, self.epsilon, rng)

    def perturb(self, X, y, rng: np.random.Generator) -> GaussianReports:
        """One ε-LDP report per respondent (rows of ``X`` in original units, ``y`` class codes)."""
        xt = self._normalised(X)
        y = np.asarray(y).astype(np.int64)
        if y.shape != (xt.shape[0],) or (y.size and (y.min() < 0 or y.max() >= self.k)):
            raise ValueError(f"y must be {xt.shape[0]} class codes in [0, {self.k})")
        group = assign(xt.shape[0], self.shares, rng)
        prior = self.prior_oracle.perturb(y[group == PRIOR], rng)
        mean = self._vectors(xt[group == MEAN], y[group == MEAN], rng)
        square = self._vectors(xt[group == SQUARE] ** 2, y[group == SQUARE], rng)
        return GaussianReports(group, prior, mean, square)

    # -- server half --------------------------------------------------------------------------
    def validate_vectors(self, reports):
        """Check one group's vector reports (shape, ranges, finiteness); returns them normalised."""
        m, k = self.m, self.k
        if self.approach == 1:
            V = np.asarray(reports, dtype=np.float64)
            if V.ndim != 3 or V.shape[1:] != (m, k) or not np.all(np.isfinite(V)):
                raise ValueError(f"Approach 1 reports must be finite arrays of shape (n, {m}, {k})")
            return V
        first, second = reports
        first = np.asarray(first)
        if first.ndim != 1 or (first.size and not np.issubdtype(first.dtype, np.integer)):
            raise ValueError("report indices must be a 1-d integer array")
        if self.approach == 2:
            sign = np.asarray(second)
            if sign.shape != first.shape or not np.all(np.isin(sign, (-1, 1))):
                raise ValueError("Approach 2 signs must be ±1, one per report")
            if first.size and (first.min() < 0 or first.max() >= m * k):
                raise ValueError(f"Approach 2 entry indices must lie in [0, {m * k})")
            return first.astype(np.int64), sign.astype(np.int64)
        V = np.asarray(second, dtype=np.float64)
        if V.shape != (first.shape[0], k) or not np.all(np.isfinite(V)):
            raise ValueError(f"Approach 3 vectors must be finite arrays of shape (n, {k})")
        if first.size and (first.min() < 0 or first.max() >= m):
            raise ValueError(f"Approach 3 attribute indices must lie in [0, {m})")
        return first.astype(np.int64), V

    def _fold_vectors(self, reports) -> MomentSums:
        m, k = self.m, self.k
        if self.approach == 1:
            V = self.validate_vectors(reports)
            return MomentSums(V.shape[0], V.sum(axis=0), (V**2).sum(axis=0), np.full(m, V.shape[0], dtype=np.int64))
        if self.approach == 2:
            j, sign = self.validate_vectors(reports)
            c = self.onebit_magnitude
            sums = np.bincount(j, weights=sign * c, minlength=m * k).reshape(m, k)
            sumsq = np.bincount(j, minlength=m * k).reshape(m, k) * c**2
            return MomentSums(j.shape[0], sums, sumsq.astype(np.float64), np.full(m, j.shape[0], dtype=np.int64))
        attr, V = self.validate_vectors(reports)
        sums = np.zeros((m, k))
        sumsq = np.zeros((m, k))
        np.add.at(sums, attr, V)
        np.add.at(sumsq, attr, V**2)
        return MomentSums(attr.shape[0], sums, sumsq, np.bincount(attr, minlength=m).astype(np.int64))

    def aggregate(self, reports: GaussianReports) -> GaussianStats:
        return GaussianStats(
            self.prior_oracle.aggregate(reports.prior), self._fold_vectors(reports.mean), self._fold_vectors(reports.square)
        )

    def zero_stats(self) -> GaussianStats:
        return GaussianStats(self.prior_oracle.zero_stats(), MomentSums.zero(self.m, self.k), MomentSums.zero(self.m, self.k))

    def estimate(self, stats: GaussianStats):
        """The Gaussian ``NaiveBayesModel`` (SPEC §5b) with standard errors of μ in ``metadata``."""
        from ..naive_bayes.model import NaiveBayesModel

        if stats.prior.n == 0:
            raise ValueError("no class reports yet")
        prior = to_distribution(self.prior_oracle.estimate(stats.prior), self.postprocess)
        p = np.maximum(prior, PRIOR_FLOOR)
        mean_m, mean_se = stats.mean.means()
        sq_m, _ = stats.square.means()
        mu = np.clip(mean_m / p, -1.0, 1.0)
        s = np.clip(sq_m / p, 0.0, 1.0)
        sigma = np.sqrt(np.maximum(s - mu**2, SIGMA_FLOOR**2))
        # Delta method for μ̃ = m / P̂(c): Var ≈ Var(m)/P² + m²·Var(P̂)/P⁴, Var(P̂) from the oracle's exact variance.
        n0 = stats.prior.n
        var_p = self.prior_oracle.exact_variance(n0, prior * n0) / n0**2
        mu_se = np.sqrt(mean_se**2 / p**2 + mean_m**2 * var_p / p**4)
        conditionals, mu_se_units = [], []
        for i, attr in enumerate(self.attributes):
            half_range = (attr.high - attr.low) / 2.0
            conditionals.append(np.vstack([attr.denormalise(mu[i]), sigma[i] * half_range]))
            mu_se_units.append((mu_se[i] * half_range).tolist())
        metadata = {
            "mechanism": f"ldp-gaussian-approach-{self.approach}",
            "epsilon": self.epsilon,
            "reports": stats.n,
            "prior_standard_errors": np.sqrt(var_p).tolist(),
            "mean_standard_errors": mu_se_units,
        }
        return NaiveBayesModel(self.class_attribute, self.attributes, prior, conditionals, metadata=metadata)

    def params(self) -> dict:
        """What the browser needs (published with the survey)."""
        return {
            "approach": self.approach,
            "epsilon": self.epsilon,
            "shares": self.shares.tolist(),
            "prior_oracle": self.prior_oracle.params(),
            "attributes": [a.to_dict() for a in self.attributes],
            "classes": self.k,
        }
