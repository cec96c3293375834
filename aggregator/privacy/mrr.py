"""Unrelated-question multi-variant randomized response (MRR) and Naive Bayes from it (SPEC §2, seed 004 §3).

Every attribute A_i (the class C included) is paired with a personal attribute Y_i of known distribution P_Y,i.
Attributes form groups; per respondent and group the browser draws r uniform in [0, 1): if r < θ_g it sends
the group's true answers, else the group's personal answers (``MRRScheme.perturb``).

Server: ``aggregate`` folds reports into ``MRRStats`` (n, class counts, and for every feature attribute the
(n_i, k) counts #(A_i = a ∧ C = c)); ``estimate`` solves P*(E) = θ·P(E) + (1−θ)·P_Y(E) for E = (C = c) and
E = (A_i = a ∧ C = c) — with the four-term formula when A_i and C are in different groups — and forms the NB
parameters. ``randomized_accuracy`` estimates a classifier's accuracy from randomized test records (seed 004 §3.4).

Client randomness, in this order (the browser mirrors it): one ``rng.random(n)`` per group (group order), then,
in simulated-personal mode, one ``rng.random(n)`` per attribute (attribute order) turned into a personal answer by
inverse CDF of P_Y (``assignment.assign``). Personal answers are drawn for every attribute whether used or not.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, ClassVar, Sequence

import numpy as np

from .assignment import assign, cdf, check_probabilities
from .channel import check_theta
from .dependence import independence_statistic, null_joint
from .postprocess import DEFAULT, to_distribution
from .schema import Categorical
from .shrinkage import CENTRES, posterior_conditionals
from .stats import Additive, array, arrays

__all__ = [
    "MRRScheme", "MRRStats", "MRREstimate", "randomized_accuracy", "linear_fraction_se", "conditional_distributions",
    "conditional_standard_error_bound",
]

PERSONAL_MODES = ("simulated", "real")


def check_codes(X, sizes: Sequence[int], name: str = "X") -> np.ndarray:
    """An (n, m) int64 array whose column j holds codes in [0, sizes[j]), else ``ValueError``."""
    X = np.asarray(X)
    m = len(sizes)
    if X.ndim != 2 or X.shape[1] != m:
        raise ValueError(f"{name} must be an (n, {m}) array of integer codes, got shape {X.shape}")
    if X.size and not np.issubdtype(X.dtype, np.integer):
        if not np.all(np.isfinite(X)) or not np.all(np.mod(X, 1) == 0):
            raise ValueError(f"{name} must hold integer codes")
    X = X.astype(np.int64, copy=False)
    if X.shape[0]:
        bad = (X.min(axis=0) < 0) | (X.max(axis=0) >= np.asarray(sizes))
        if np.any(bad):
            j = int(np.nonzero(bad)[0][0])
            raise ValueError(f"{name}[:, {j}] must hold codes in [0, {sizes[j]})")
    return X


def linear_fraction_se(n: int, p_ac, p_a, p_c, alpha, beta, scale) -> np.ndarray:
    """SE of scale·(X_ac − α·X_a − β·X_c) + const, the X's being fractions of the same n reports (SPEC §2).

    Each report contributes f = 1[a∧c] − α·1[a] − β·1[c]; since 1[a∧c]·1[a] = 1[a∧c] etc.,
    E f² = p_ac(1 − 2α − 2β + 2αβ) + α²p_a + β²p_c and Var = scale²·(E f² − (E f)²)/n, exact for i.i.d.
    respondents and evaluated with the observed fractions plugged in. α = β = 0 gives P*(1−P*)/(nθ²).
    """
    p_ac, p_a, p_c = (np.asarray(x, dtype=np.float64) for x in (p_ac, p_a, p_c))
    ef = p_ac - alpha * p_a - beta * p_c
    ef2 = p_ac * (1 - 2 * alpha - 2 * beta + 2 * alpha * beta) + alpha**2 * p_a + beta**2 * p_c
    var = np.maximum(ef2 - ef**2, 0.0) / max(n, 1)
    return np.abs(scale) * np.sqrt(var)


def conditional_distributions(joint_counts: np.ndarray, method: str) -> np.ndarray:
    """P(a|c) from an (n_i, k) table of estimated counts of (a ∧ c): each column through ``to_distribution``.

    Counts, not fractions: "neg-to-one" (seed 000) raises counts below 1 to 1 — on fractions it would flatten
    every column; Norm-Sub is scale-free.
    """
    return np.column_stack([to_distribution(joint_counts[:, c], method) for c in range(joint_counts.shape[1])])


@dataclass(frozen=True, eq=False)
class MRRStats(Additive):
    """Additive statistics of MRR reports: ``n``, ``class_counts[c]`` = #(C = c), and ``joint[j][a, c]`` =
    #(A_j = a ∧ C = c) for the j-th feature attribute (attributes in scheme order, class skipped)."""

    n: int
    class_counts: np.ndarray = array(np.int64)
    joint: tuple = arrays(np.int64)

    mismatch: ClassVar[str] = "cannot add MRR statistics of different schemes"

    @classmethod
    def from_dict(cls, data: dict) -> "MRRStats":
        """Each joint table reshaped to (n_j, k), k = the number of classes."""
        stats = super().from_dict(data)
        k = stats.class_counts.shape[0]
        return replace(stats, joint=tuple(j.reshape(-1, k) for j in stats.joint))


@dataclass(frozen=True, eq=False)
class MRREstimate:
    """NB parameters estimated from MRR reports (SPEC §2).

    ``prior`` (k,) and ``conditionals[j]`` (n_j, k), columns summing to 1, are post-processed (``to_distribution``
    applied to the estimated counts n·P̂);
    ``prior_raw``/``joint_raw[j]`` are the unbiased raw estimates of P(c) and P(a ∧ c); ``prior_se`` and
    ``joint_se[j]`` their standard errors. Feature attributes are in scheme order, class skipped.
    """

    n: int
    class_attribute: Categorical
    attributes: tuple
    prior: np.ndarray
    conditionals: tuple
    prior_raw: np.ndarray
    prior_se: np.ndarray
    joint_raw: tuple
    joint_se: tuple

    def to_model(self):
        """The ``NaiveBayesModel`` with these parameters (SPEC §1)."""
        from .naive_bayes.model import NaiveBayesModel

        return NaiveBayesModel(self.class_attribute, list(self.attributes), self.prior, list(self.conditionals))


class MRRScheme:
    """MRR over ``attributes`` (``Categorical``, the class at ``class_index`` included), SPEC §2.

    ``theta``: one θ for every group or one per group, each in [0, 1] (estimation needs θ > 0).
    ``groups``: a partition of attribute indices (default: one group holding everything).
    ``personal``: declared P_Y per attribute (default uniform). ``personal_mode``: "simulated" (the browser draws
    the personal answers from P_Y) or "real" (respondents answer real unrelated questions; ``perturb`` takes their
    answers, or simulates them from P_Y when none are given).
    """

    def __init__(
        self,
        attributes: Sequence[Categorical],
        class_index: int,
        theta,
        groups: Sequence[Sequence[int]] | None = None,
        personal: Sequence | None = None,
        personal_mode: str = "simulated",
    ):
        attributes = tuple(attributes)
        if not attributes or not all(isinstance(a, Categorical) for a in attributes):
            raise ValueError("attributes must be a non-empty sequence of Categorical attributes")
        m = len(attributes)
        if isinstance(class_index, bool) or not isinstance(class_index, (int, np.integer)) or not 0 <= class_index < m:
            raise ValueError(f"class_index must be an attribute index in [0, {m})")
        if groups is None:
            groups = [list(range(m))]
        groups = [tuple(int(i) for i in g) for g in groups]
        flat = sorted(i for g in groups for i in g)
        if flat != list(range(m)) or any(len(g) == 0 for g in groups):
            raise ValueError(f"groups must partition the attribute indices 0..{m - 1} into non-empty groups")
        if np.ndim(theta) == 0:
            thetas = [check_theta(theta)] * len(groups)
        else:
            thetas = list(theta)
            if len(thetas) != len(groups):
                raise ValueError(f"theta must be one number or one per group ({len(groups)})")
            thetas = [check_theta(t, name=f"theta[{g}]") for g, t in enumerate(thetas)]
        if personal is None:
            personal = [np.full(a.size, 1.0 / a.size) for a in attributes]
        if len(personal) != m:
            raise ValueError(f"personal must hold one distribution per attribute ({m})")
        personal = tuple(
            check_probabilities(p, size=a.size, name=f"personal[{i}] ({a.name})")
            for i, (a, p) in enumerate(zip(attributes, personal, strict=True))
        )
        if personal_mode not in PERSONAL_MODES:
            raise ValueError(f"personal_mode must be one of {PERSONAL_MODES}, got {personal_mode!r}")
        self.attributes = attributes
        self.class_index = int(class_index)
        self.groups = tuple(groups)
        self.thetas = tuple(thetas)
        self.personal = personal
        self.personal_mode = personal_mode
        self.group_of = tuple(next(g for g, grp in enumerate(groups) if i in grp) for i in range(m))

    # -- helpers -------------------------------------------------------------------------------
    @property
    def sizes(self) -> tuple:
        return tuple(a.size for a in self.attributes)

    @property
    def class_attribute(self) -> Categorical:
        return self.attributes[self.class_index]

    @property
    def feature_indices(self) -> tuple:
        return tuple(i for i in range(len(self.attributes)) if i != self.class_index)

    def theta_of(self, i: int) -> float:
        """θ of the group holding attribute ``i``."""
        return self.thetas[self.group_of[i]]

    def __repr__(self) -> str:
        return (f"MRRScheme(m={len(self.attributes)}, class_index={self.class_index}, thetas={self.thetas}, "
                f"groups={self.groups})")

    def params(self) -> dict:
        """JSON-able parameters the browser needs."""
        return {
            "name": "mrr",
            "class_index": self.class_index,
            "groups": [list(g) for g in self.groups],
            "thetas": list(self.thetas),
            "personal": [p.tolist() for p in self.personal],
            "personal_cdf": [cdf(p).tolist() for p in self.personal],
            "personal_mode": self.personal_mode,
        }

    # -- client half ---------------------------------------------------------------------------
    def perturb(self, X, rng: np.random.Generator, personal=None) -> np.ndarray:
        """Randomized reports for true codes ``X`` (n, m); ``personal`` (n, m): real personal answers.

        Without ``personal`` the personal answers are drawn from P_Y (in "real" mode too: that simulates
        respondents whose real answers follow the declared distribution).
        """
        X = check_codes(X, self.sizes)
        n, m = X.shape
        truth = np.empty((n, len(self.groups)), dtype=bool)
        for g, theta in enumerate(self.thetas):
            truth[:, g] = rng.random(n) < theta
        if personal is not None:
            Y = check_codes(personal, self.sizes, name="personal")
            if Y.shape != X.shape:
                raise ValueError("personal answers must have the shape of X")
        else:
            # "simulated": the browser draws Y from P_Y. "real" without given answers: a simulation of
            # respondents answering real unrelated questions, whose answers follow the declared P_Y.
            Y = np.empty_like(X)
            for i, p_y in enumerate(self.personal):
                Y[:, i] = assign(n, p_y, rng)
        keep = truth[:, list(self.group_of)]
        return np.where(keep, X, Y)

    # -- server half ---------------------------------------------------------------------------
    def validate(self, R) -> np.ndarray:
        return check_codes(R, self.sizes, name="reports")

    def zero_stats(self) -> MRRStats:
        k = self.class_attribute.size
        return MRRStats(
            0,
            np.zeros(k, dtype=np.int64),
            tuple(np.zeros((self.attributes[i].size, k), dtype=np.int64) for i in self.feature_indices),
        )

    def aggregate(self, R) -> MRRStats:
        R = self.validate(R)
        k = self.class_attribute.size
        c = R[:, self.class_index]
        joint = []
        for i in self.feature_indices:
            n_i = self.attributes[i].size
            joint.append(np.bincount(R[:, i] * k + c, minlength=n_i * k).reshape(n_i, k).astype(np.int64))
        return MRRStats(int(R.shape[0]), np.bincount(c, minlength=k).astype(np.int64), tuple(joint))

    def _check_stats(self, stats: MRRStats) -> None:
        z = self.zero_stats()
        if not isinstance(stats, MRRStats) or stats.class_counts.shape != z.class_counts.shape or len(
            stats.joint
        ) != len(z.joint) or any(a.shape != b.shape for a, b in zip(stats.joint, z.joint, strict=True)):
            raise ValueError("stats do not match this scheme's attributes")
        if stats.n <= 0:
            raise ValueError("stats hold no reports (n = 0)")

    def estimate(self, stats: MRRStats, postprocess: str = DEFAULT) -> MRREstimate:
        """Unbiased P̂(c), P̂(a ∧ c) with standard errors, and projected NB parameters (SPEC §2).

        Same group (θ): P̂(E) = (P*(E) − (1−θ)P_Y(E))/θ, SE = √(P*(1−P*)/(nθ²)).
        A_i in group g, C in group h ≠ g: P̂(a∧c) = [P*(a∧c) − θ_g(1−θ_h)P̂(a)P_Y(c) − (1−θ_g)θ_h P_Y(a)P̂(c)
        − (1−θ_g)(1−θ_h)P_Y(a)P_Y(c)]/(θ_gθ_h) with P̂(a), P̂(c) from their own margins; it is linear in the
        observed fractions P*(a∧c), P*(a), P*(c), and its SE is that of the linear form (``linear_fraction_se``,
        exact up to plugging in the observed fractions).

        ``postprocess``: "bayes" (default) estimates every P(a | c) by its posterior mean given the raw estimate and
        its perturbation variance (``shrinkage``; ``_perturbation_variances``); "norm-sub" or "neg-to-one" make each
        column of estimated counts a distribution (``conditional_distributions``). The prior is projected (Norm-Sub)
        under "bayes" and "norm-sub".
        """
        self._check_stats(stats)
        ci = self.class_index
        theta_c = self.theta_of(ci)
        if theta_c <= 0:
            raise ValueError("theta of the class's group must be > 0 to estimate")
        n = stats.n
        py_c = self.personal[ci]
        p_c = stats.class_counts / n
        prior_raw = (p_c - (1 - theta_c) * py_c) / theta_c
        prior_se = linear_fraction_se(n, p_c, p_c, p_c, 0.0, 0.0, 1.0 / theta_c)
        prior = to_distribution(prior_raw * n, postprocess)
        joint_raw, joint_se, conditionals = [], [], []
        for j, i in enumerate(self.feature_indices):
            theta_a = self.theta_of(i)
            if theta_a <= 0:
                raise ValueError(f"theta of the group of attribute {self.attributes[i].name!r} must be > 0 to estimate")
            py_a = self.personal[i][:, None]
            p_ac = stats.joint[j] / n
            if self.group_of[i] == self.group_of[ci]:
                raw = (p_ac - (1 - theta_c) * py_a * py_c[None, :]) / theta_c
                se = linear_fraction_se(n, p_ac, p_ac, p_ac, 0.0, 0.0, 1.0 / theta_c)
            else:
                tg, th = theta_a, theta_c
                p_a = p_ac.sum(axis=1, keepdims=True)
                pa_hat = (p_a - (1 - tg) * py_a) / tg
                pc_hat = prior_raw[None, :]
                raw = (
                    p_ac
                    - tg * (1 - th) * pa_hat * py_c[None, :]
                    - (1 - tg) * th * py_a * pc_hat
                    - (1 - tg) * (1 - th) * py_a * py_c[None, :]
                ) / (tg * th)
                alpha = (1 - th) * py_c[None, :]
                beta = (1 - tg) * py_a
                se = linear_fraction_se(n, p_ac, p_a, p_c[None, :], alpha, beta, 1.0 / (tg * th))
            joint_raw.append(raw)
            joint_se.append(se)
            if postprocess in CENTRES:
                same = self.group_of[i] == self.group_of[ci]
                variances = _perturbation_variances(n, raw, se, (p_ac, theta_c) if same else None)
                conditionals.append(posterior_conditionals(raw, variances, prior, centre=CENTRES[postprocess]))
            else:
                conditionals.append(conditional_distributions(raw * n, postprocess))
        return MRREstimate(
            n=n,
            class_attribute=self.class_attribute,
            attributes=tuple(self.attributes[i] for i in self.feature_indices),
            prior=prior,
            conditionals=tuple(conditionals),
            prior_raw=prior_raw,
            prior_se=prior_se,
            joint_raw=tuple(joint_raw),
            joint_se=tuple(joint_se),
        )


def independence_statistics(scheme: "MRRScheme", stats: MRRStats, est: MRREstimate) -> tuple[list, list]:
    """Per feature the Wald statistic of class–answer independence and its df (``dependence``; SPEC §2).

    A feature in the class's group: P̂(a ∧ c) is linear in the multinomial fractions P*(a ∧ c), so its covariance
    is (diag(P*) − P*·P*ᵀ)/(nθ²), evaluated under independence (P* = θ·P̂(a)P̂(c) + (1 − θ)·P_Y(a)P_Y(c)), and the
    prior is the joint's own column sums. Another group: the published standard errors, taken as independent
    (an approximation), against the class margin's prior and its standard errors."""
    ci = scheme.class_index
    statistics, dfs = [], []
    for j, i in enumerate(scheme.feature_indices):
        raw = est.joint_raw[j]
        if scheme.group_of[i] == scheme.group_of[ci]:
            theta = scheme.theta_of(ci)
            pstar = (theta * null_joint(raw, est.prior_raw)
                     + (1 - theta) * np.outer(scheme.personal[i], scheme.personal[ci])).ravel()
            cov = (np.diag(pstar) - np.outer(pstar, pstar)) / (stats.n * theta**2)
            T, df = independence_statistic(raw, cov, None, prior_from_joint=True)
        else:
            T, df = independence_statistic(raw, np.diag(est.joint_se[j].ravel() ** 2), est.prior,
                                           prior_cov=np.diag(est.prior_se**2))
        statistics.append(T)
        dfs.append(df)
    return statistics, dfs


def _perturbation_variances(n: int, joint, joint_se, same_group) -> np.ndarray:
    """(n_i, k) variances of the raw P̂(a ∧ c) due to the randomization alone (SPEC §2; what ``shrinkage`` weighs
    by): the estimator's variance minus the sampling variance J(1 − J)/n the true answers of n respondents would give.
    ``same_group = (P*(a ∧ c), θ)`` when A_i and C share a group: the variance is P*(1 − P*)/(nθ²) (SPEC §2);
    otherwise the published SE of the four-term estimator (``linear_fraction_se``)."""
    J = np.clip(joint, 0.0, 1.0)
    if same_group is not None:
        p_ac, theta = same_group
        total = p_ac * (1 - p_ac) / (n * theta**2)
    else:
        total = np.asarray(joint_se) ** 2
    return np.maximum(total - J * (1 - J) / n, 0.0)


# -- accuracy on randomized test data (SPEC §2, seed 004 §3.4) ------------------------------------
MAX_ENUMERATE = 1 << 16


def _class_codes(pred, n: int, k: int) -> np.ndarray:
    """``predict``'s output checked to be n class codes in [0, k)."""
    pred = np.asarray(pred)
    if pred.shape != (n,) or (pred.size and (pred.min() < 0 or pred.max() >= k)):
        raise ValueError(f"predict must return one class code in [0, {k}) per record")
    return pred.astype(np.int64, copy=False)


def _personal_correct_rate(predict, scheme: MRRScheme, rng, mc_samples: int):
    """P_Y(cc) = Σ_y P_Y(y_features)·P_Y,C(predict(y_features)), and its standard error (0 when exact)."""
    feats = scheme.feature_indices
    py_c = scheme.personal[scheme.class_index]
    sizes = [scheme.attributes[i].size for i in feats]
    space = int(np.prod(sizes)) if sizes else 1
    if space <= MAX_ENUMERATE:
        grids = np.indices(sizes).reshape(len(sizes), -1).T if sizes else np.zeros((1, 0), dtype=np.int64)
        weight = np.ones(grids.shape[0])
        for col, i in enumerate(feats):
            weight = weight * scheme.personal[i][grids[:, col]]
        pred = _class_codes(predict(grids.astype(np.int64)), grids.shape[0], py_c.size)
        return float(np.sum(weight * py_c[pred])), 0.0
    if rng is None:
        raise ValueError(f"the personal feature space has {space} records (> {MAX_ENUMERATE}): "
                         "pass a seeded rng for Monte Carlo")
    Y = np.column_stack([assign(mc_samples, scheme.personal[i], rng) for i in feats])
    hit = py_c[_class_codes(predict(Y), mc_samples, py_c.size)]
    return float(hit.mean()), float(hit.std(ddof=1) / np.sqrt(mc_samples))


def randomized_accuracy(
    predict: Callable[[np.ndarray], np.ndarray],
    R_test,
    scheme: MRRScheme,
    rng: np.random.Generator | None = None,
    mc_samples: int = 200_000,
) -> tuple[float, float]:
    """Estimated accuracy of ``predict`` on the true test records, from their MRR reports (seed 004 §3.4).

    P*(cc) = fraction of randomized test records whose randomized label equals ``predict`` on their randomized
    features; P_Y(cc) = the same fraction on personal records, computed by the server from the declared P_Y:
    exactly by enumerating the personal feature space when it has ≤ 2^16 records, else by Monte Carlo with
    ``mc_samples`` records drawn with ``rng`` (its standard error is added in quadrature, scaled by (1−θ)/θ).
    P̂(cc) = (P*(cc) − (1−θ)·P_Y(cc))/θ, SE = √(P*(1−P*)/(nθ²) + ((1−θ)/θ)²·SE_MC²).
    Only valid when all attributes share one group (the whole record is true or personal together).
    """
    if len(scheme.groups) != 1:
        raise ValueError(
            "randomized_accuracy needs all attributes in one group: with several groups a test record mixes "
            "true and personal answers and P*(cc) = θP(cc) + (1−θ)P_Y(cc) no longer holds"
        )
    theta = scheme.thetas[0]
    if theta <= 0:
        raise ValueError("theta must be > 0 to estimate accuracy")
    R = scheme.validate(R_test)
    n = R.shape[0]
    if n == 0:
        raise ValueError("R_test holds no records")
    feats = list(scheme.feature_indices)
    pred = _class_codes(predict(R[:, feats]), n, scheme.class_attribute.size)
    p_star = float(np.mean(pred == R[:, scheme.class_index]))
    p_y, se_mc = _personal_correct_rate(predict, scheme, rng, int(mc_samples))
    est = (p_star - (1 - theta) * p_y) / theta
    se = float(np.sqrt(p_star * (1 - p_star) / (n * theta**2) + ((1 - theta) / theta) ** 2 * se_mc**2))
    return float(est), se


def conditional_standard_error_bound(conditional, joint_se, prior, prior_se) -> np.ndarray:
    """Conservative SE of a published P(a | c) = P(a ∧ c)/P(c) (SPEC §2). MRR publishes SEs of the raw P(a ∧ c)
    (SE_J) and P(c) (SE_P) but not their covariance; the delta method gives SE(r)² = [Var J − 2r·Cov(J, P) +
    r²·Var P]/P², at most ((SE_J + r·SE_P)/P)² whatever the covariance (Cauchy–Schwarz, |Cov| ≤ SE_J·SE_P), so
    intervals from this bound cover at least their nominal level. ``conditional`` r and ``joint_se`` are (n_i, k),
    ``prior`` P and ``prior_se`` (k,). A class whose prior is below ``naive_bayes.model.PROB_FLOOR`` gets an infinite
    SE (its interval is the whole [0, 1])."""
    from .naive_bayes.model import PROB_FLOOR

    r = np.asarray(conditional, dtype=np.float64)
    joint_se = np.asarray(joint_se, dtype=np.float64)
    prior = np.asarray(prior, dtype=np.float64)
    prior_se = np.asarray(prior_se, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = (joint_se + r * prior_se[None, :]) / prior[None, :]
    return np.where(prior[None, :] >= PROB_FLOOR, se, np.inf)
