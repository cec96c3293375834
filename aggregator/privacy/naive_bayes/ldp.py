"""Naive Bayes from LDP reports, discrete attributes (SPEC §4; seed 000 §3.1).

Inputs: input 0 is the class (domain k); input i + 1 is feature i jointly encoded with the class,
v_i = a·k + c over domain k·n_i, which keeps the feature–class relation.

Strategies:
* ``"one-report"`` (seed 000's "Approach 3", the default): every respondent is publicly assigned one of the m + 1
  inputs (``assignment`` probabilities, uniform by default) and reports only it with the full ε.
* ``"split"`` (comparison only): every respondent reports all m + 1 inputs with ε/(m + 1) each (sequential
  composition).

Estimation: P̂(c) = Ê_c / Σ Ê and P̂(a | c) = Ê_{a,c} / Σ_h Ê_{h,c}, each joint distribution first made a
distribution by ``postprocess.to_distribution`` (Norm-Sub by default; "neg-to-one" is the seed's rule).

Pooled class prior (beyond the seed, SPEC §4): every feature input also estimates P(c) as Σ_a Ê_{a,c} / N_i. The
estimates are combined per class by inverse-variance weighting. The weights use the oracles' *approximate* variances
(``count_variance``, which do not depend on the data), so the pooled estimate stays unbiased; the variance of a sum
Σ_a Ê_{a,c} is taken as the sum of the variances (exact for SUE/OUE/SHE/THE, whose supports of different values are
independent given the truth; an upper bound for DE, whose counts are negatively correlated; an approximation for OLH).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .. import oracles
from ..assignment import assign, check_probabilities
from ..postprocess import to_distribution
from ..schema import Categorical
from ..stats import Counts
from .model import NaiveBayesModel

__all__ = ["LDPNaiveBayes", "LDPNBReports", "LDPNBStats", "STRATEGIES"]

STRATEGIES = ("one-report", "split")


@dataclass(frozen=True)
class LDPNBReports:
    """Reports of n respondents: ``per_input[j]`` holds input j's oracle reports (in respondent order);
    ``assigned`` is the public input of each respondent (one-report) or ``None`` (split: everyone reports every input)."""

    n: int
    per_input: tuple
    assigned: np.ndarray | None


@dataclass(frozen=True, eq=False)
class LDPNBStats:
    """One ``Counts`` per input; additive."""

    per_input: tuple

    def __add__(self, other: "LDPNBStats") -> "LDPNBStats":
        if len(self.per_input) != len(other.per_input):
            raise ValueError("cannot add statistics of different input counts")
        return LDPNBStats(tuple(a + b for a, b in zip(self.per_input, other.per_input)))

    def __radd__(self, other):
        return self if other == 0 else NotImplemented

    def __eq__(self, other) -> bool:
        return isinstance(other, LDPNBStats) and len(self.per_input) == len(other.per_input) and all(
            a == b for a, b in zip(self.per_input, other.per_input)
        )

    def to_dict(self) -> dict:
        return {"per_input": [c.to_dict() for c in self.per_input]}

    @classmethod
    def from_dict(cls, data: dict) -> "LDPNBStats":
        return cls(tuple(Counts.from_dict(c) for c in data["per_input"]))


class LDPNaiveBayes:
    """LDP Naive Bayes over categorical attributes (SPEC §4); ``estimate`` returns a ``NaiveBayesModel``."""

    def __init__(
        self,
        class_attribute: Categorical,
        attributes: Sequence[Categorical],
        epsilon: float,
        oracle: str = "oue",
        strategy: str = "one-report",
        assignment: Sequence[float] | None = None,
        postprocess: str = "norm-sub",
        pooled_prior: bool = True,
        **oracle_params,
    ):
        if not isinstance(class_attribute, Categorical):
            raise ValueError("class_attribute must be categorical")
        if class_attribute.size < 2:
            raise ValueError("a classifier needs at least two classes")
        attributes = tuple(attributes)
        if not attributes or not all(isinstance(a, Categorical) for a in attributes):
            raise ValueError("attributes must be a non-empty sequence of categorical attributes")
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}")
        self.class_attribute = class_attribute
        self.attributes = attributes
        self.strategy = strategy
        self.epsilon = float(epsilon)
        if not np.isfinite(self.epsilon) or self.epsilon <= 0:
            raise ValueError("epsilon must be a finite number > 0")
        inputs = 1 + len(attributes)
        per_input_epsilon = self.epsilon if strategy == "one-report" else self.epsilon / inputs
        k = class_attribute.size
        self.domains = (k,) + tuple(a.size * k for a in attributes)
        self.oracles = tuple(oracles.get(oracle, epsilon=per_input_epsilon, domain=d, **oracle_params) for d in self.domains)
        if assignment is None:
            assignment = np.full(inputs, 1.0 / inputs)
        self.assignment = check_probabilities(assignment, inputs, "assignment")
        to_distribution(np.ones(2), postprocess)  # validates the method name
        self.postprocess = postprocess
        self.pooled_prior = bool(pooled_prior)

    @property
    def k(self) -> int:
        return self.class_attribute.size

    @property
    def epsilon_per_respondent(self) -> float:
        """ε of everything one respondent sends: ε in both strategies (split: (m+1)·ε/(m+1))."""
        return self.epsilon

    @property
    def reports_per_respondent(self) -> int:
        return 1 if self.strategy == "one-report" else len(self.oracles)

    def input_values(self, j: int, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The value respondents report for input j: the class (j = 0) or a·k + c (SPEC §4 joint encoding)."""
        return y if j == 0 else X[:, j - 1] * self.k + y

    # -- client half ---------------------------------------------------------------------------
    def _check(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        X = np.asarray(X)
        y = np.asarray(y)
        m = len(self.attributes)
        if X.ndim != 2 or X.shape[1] != m or y.shape != (X.shape[0],):
            raise ValueError(f"X must be (n, {m}) codes and y n class codes")
        X = X.astype(np.int64)
        y = y.astype(np.int64)
        for i, a in enumerate(self.attributes):
            if X.shape[0] and (X[:, i].min() < 0 or X[:, i].max() >= a.size):
                raise ValueError(f"column {i} ({a.name!r}) must hold codes in [0, {a.size})")
        if y.size and (y.min() < 0 or y.max() >= self.k):
            raise ValueError(f"class codes must lie in [0, {self.k})")
        return X, y

    def perturb(self, X, y, rng: np.random.Generator) -> LDPNBReports:
        """Reports of the respondents with feature codes ``X`` (n, m) and classes ``y``.

        Randomness order: (one-report) the assignment — one ``rng.random(n)`` — then each input's oracle on its
        respondents, in input order.
        """
        X, y = self._check(X, y)
        n = X.shape[0]
        if self.strategy == "one-report":
            assigned = assign(n, self.assignment, rng)
            per_input = tuple(
                fo.perturb(self.input_values(j, X[assigned == j], y[assigned == j]), rng) for j, fo in enumerate(self.oracles)
            )
            return LDPNBReports(n, per_input, assigned)
        per_input = tuple(fo.perturb(self.input_values(j, X, y), rng) for j, fo in enumerate(self.oracles))
        return LDPNBReports(n, per_input, None)

    def perturb_one(self, x_row, y_value, rng: np.random.Generator):
        """One respondent (one-report strategy): ``(input index, that oracle's report row)``."""
        if self.strategy != "one-report":
            raise ValueError("perturb_one applies to the one-report strategy")
        reports = self.perturb(np.asarray(x_row)[None, :], [y_value], rng)
        j = int(reports.assigned[0])
        row = reports.per_input[j]
        return j, (tuple(part[0] for part in row) if isinstance(row, tuple) else row[0])

    # -- server half ---------------------------------------------------------------------------
    def zero_stats(self) -> LDPNBStats:
        return LDPNBStats(tuple(fo.zero_stats() for fo in self.oracles))

    def aggregate(self, reports: LDPNBReports) -> LDPNBStats:
        if len(reports.per_input) != len(self.oracles):
            raise ValueError(f"expected reports for {len(self.oracles)} inputs")
        return LDPNBStats(tuple(fo.aggregate(r) for fo, r in zip(self.oracles, reports.per_input)))

    def _prior(self, stats: LDPNBStats):
        """Raw P̂(c), its standard error and the sources used (SPEC §4, pooled by inverse variance)."""
        k = self.k
        estimates, approx_var, exact_var = [], [], []
        for j, (fo, counts) in enumerate(zip(self.oracles, stats.per_input)):
            n_j = counts.n
            if n_j == 0 or (j > 0 and not self.pooled_prior):
                continue
            est = fo.estimate(counts)
            plug = np.clip(est, 0, n_j)
            if j == 0:
                p, v_apx, v_ex = est / n_j, np.full(k, fo.count_variance(n_j)), fo.exact_variance(n_j, plug)
            else:
                n_i = self.attributes[j - 1].size
                p = est.reshape(n_i, k).sum(axis=0) / n_j
                v_apx = np.full(k, n_i * fo.count_variance(n_j))
                v_ex = fo.exact_variance(n_j, plug).reshape(n_i, k).sum(axis=0)
            estimates.append(p)
            approx_var.append(v_apx / n_j**2)
            exact_var.append(v_ex / n_j**2)
        if not estimates:
            raise ValueError("no reports of the class yet")
        w = 1.0 / np.asarray(approx_var)
        w /= w.sum(axis=0)
        prior_raw = (w * np.asarray(estimates)).sum(axis=0)
        prior_se = np.sqrt((w**2 * np.asarray(exact_var)).sum(axis=0))
        return prior_raw, prior_se

    def estimate(self, stats: LDPNBStats) -> NaiveBayesModel:
        """The NB model with raw estimates and standard errors in ``metadata`` (SPEC §4)."""
        if len(stats.per_input) != len(self.oracles):
            raise ValueError("stats do not match this protocol's inputs")
        k = self.k
        prior_raw, prior_se = self._prior(stats)
        prior = to_distribution(prior_raw, self.postprocess)
        conditionals, cond_se, joint_raw = [], [], []
        for i, attr in enumerate(self.attributes):
            fo, counts = self.oracles[i + 1], stats.per_input[i + 1]
            if counts.n == 0:
                raise ValueError(f"no reports for attribute {attr.name!r} yet")
            est = fo.estimate(counts)
            joint = to_distribution(est, self.postprocess).reshape(attr.size, k)
            col = joint.sum(axis=0)
            # A class whose whole column was projected away gets a uniform conditional (no information).
            cond = np.where(col > 0, joint / np.where(col > 0, col, 1.0), 1.0 / attr.size)
            # Delta method, denominator held fixed: SE(P̂(a|c)) ≈ SE(Ê_{a,c}) / Σ_h Ê_{h,c}.
            se_counts = np.sqrt(fo.exact_variance(counts.n, np.clip(est, 0, counts.n))).reshape(attr.size, k)
            denom = np.maximum(col * counts.n, 1.0)
            conditionals.append(cond)
            cond_se.append(se_counts / denom)
            joint_raw.append((est / counts.n).reshape(attr.size, k))
        metadata = {
            "mechanism": "ldp-naive-bayes",
            "epsilon": self.epsilon_per_respondent,
            "strategy": self.strategy,
            "oracles": [fo.name for fo in self.oracles],
            "reports": int(sum(c.n for c in stats.per_input)) // self.reports_per_respondent,
            "prior_raw": prior_raw,
            "prior_standard_errors": prior_se,
            "joint_raw": joint_raw,
            "conditional_standard_errors": cond_se,
        }
        return NaiveBayesModel(self.class_attribute, self.attributes, prior, conditionals, metadata=metadata)

    def params(self) -> dict:
        """What the browser needs."""
        return {
            "strategy": self.strategy,
            "epsilon": self.epsilon,
            "assignment": self.assignment.tolist(),
            "inputs": [fo.params() for fo in self.oracles],
            "classes": self.k,
        }
