"""LDP Gaussian Naive Bayes (SPEC §5b; seed 000 §2.2.2–2.2.3 and §3.2).

Groups — one report per respondent, so ε is never spent twice. Every respondent is publicly assigned
(``privacy.assignment``, drawn by the browser from the published shares) to exactly one of

* ``PRIOR``  (share ``prior_share``) — the class through a frequency oracle (SPEC §4, "class prior as in §4");
* ``MEAN``   (share (1 − prior_share)·group_split) — class-hiding vectors z with z_c = x̃ at the own class c and 0
  elsewhere (x̃ ∈ [−1, 1], ``schema.Numeric.normalise``, SPEC §5);
* ``SQUARE`` (share (1 − prior_share)·(1 − group_split)) — the same with x̃² ∈ [0, 1].
The group is part of the report (public); only its content is randomized, with the full ε.
Default ``prior_share``: 1/(2m + 1) for Approach 3 (uniform over its 2m + 1 inputs, as §4's uniform assignment),
0.1 for Approaches 1 and 2 (the class report is far less noisy than a vector report, see ``Var`` below).

Multi-dimensional reporting (m attributes, k classes), each ε-LDP. Sensitivity: a class-hiding vector has one non-zero
entry of magnitude ≤ 1 (|x̃| ≤ 1 and x̃² ≤ 1), so two vectors differ by at most 2 in L1 — in both groups (SPEC's 2):

* Approach 1: all m vectors (an m × k array), every component + Lap(2m/ε) (L1 sensitivity 2m);
* Approach 2: Duchi et al.'s one bit over the D = m·k entries V (all in [−1, 1]; x̃² ∈ [0, 1] qualifies): pick j
  uniformly, u ~ Bernoulli((V_j(e^ε−1) + e^ε + 1)/(2e^ε + 2)), send (j, ±1); the server reads V'_j = ±D(e^ε+1)/(e^ε−1)
  and zero elsewhere; E[V'] = V entrywise. P(j, +1 | V) ∈ [1/(D(e^ε+1)), e^ε/(D(e^ε+1))], ratio ≤ e^ε.
* Approach 3: one attribute's vector (attribute drawn uniformly by the browser, public), components + Lap(2/ε).

Laplace noise on a grid (``privacy.noise``): each component is first randomly rounded to the 2⁻¹⁰ grid (unbiased), then
discrete Laplace noise of scale b = Δ/ε on the grid is added. No widening of Δ for the rounding is needed here: 0, ±1
are grid points, so rounding keeps every entry in its interval ([−1, 1], resp. [0, 1]) and zeros stay exactly zero —
every possible rounded input is itself a class-hiding vector, any two of which differ by ≤ Δ in L1, and the discrete
Laplace density ratio for grid inputs at L1 distance ≤ Δ is ≤ exp(Δ/b) = e^ε. The output mixes such densities, so the
mechanism is exactly ε-LDP (tests/engine/test_gaussian_ldp.py evaluates the output pmf).

Variances of one report's component R_ic (true entry z_ic):
* Approaches 1, 3: Var(R_ic | z) = γ²f(1−f) + σ²_N, f the fractional grid position of z (rounding, ≤ γ²/4) and
  σ²_N = ``noise.discrete_laplace_variance(b)`` ≈ 2b²;
* Approach 2: V'_ic = C·s·[j = (i, c)], C = D(e^ε+1)/(e^ε−1): Var(V'_ic | z) = C²/D − z_ic².

Server: per group, additive sums, sums of squares and per-attribute report counts (``MomentSums``). The group is a
uniformly random subset of respondents, so the mean m_ic of the reported z_c estimates P(c)·E[x̃_i | c] without bias:
μ̃_ic = m_ic / P̂(c), s̃_ic = (square-group m_ic) / P̂(c), σ̃²_ic = max(s̃_ic − μ̃²_ic, floor_ic) (below), after clipping
to the normalised ranges (μ̃ ∈ [−1, 1], s̃ ∈ [0, 1]); then μ = ``Numeric.denormalise``(μ̃) and σ = σ̃(u−l)/2.

The variance floor. Under-estimating σ is catastrophic for a Gaussian classifier (a class whose σ is estimated near 0
loses every test point not at its mean), over-estimating it only weakens one attribute. The noisy s̃ − μ̃² is often near
or below 0: on diabetes (n = 100,000, 10 fits each) a fixed floor alone leaves at least one σ̃ at SIGMA_FLOOR in 10/10
fits at ε = 1 for every approach, and in 8, 6, 1 of 10 at ε = 4 for Approaches 1, 2, 3. So the floor adapts to the
estimate's own precision: floor_ic = max(SIGMA_FLOOR², floor_se · SE(σ̃²_ic)), SE(σ̃²) by the delta method
(Var(σ̃²) ≈ [Var(m^sq) + 4μ̃²Var(m) + (2μ̃² − s̃)²Var(P̂)] / P̂², the three estimates from independent groups), and
``floor_se`` = 1 by default: a variance not one standard error above zero is replaced by that standard error. The floor
vanishes as O(1/√n), so the estimate stays consistent. Measured on diabetes (10 splits, n = 100,000, each approach at
ε ∈ {0.5, 1, 2, 4}): floor_se = 0 gives 57–64 % mean accuracy with 7–14 points of spread (the majority rule: 65 %);
floor_se = 1 gives 64–74 %, floor_se = 2 65–75 % (less spread at small ε, 0–3 points lower for Approaches 1 and 2
at ε ≥ 1).

Standard errors of μ (``metadata["mean_standard_errors"]``, original units), delta method for the ratio of the
independent m_ic (mean group) and P̂(c) (prior group): Var(μ̃) ≈ Var(m)/P² + m²·Var(P̂)/P⁴, with Var(m) the empirical
variance of the group's reports over their number (it contains both noise and sampling variance) and
Var(P̂) = (oracle's exact variance at the estimated counts)/n₀² + P̂(1−P̂)/n₀ (perturbation + sampling of the prior
group's n₀ respondents).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from .. import oracles
from ..assignment import assign, cdf, check_probabilities
from ..dependence import apply_floor, independence_statistic
from ..oracles.base import FrequencyOracle, check_values
from ..postprocess import DEFAULT as DEFAULT_POSTPROCESS
from ..postprocess import to_distribution
from ..schema import Categorical, Numeric
from ..stats import Additive, Counts, array
from .approaches import OneBit, VectorApproach, approach_class

__all__ = [
    "LDPGaussianNB", "GaussianReports", "GaussianStats", "MomentSums", "PRIOR", "MEAN", "SQUARE", "SIGMA_FLOOR",
    "PRIOR_FLOOR", "APPROACHES", "GROUP_LABELS",
]

PRIOR, MEAN, SQUARE = 0, 1, 2
#: The vector groups as the plausibility findings name them (``plausibility.findings``' assignment check).
GROUP_LABELS = {MEAN: "numeric answers, mean group: ", SQUARE: "numeric answers, square group: "}
APPROACHES = (1, 2, 3)  # ``approaches.APPROACH_CLASSES``: one class each
#: Smallest standard deviation in normalised units (0.5 % of an attribute's range): a noisy s̃ − μ̃² can be ≤ 0.
SIGMA_FLOOR = 0.01
#: Smallest class probability divided by (guards μ̃ = m / P̂(c) when a class is estimated at 0).
PRIOR_FLOOR = 1e-6


@dataclass(frozen=True, eq=False)
class MomentSums(Additive):
    """One group's additive statistics: Σ of reported class-hiding components (m × k), Σ of their squares, how many
    reports cover each attribute (``counts``, length m) and the number of reports ``n`` in the group. Equality:
    equal counts, sums equal up to floating-point reassociation (folding in another order)."""

    n: int
    sums: np.ndarray = array(np.float64, rtol=1e-12, atol=1e-9)  # (m, k)
    sumsq: np.ndarray = array(np.float64, rtol=1e-12, atol=1e-9)  # (m, k)
    counts: np.ndarray = array(np.int64)  # (m,)

    mismatch: ClassVar[str] = "cannot add moment sums of different shapes"

    @classmethod
    def zero(cls, m: int, k: int) -> "MomentSums":
        return cls(0, np.zeros((m, k)), np.zeros((m, k)), np.zeros(m, dtype=np.int64))

    def means(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean reported component m_ic and its standard error (empirical variance of the reports, ddof 1)."""
        if np.any(self.counts < 2):
            raise ValueError("every attribute needs at least two reports in each of the mean and square groups")
        n = self.counts[:, None].astype(np.float64)
        mean = self.sums / n
        var = np.maximum(self.sumsq / n - mean**2, 0.0) * n / (n - 1)
        return mean, np.sqrt(var / n)

    @classmethod
    def from_dict(cls, data: dict) -> "MomentSums":
        stats = super().from_dict(data)
        if stats.sums.ndim != 2 or stats.sumsq.shape != stats.sums.shape or stats.counts.shape != stats.sums.shape[:1]:
            raise ValueError("moment sums: sums and sumsq must be (m, k) arrays and counts a length-m vector")
        return stats


@dataclass(frozen=True, eq=False)
class GaussianStats(Additive):
    """The prior group's ``Counts`` and the mean and square groups' ``MomentSums``; additive, JSON-able."""

    prior: Counts
    mean: MomentSums
    square: MomentSums

    @property
    def n(self) -> int:
        """Number of respondents folded."""
        return int(self.prior.n + self.mean.n + self.square.n)


@dataclass(frozen=True)
class GaussianReports:
    """Reports of n respondents: ``group`` (public, one of PRIOR/MEAN/SQUARE each), then each group's reports in
    respondent order: ``prior`` the oracle's reports; ``mean`` and ``square`` vector reports by approach —
    1: float (n_g, m, k); 2: tuple (j int (n_g,), sign ±1 int (n_g,)); 3: tuple (attribute int (n_g,), float (n_g, k)).
    """

    group: np.ndarray
    prior: object
    mean: object
    square: object


def _share(value, name: str) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in (0, 1)") from None
    if not (0.0 < value < 1.0):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value}")
    return value


class LDPGaussianNB:
    """Gaussian Naive Bayes from ε-LDP reports (SPEC §5b); ``estimate`` returns a ``NaiveBayesModel``.

    ``prior_oracle``: frequency oracle name for the class reports (``oracles.get``), or the oracle itself (a mixed
    survey's class input, ``protocol.mixed``); ``prior_share``: share of
    respondents in the prior group (default above); ``group_split``: share of the others in the mean group (the rest
    report squares); ``postprocess``: how the class estimates become a distribution (``postprocess.to_distribution``);
    ``floor_se``: the variance floor in standard errors of σ̃² (module docstring). The approach's own mechanism
    (noise, client draws, checks, folding, wire codec) is ``vectors``, a ``continuous.approaches.VectorApproach``.
    """

    def __init__(
        self,
        class_attribute: Categorical,
        attributes: Sequence[Numeric],
        epsilon: float,
        approach: int = 3,
        prior_oracle: str | FrequencyOracle = "oue",
        prior_share: float | None = None,
        group_split: float = 0.5,
        postprocess: str = "norm-sub",
        floor_se: float = 1.0,
    ):
        if not isinstance(class_attribute, Categorical) or class_attribute.size < 2:
            raise ValueError("class_attribute must be categorical with at least two classes")
        attributes = tuple(attributes)
        if not attributes or not all(isinstance(a, Numeric) for a in attributes):
            raise ValueError("attributes must be a non-empty sequence of numeric attributes")
        vectors = approach_class(approach)
        to_distribution(np.ones(2), postprocess)  # validates the method name
        self.class_attribute = class_attribute
        self.attributes = attributes
        self.approach = int(approach)
        self.prior_oracle = (prior_oracle if isinstance(prior_oracle, FrequencyOracle)
                             else oracles.get(prior_oracle, epsilon=epsilon, domain=class_attribute.size))
        if self.prior_oracle.domain != class_attribute.size:
            raise ValueError(f"the prior oracle's domain must be the {class_attribute.size} classes")
        self.epsilon = self.prior_oracle.epsilon
        self.vectors: VectorApproach = vectors(len(attributes), class_attribute.size, self.epsilon)
        self.postprocess = postprocess
        try:
            self.floor_se = float(floor_se)
        except (TypeError, ValueError):
            raise ValueError("floor_se must be a number ≥ 0") from None
        if not (math.isfinite(self.floor_se) and self.floor_se >= 0):
            raise ValueError(f"floor_se must be a finite number ≥ 0, got {floor_se!r}")
        if prior_share is None:
            prior_share = self.vectors.default_prior_share()
        self.prior_share = _share(prior_share, "prior_share")
        self.group_split = _share(group_split, "group_split")
        rest = 1.0 - self.prior_share
        self.shares = check_probabilities(
            (self.prior_share, rest * self.group_split, rest * (1.0 - self.group_split)), 3,
            "shares (prior, mean, square)",
        )

    def __repr__(self) -> str:
        return (f"LDPGaussianNB(approach={self.approach}, epsilon={self.epsilon:g}, m={self.m}, k={self.k}, "
                f"shares={np.round(self.shares, 4).tolist()})")

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
        return self.vectors.sensitivity

    @property
    def laplace_scale(self) -> float:
        """Scale b = Δ/ε of the (grid) Laplace noise on each component: 2m/ε (Approach 1), 2/ε (Approach 3)."""
        return self.vectors.laplace_scale

    @property
    def noise_variance(self) -> float:
        """Variance of the noise on one component (rounding excluded): the discrete Laplace's, ≈ 2b²."""
        return self.vectors.noise_variance

    @property
    def onebit_magnitude(self) -> float:
        """|V'_j| = D(e^ε+1)/(e^ε−1) of Approach 2, D = m·k."""
        return self._onebit().magnitude

    def onebit_probability(self, v) -> np.ndarray:
        """P[u = 1] = (v(e^ε−1) + e^ε + 1)/(2e^ε + 2) for entries v ∈ [−1, 1] (Approach 2)."""
        return self._onebit().probability(v)

    def _onebit(self):
        """Approach 2's formulas (also evaluated, as figures, for the other approaches)."""
        return self.vectors if isinstance(self.vectors, OneBit) else OneBit(self.m, self.k, self.epsilon)

    # -- client half --------------------------------------------------------------------------
    def normalise(self, X) -> np.ndarray:
        """Rows of ``X`` (original units) clipped and mapped to [−1, 1] per attribute (``Numeric.normalise``)."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.m:
            raise ValueError(f"X must have shape (n, {self.m})")
        if not np.all(np.isfinite(X)):
            raise ValueError("X must hold finite numbers")
        return np.column_stack([a.normalise(X[:, i]) for i, a in enumerate(self.attributes)])

    def randomize(self, values, y, rng: np.random.Generator):
        """One group's vector reports: ``values`` (n_g, m) normalised entries in [−1, 1] (x̃ or x̃²), ``y`` classes."""
        z = np.asarray(values, dtype=np.float64)
        y = np.asarray(y, dtype=np.int64)
        if z.ndim != 2 or z.shape[1] != self.m or y.shape != (z.shape[0],):
            raise ValueError(f"values must have shape (n, {self.m}) with one class per row")
        if z.size and (not np.all(np.isfinite(z)) or np.abs(z).max() > 1.0):
            raise ValueError("values must be normalised into [-1, 1]")
        return self.vectors.randomize(z, y, rng)

    def perturb(self, X, y, rng: np.random.Generator) -> GaussianReports:
        """One ε-LDP report per respondent (rows of ``X`` in original units, ``y`` class codes)."""
        xt = self.normalise(X)
        if np.shape(y) != (xt.shape[0],):
            raise ValueError(f"y must hold one class code per row of X ({xt.shape[0]})")
        y = check_values(y, self.k)
        group = assign(xt.shape[0], self.shares, rng)
        prior = self.prior_oracle.perturb(y[group == PRIOR], rng)
        mean = self.randomize(xt[group == MEAN], y[group == MEAN], rng)
        square = self.randomize(xt[group == SQUARE] ** 2, y[group == SQUARE], rng)
        return GaussianReports(group, prior, mean, square)

    # -- server half --------------------------------------------------------------------------
    def validate_vectors(self, reports):
        """Check one group's vector reports (shape, ranges, finiteness); returns them normalised."""
        return self.vectors.validate(reports)

    def fold_vectors(self, reports) -> MomentSums:
        """One group's vector reports → ``MomentSums``."""
        return MomentSums(*self.vectors.fold(reports))

    def vectors_to_wire(self, reports) -> list:
        """One group's vector reports → one JSON value per report (``approaches``' wire format)."""
        return self.vectors.to_wire(reports)

    def vectors_from_wire(self, values: list):
        """JSON values → validated vector reports; ``ValueError`` (or ``TypeError``) on malformed input."""
        return self.vectors.from_wire(values)

    def aggregate(self, reports: GaussianReports) -> GaussianStats:
        return GaussianStats(
            self.prior_oracle.aggregate(reports.prior), self.fold_vectors(reports.mean),
            self.fold_vectors(reports.square),
        )

    def zero_stats(self) -> GaussianStats:
        m, k = self.m, self.k
        return GaussianStats(self.prior_oracle.zero_stats(), MomentSums.zero(m, k), MomentSums.zero(m, k))

    def _check_stats(self, stats: GaussianStats) -> None:
        if not isinstance(stats, GaussianStats):
            raise ValueError("stats must be GaussianStats")
        for part in (stats.mean, stats.square):
            if part.sums.shape != (self.m, self.k):
                raise ValueError(f"stats are for {part.sums.shape} attributes × classes, expected ({self.m}, {self.k})")
        if stats.prior.domain != self.k:
            raise ValueError(f"class statistics have domain {stats.prior.domain}, expected {self.k}")
        if stats.prior.n == 0:
            raise ValueError("no class reports yet")

    def estimate(self, stats: GaussianStats, prior=None, prior_variance=None, gate: bool = True):
        """The Gaussian ``NaiveBayesModel`` (SPEC §5b); standard errors of μ and P̂(c) and the raw (normalised) m_ic in
        ``metadata``. ``prior`` and ``prior_variance`` (both or neither): a P̂(c) estimated from respondents outside
        the mean and square groups, and its variance, used instead of the prior group's (a mixed survey's pooled
        prior, ``protocol.mixed``).

        ``metadata["independence"]``: per attribute the Wald statistic of class independence of the two moments
        (``dependence.independence_statistic`` on m_c against P̂(c), the mean and square groups' sums) and its df.
        With the default post-processing and ``gate``, attributes that fail the test are made class-independent
        (``dependence.apply_floor``)."""
        from ..naive_bayes.model import NaiveBayesModel

        self._check_stats(stats)
        if (prior is None) != (prior_variance is None):
            raise ValueError("give both the prior and its variance, or neither")
        if prior is None:
            prior = to_distribution(self.prior_oracle.estimate(stats.prior), self.postprocess)
            n0 = stats.prior.n
            var_p = self.prior_oracle.exact_variance(n0, prior * n0) / n0**2 + prior * (1 - prior) / n0
        else:
            prior, var_p = np.asarray(prior, dtype=np.float64), np.asarray(prior_variance, dtype=np.float64)
            if prior.shape != (self.k,) or var_p.shape != (self.k,):
                raise ValueError(f"the prior and its variance must have {self.k} entries")
        p = np.maximum(prior, PRIOR_FLOOR)
        mean_m, mean_se = stats.mean.means()
        sq_m, sq_se = stats.square.means()
        mu = np.clip(mean_m / p, -1.0, 1.0)
        s = np.clip(sq_m / p, 0.0, 1.0)
        mu_se = np.sqrt(mean_se**2 / p**2 + mean_m**2 * var_p / p**4)
        var_se = np.sqrt((sq_se**2 + 4 * mu**2 * mean_se**2 + (2 * mu**2 - s) ** 2 * var_p) / p**2)
        floor = np.maximum(SIGMA_FLOOR**2, self.floor_se * var_se)
        sigma = np.sqrt(np.maximum(s - mu**2, floor))
        conditionals, mu_se_units = [], []
        for i, attr in enumerate(self.attributes):
            half_range = (attr.high - attr.low) / 2.0
            conditionals.append(np.vstack([attr.denormalise(mu[i]), sigma[i] * half_range]))
            mu_se_units.append((mu_se[i] * half_range).tolist())
        metadata = {
            "mechanism": f"ldp-gaussian-approach-{self.approach}",
            "epsilon": self.epsilon,
            "reports": stats.n,
            "group_reports": [int(stats.prior.n), int(stats.mean.n), int(stats.square.n)],
            "prior_standard_errors": np.sqrt(var_p).tolist(),
            "mean_standard_errors": mu_se_units,
            "variance_floor": (floor * np.array([((a.high - a.low) / 2.0) ** 2
                                                 for a in self.attributes])[:, None]).tolist(),
            "mean_moments": mean_m.tolist(),
            "mean_moments_se": mean_se.tolist(),
            "square_moments": sq_m.tolist(),
            "square_moments_se": sq_se.tolist(),
        }
        statistics, dfs = [], []
        for i in range(self.m):
            T_mean, df_mean = independence_statistic(mean_m[i][None, :], np.diag(mean_se[i] ** 2), prior,
                                                     prior_cov=np.diag(var_p))
            T_sq, df_sq = independence_statistic(sq_m[i][None, :], np.diag(sq_se[i] ** 2), prior,
                                                 prior_cov=np.diag(var_p))
            statistics.append(T_mean + T_sq)
            dfs.append(df_mean + df_sq)
        metadata["independence"] = {"statistics": statistics, "df": dfs}
        model = NaiveBayesModel(self.class_attribute, self.attributes, prior, conditionals, metadata=metadata)
        if gate and self.postprocess == DEFAULT_POSTPROCESS:
            return apply_floor(model, statistics, dfs)
        return model

    def params(self) -> dict:
        """What the browser needs (published with the survey)."""
        out = {
            "approach": self.approach,
            "epsilon": self.epsilon,
            "shares": self.shares.tolist(),
            "shares_cdf": cdf(self.shares).tolist(),
            "prior_share": self.prior_share,
            "group_split": self.group_split,
            "prior_oracle": self.prior_oracle.params(),
            "attributes": [a.to_dict() for a in self.attributes],
            "classes": self.k,
        }
        out.update(self.vectors.params())
        return out
