"""Warner's related-question randomized response, for comparison with MRR (SPEC §2, seed 004 §6.1).

The second question is the negation of the first: with probability θ the respondent answers truthfully, else
she answers the negated question. P*(A) = θ·P(A) + (1−θ)·(1−P(A)) ⇒ P̂(A) = (P*(A) − (1−θ))/(2θ − 1),
undefined at θ = 0.5 (``ValueError``).

Multi-attribute form. Seed 004 only cites it (its ref. [3], Du & Zhan's related-question MRR); we implement
that scheme: all attributes are binary and form one group; per respondent one r = ``rng.random``; if r < θ the
record is sent as is, else every attribute of the record is negated. For an event E = (A_i = a ∧ C = c) let
Ē = (A_i = 1−a ∧ C = 1−c) (the negated record satisfies E iff the true one satisfies Ē). Then
    P*(E) = θP(E) + (1−θ)P(Ē),   P*(Ē) = θP(Ē) + (1−θ)P(E)   ⇒   P̂(E) = (θP*(E) − (1−θ)P*(Ē)) / (2θ − 1),
whose standard error is that of a linear form in the observed fractions (E and Ē are disjoint):
Var = (θ²P*(E) + (1−θ)²P*(Ē) − (θP*(E) − (1−θ)P*(Ē))²) / (n(2θ−1)²).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .channel import check_theta
from .mrr import MRREstimate, MRRStats, check_codes, conditional_distributions
from .postprocess import to_distribution
from .schema import Categorical

__all__ = ["warner_perturb", "warner_estimate", "WarnerScheme"]


def _check_warner_theta(theta) -> float:
    theta = check_theta(theta)
    if theta == 0.5:
        raise ValueError("theta = 0.5 makes Warner's model inestimable (2θ − 1 = 0)")
    return theta


def warner_perturb(X, theta, rng: np.random.Generator) -> np.ndarray:
    """Binary codes ``X`` ((n,) or (n, m)): each record kept with probability θ, else all its bits negated."""
    theta = check_theta(theta)
    X = np.asarray(X)
    one_d = X.ndim == 1
    X2 = X.reshape(-1, 1) if one_d else X
    if X2.ndim != 2:
        raise ValueError("X must be an (n,) or (n, m) array of binary codes")
    X2 = check_codes(X2, [2] * X2.shape[1])
    keep = rng.random(X2.shape[0]) < theta
    R = np.where(keep[:, None], X2, 1 - X2)
    return R[:, 0] if one_d else R


def warner_estimate(count, n: int, theta) -> tuple[np.ndarray, np.ndarray]:
    """P̂(A) = (P* − (1−θ))/(2θ − 1) and SE = √(P*(1−P*)/n)/|2θ − 1|, P* = count/n (SPEC §2)."""
    theta = _check_warner_theta(theta)
    if n <= 0:
        raise ValueError("n must be > 0")
    p_star = np.asarray(count, dtype=np.float64) / n
    est = (p_star - (1 - theta)) / (2 * theta - 1)
    se = np.sqrt(p_star * (1 - p_star) / n) / abs(2 * theta - 1)
    return est, se


class WarnerScheme:
    """Du & Zhan's related-question MRR over binary ``attributes`` (one group), with NB estimation (see module)."""

    def __init__(self, attributes: Sequence[Categorical], class_index: int, theta):
        attributes = tuple(attributes)
        if not attributes or not all(isinstance(a, Categorical) and a.size == 2 for a in attributes):
            raise ValueError(
                "attributes must be binary Categorical attributes (the related-question model negates answers)"
            )
        if not 0 <= int(class_index) < len(attributes):
            raise ValueError(f"class_index must be an attribute index in [0, {len(attributes)})")
        self.attributes = attributes
        self.class_index = int(class_index)
        self.theta = check_theta(theta)
        self.feature_indices = tuple(i for i in range(len(attributes)) if i != self.class_index)

    def perturb(self, X, rng: np.random.Generator) -> np.ndarray:
        return warner_perturb(check_codes(X, [2] * len(self.attributes)), self.theta, rng)

    def aggregate(self, R) -> MRRStats:
        R = check_codes(R, [2] * len(self.attributes), name="reports")
        c = R[:, self.class_index]
        joint = tuple(
            np.bincount(R[:, i] * 2 + c, minlength=4).reshape(2, 2).astype(np.int64) for i in self.feature_indices
        )
        return MRRStats(int(R.shape[0]), np.bincount(c, minlength=2).astype(np.int64), joint)

    def estimate(self, stats: MRRStats, postprocess: str = "norm-sub") -> MRREstimate:
        theta = _check_warner_theta(self.theta)
        if stats.n <= 0:
            raise ValueError("stats hold no reports (n = 0)")
        if stats.class_counts.shape != (2,) or len(stats.joint) != len(self.feature_indices):
            raise ValueError("stats do not match this scheme's attributes")
        n = stats.n
        prior_raw, prior_se = warner_estimate(stats.class_counts, n, theta)
        joint_raw, joint_se, conditionals = [], [], []
        for counts in stats.joint:
            p = counts / n
            p_neg = p[::-1, ::-1]  # P*(Ē): Ē = (1−a, 1−c)
            lin = theta * p - (1 - theta) * p_neg
            raw = lin / (2 * theta - 1)
            var = (theta**2 * p + (1 - theta) ** 2 * p_neg - lin**2) / (n * (2 * theta - 1) ** 2)
            joint_raw.append(raw)
            joint_se.append(np.sqrt(np.maximum(var, 0.0)))
            conditionals.append(conditional_distributions(raw * n, postprocess))
        return MRREstimate(
            n=n,
            class_attribute=self.attributes[self.class_index],
            attributes=tuple(self.attributes[i] for i in self.feature_indices),
            prior=to_distribution(prior_raw * n, postprocess),
            conditionals=tuple(conditionals),
            prior_raw=prior_raw,
            prior_se=prior_se,
            joint_raw=tuple(joint_raw),
            joint_se=tuple(joint_se),
        )
