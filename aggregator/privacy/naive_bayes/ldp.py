"""Naive Bayes from LDP reports, discrete attributes (SPEC §4; seed 000 §3.1).

Inputs: input 0 is the class (domain k); input i + 1 is feature i jointly encoded with the class,
v_i = a·k + c over domain k·n_i, which keeps the feature–class relation.

Strategies:
* ``"one-report"`` (seed 000's "Approach 3", the default): every respondent is publicly assigned one of the m + 1
  inputs (``assignment`` probabilities, uniform by default) and reports only it with the full ε.
* ``"split"`` (comparison only): every respondent reports all m + 1 inputs with ε/(m + 1) each (sequential
  composition).

Estimation: P̂(c) = Ê_c / Σ Ê, made a distribution by Norm-Sub. Conditionals by ``postprocess``:
* "bayes" (the default): every P(a | c) is the posterior mean given its raw estimate Ê_{a,c} / (N_i·P̂(c)) and that
  estimate's perturbation standard error (the oracle's exact count variance) under a Dirichlet(κ·P̃(a)) prior
  centred on the answer's class-independent marginal (``shrinkage.posterior_conditionals``), κ the posterior mean
  over the share of the answers' variance the class explains (``dependence.share_concentration``, flat prior on that
  share), and the published class prior shrunk toward the uniform distribution by its own noise
  (``shrinkage.posterior_prior``) — behind a guard (SPEC §4, the private majority rule): where the pooled test of
  class dependence sees none (``dependence.concentration`` = ∞) and the model would give up more than
  ``shrinkage.NULL_LOSS_TOLERANCE`` of accuracy against the private majority rule were every question independent of
  the class (``dependence.null_loss``), the model *is* the private majority rule (every column P̃(a), the Norm-Sub
  prior). Where the reports cannot show the dependence but the classes are about equally frequent, a wrong guess
  costs nothing and the shrunk conditionals are kept (``metadata["guard"]``);
* "share-mean": the same without the guard (it falls below the private majority rule when the classes are unequal
  and the questions independent);
* "moment-mean" (the default before): one κ by the method of moments on the pooled Wald statistics
  (``dependence.concentration``; κ = ∞, the private majority rule exactly, whenever they show no excess);
* "norm-sub": P̂(a | c) = Ê_{a,c} / Σ_h Ê_{h,c} of the joint projected onto the simplex;
* "neg-to-one": the same with seed 000's rule instead of the projection;
* "mle": the closed-form maximum-likelihood joint of k-RR (``postprocess.mle_krr``) for inputs through DE, Norm-Sub
  for the others;
* "posterior-mean" (an earlier default: flat Dirichlet prior, no floor) and "marginal-mean" (centred on the marginal
  with κ = n_i, no floor): for comparison.

Pooled class prior (beyond the seed, SPEC §4): every feature input also estimates P(c) as Σ_a Ê_{a,c} / N_i, N_i
being the number of its reports. The raw estimates are combined per class by inverse-variance weighting. The weights
use Wang et al.'s approximate variances (frequency term dropped, ``exact_variance`` at zero counts), which do not
depend on the data — given the public assignment the pooled estimate is therefore still unbiased; they are optimal
only when the frequency term is small. The variance of a sum Σ_a Ê_{a,c} comes from the covariance of the count
estimates (``count_covariance``): exact for DE (whose counts are negatively correlated: one report supports one value)
and for SUE/OUE/SHE/THE (independent components), an approximation for OLH (hash values of different inputs are only
pairwise uniform; their covariance is taken as 0).

Standard errors (``metadata``) treat respondents as an i.i.d. sample of the population whose P(c), P(a | c) are
estimated: variance = perturbation variance (exact oracle formulas with the clipped estimate plugged in) + the
sampling variance of the reporting group, p(1 − p)/N. Conditionals use the delta method for the ratio
Ê_{a,c} / Σ_h Ê_{h,c}, evaluated at the post-processed estimates; they ignore the post-processing itself, so where
Norm-Sub clips small values (small ε·n) they overstate the conditionals' spread (conservative). They describe the
ratio estimator; the default posterior means vary less, so for them they are conservative too
(tests/engine/test_ldp_nb.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from .. import oracles
from ..assignment import assign, cdf, check_probabilities
from ..dependence import concentration, independence_statistic, null_joint, null_loss, share_concentration
from ..oracles.de import DirectEncoding
from ..postprocess import DEFAULT, MLE, mle_krr, to_distribution
from ..schema import Categorical
from ..shrinkage import (
    CENTRES,
    MOMENT,
    NULL_LOSS_TOLERANCE,
    SHARE,
    answer_marginal,
    posterior_conditionals,
    posterior_prior,
)
from ..shrinkage import NAME as BAYES
from ..stats import Additive, Counts, parts
from .model import NaiveBayesModel

__all__ = ["LDPNaiveBayes", "LDPNBReports", "LDPNBStats", "STRATEGIES", "count_covariance"]

STRATEGIES = ("one-report", "split")


@dataclass(frozen=True)
class LDPNBReports:
    """Reports of n respondents: ``per_input[j]`` holds input j's oracle reports (in respondent order);
    ``assigned`` is the public input of each respondent (one-report) or ``None`` (split: everyone reports every
    input)."""

    n: int
    per_input: tuple
    assigned: np.ndarray | None


@dataclass(frozen=True, eq=False)
class LDPNBStats(Additive):
    """One ``Counts`` per input (input 0 = class, i + 1 = feature i); additive with ``+``, JSON-able."""

    per_input: tuple = parts(Counts)

    mismatch: ClassVar[str] = "cannot add statistics of different input counts"


def count_covariance(fo, n: int, counts) -> np.ndarray:
    """(d, d) covariance of the oracle's count estimates Ê for ``n`` reports with true counts ``counts`` (SPEC §3):
    ``fo.count_covariance(n, counts)`` — exact for DE, SUE, OUE, SHE, THE; approximate (0 off the diagonal) for OLH.
    ``counts = 0`` gives Wang et al.'s data-free approximation."""
    return fo.count_covariance(n, counts)


class LDPNaiveBayes:
    """LDP Naive Bayes over categorical attributes (SPEC §4); ``estimate`` returns a ``NaiveBayesModel``.

    ``oracle`` is any name of ``oracles.get`` (extra ``oracle_params`` are passed on, e.g. THE's ``threshold``);
    ``assignment`` the public probabilities of the m + 1 inputs (one-report; uniform by default);
    ``postprocess`` "bayes" (default), "norm-sub" or "neg-to-one" (module docstring); ``pooled_prior`` combines the
    class input's prior with every feature input's.
    """

    def __init__(
        self,
        class_attribute: Categorical,
        attributes: Sequence[Categorical],
        epsilon: float,
        oracle: str = "oue",
        strategy: str = "one-report",
        assignment: Sequence[float] | np.ndarray | None = None,
        postprocess: str = DEFAULT,
        pooled_prior: bool = True,
        **oracle_params,
    ):
        if not isinstance(class_attribute, Categorical):
            raise ValueError("class_attribute must be categorical")
        if class_attribute.size < 2:
            raise ValueError("class_attribute needs at least two classes")
        attributes = tuple(attributes)
        if not attributes or not all(isinstance(a, Categorical) for a in attributes):
            raise ValueError("attributes must be a non-empty sequence of categorical attributes")
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
        try:
            self.epsilon = float(epsilon)
        except (TypeError, ValueError):
            raise ValueError("epsilon must be a finite number > 0") from None
        if not np.isfinite(self.epsilon) or self.epsilon <= 0:
            raise ValueError("epsilon must be a finite number > 0")
        self.class_attribute = class_attribute
        self.attributes = attributes
        self.strategy = strategy
        inputs = 1 + len(attributes)
        per_input_epsilon = self.epsilon if strategy == "one-report" else self.epsilon / inputs
        k = class_attribute.size
        self.domains = (k,) + tuple(a.size * k for a in attributes)
        self.oracles = tuple(oracles.get(oracle, epsilon=per_input_epsilon, domain=d, **oracle_params)
                             for d in self.domains)
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
    def epsilon_per_report(self) -> float:
        """ε of one input's report: ε (one-report) or ε/(m + 1) (split)."""
        return self.oracles[0].epsilon

    @property
    def epsilon_per_respondent(self) -> float:
        """ε of everything one respondent sends: ε in both strategies (split: (m + 1)·ε/(m + 1))."""
        return self.epsilon

    @property
    def reports_per_respondent(self) -> int:
        return 1 if self.strategy == "one-report" else len(self.oracles)

    def input_values(self, j: int, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The value respondents report for input j: the class (j = 0) or a·k + c (SPEC §4 joint encoding)."""
        return y if j == 0 else X[:, j - 1] * self.k + y

    # -- client half ---------------------------------------------------------------------------
    def checked_records(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        """``(X, y)`` as integer arrays, checked against the attributes and classes (``ValueError`` otherwise)."""
        X = np.asarray(X)
        y = np.asarray(y)
        m = len(self.attributes)
        if X.ndim != 2 or X.shape[1] != m:
            raise ValueError(f"X must be an (n, {m}) array of attribute codes")
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must hold one class code per row of X ({X.shape[0]})")
        for name, arr in (("X", X), ("y", y)):
            if arr.dtype.kind not in "biuf" or (arr.dtype.kind == "f" and arr.size and not (
                    np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))):
                raise ValueError(f"{name} must hold integer codes")
        X = X.astype(np.int64)
        y = y.astype(np.int64)
        for i, a in enumerate(self.attributes):
            if X.shape[0] and (X[:, i].min() < 0 or X[:, i].max() >= a.size):
                raise ValueError(f"X column {i} ({a.name!r}) must hold codes in [0, {a.size})")
        if y.size and (y.min() < 0 or y.max() >= self.k):
            raise ValueError(f"y must hold class codes in [0, {self.k})")
        return X, y

    def perturb(self, X, y, rng: np.random.Generator) -> LDPNBReports:
        """Reports of the respondents with feature codes ``X`` (n, m) and classes ``y``.

        Randomness order: (one-report) the assignment — one ``rng.random(n)`` — then each input's oracle on the
        respondents assigned to it, in input order; (split) each input's oracle on everyone, in input order.
        """
        X, y = self.checked_records(X, y)
        n = X.shape[0]
        if self.strategy == "one-report":
            assigned = assign(n, self.assignment, rng)
            per_input = tuple(
                fo.perturb(self.input_values(j, X[assigned == j], y[assigned == j]), rng)
                for j, fo in enumerate(self.oracles)
            )
            return LDPNBReports(n, per_input, assigned)
        per_input = tuple(fo.perturb(self.input_values(j, X, y), rng) for j, fo in enumerate(self.oracles))
        return LDPNBReports(n, per_input, None)

    @staticmethod
    def _row(report):
        return tuple(part[0] for part in report) if isinstance(report, tuple) else report[0]

    def perturb_one(self, x_row, y_value, rng: np.random.Generator):
        """One respondent, as the browser does it.

        One-report: ``(j, report)`` — j drawn by ``assign`` (one ``rng.random(1)``), then input j's oracle on its value.
        Split: ``(None, (report of input 0, …, report of input m))``, the oracles called in input order.
        """
        X, y = self.checked_records(np.asarray(x_row).reshape(1, -1), np.asarray([y_value]).reshape(1))
        if self.strategy == "one-report":
            j = int(assign(1, self.assignment, rng)[0])
            return j, self._row(self.oracles[j].perturb(self.input_values(j, X, y), rng))
        return None, tuple(self._row(fo.perturb(self.input_values(j, X, y), rng)) for j, fo in enumerate(self.oracles))

    # -- server half ---------------------------------------------------------------------------
    def zero_stats(self) -> LDPNBStats:
        return LDPNBStats(tuple(fo.zero_stats() for fo in self.oracles))

    def aggregate(self, reports: LDPNBReports) -> LDPNBStats:
        if len(reports.per_input) != len(self.oracles):
            raise ValueError(f"reports must hold {len(self.oracles)} inputs, got {len(reports.per_input)}")
        return LDPNBStats(tuple(fo.aggregate(r) for fo, r in zip(self.oracles, reports.per_input, strict=True)))

    def _check_stats(self, stats: LDPNBStats) -> None:
        if not isinstance(stats, LDPNBStats) or len(stats.per_input) != len(self.oracles):
            raise ValueError(f"stats must be LDPNBStats over {len(self.oracles)} inputs")
        for j, (fo, c) in enumerate(zip(self.oracles, stats.per_input, strict=True)):
            if c.domain != fo.domain:
                raise ValueError(f"stats of input {j} have domain {c.domain}, expected {fo.domain}")

    def prior_sources(self, stats: LDPNBStats) -> dict:
        """Per input j with reports: raw P̂_j(c), its approximate (weighting) variance and its perturbation variance.

        Input 0: Ê_c / N_0; input i + 1: Σ_a Ê_{a,c} / N_{i+1} (only when ``pooled_prior``)."""
        k = self.k
        out: dict[str, list] = {
            "inputs": [], "estimates": [], "weight_variances": [], "perturbation_variances": [], "n": []
        }
        for j, (fo, counts) in enumerate(zip(self.oracles, stats.per_input, strict=False)):
            n_j = counts.n
            if n_j == 0 or (j > 0 and not self.pooled_prior):
                continue
            est = fo.estimate(counts)
            n_i = 1 if j == 0 else self.attributes[j - 1].size
            # Summing matrix: class c collects the values a·k + c.
            S = np.tile(np.eye(k), (n_i, 1))  # (n_i·k, k)
            approx = count_covariance(fo, n_j, np.zeros(fo.domain))
            exact = count_covariance(fo, n_j, np.clip(est, 0, n_j))
            out["inputs"].append(j)
            out["n"].append(n_j)
            out["estimates"].append(est @ S / n_j)
            out["weight_variances"].append(np.einsum("vc,vw,wc->c", S, approx, S) / n_j**2)
            out["perturbation_variances"].append(np.einsum("vc,vw,wc->c", S, exact, S) / n_j**2)
        return out

    def _prior(self, stats: LDPNBStats):
        """Pooled raw P̂(c), its standard error and the weights (SPEC §4, inverse-variance)."""
        src = self.prior_sources(stats)
        if not src["inputs"]:
            raise ValueError("no reports of the class yet")
        est = np.asarray(src["estimates"])
        w = 1.0 / np.asarray(src["weight_variances"])
        w /= w.sum(axis=0)
        prior_raw = (w * est).sum(axis=0)
        p = np.clip(prior_raw, 0.0, 1.0)
        pert = np.asarray(src["perturbation_variances"])
        n = np.asarray(src["n"], dtype=np.float64)[:, None]
        if self.strategy == "one-report":  # disjoint groups: each adds its own sampling variance
            var = (w**2 * (pert + p * (1 - p) / n)).sum(axis=0)
        else:  # every input describes the same respondents: one sampling term
            var = (w**2 * pert).sum(axis=0) + p * (1 - p) / n.max()
        return prior_raw, np.sqrt(var), w, src["inputs"]

    def estimate(self, stats: LDPNBStats) -> NaiveBayesModel:
        """The NB model; raw estimates, standard errors and the prior's pooling weights in ``metadata`` (SPEC §4).

        Metadata: ``prior_raw`` (pooled, unbiased), ``prior_standard_errors``, ``prior_inputs`` and ``prior_weights``
        (rows = inputs used), ``joint_raw[i]`` ((n_i, k) raw P̂(a ∧ c), unbiased), ``joint_standard_errors[i]``,
        ``conditional_raw[i]`` ((n_i, k) Ê_{a,c} / Σ_h Ê_{h,c} before post-processing — a ratio, so only
        approximately unbiased; NaN, serialised as null, where the class's raw total Σ_h Ê_{h,c} ≤ 0),
        ``conditional_standard_errors[i]`` (of the published P̂(a | c)), ``reports_per_input``,
        ``independence`` (per question the Wald statistic of class–answer independence, its df, signal scale and
        finite-n null mean, ``dependence.independence_statistic``).

        Under the default post-processing ("bayes") every column's prior is Dirichlet(κ·P̃(a)), centred on the
        answer's class-independent marginal, with one κ for the whole model from the pooled Wald statistics
        (``dependence.share_concentration``; ``metadata["concentration"]``), behind the guard of the module
        docstring (``metadata["guard"]``): when it applies, κ = ∞ and the model is the private majority rule exactly.
        """
        self._check_stats(stats)
        k = self.k
        prior_raw, prior_se, weights, prior_inputs = self._prior(stats)
        prior = to_distribution(prior_raw, self.postprocess)
        conditionals, cond_se, cond_raw, joint_raw, joint_se = [], [], [], [], []
        statistics, dfs, signals, pieces, null_means, centres = [], [], [], [], [], []
        prior_cov = np.diag(prior_se**2)
        for i, attr in enumerate(self.attributes):
            fo, counts = self.oracles[i + 1], stats.per_input[i + 1]
            N = counts.n
            if N == 0:
                raise ValueError(f"no reports for attribute {attr.name!r} yet")
            est = fo.estimate(counts)
            cov = count_covariance(fo, N, np.clip(est, 0, N))
            J = (est / N).reshape(attr.size, k)
            # The estimates' covariance under independence (as Pearson's test takes its expected counts): the
            # oracle's at the fitted joint f0 = P̂(a)·P̂(c), plus the multinomial sampling of the N respondents.
            f0 = null_joint(J, prior).ravel()
            total_cov = count_covariance(fo, N, N * f0) / N**2 + (np.diag(f0) - np.outer(f0, f0)) / N
            centre = answer_marginal(J, (np.diag(cov) / N**2).reshape(attr.size, k))
            centres.append(centre / centre.sum())
            # The same covariance at the raw (unbiased) joint: its terms linear in the frequencies are then unbiased,
            # and so is the null mean of T they give (``dependence.independence_statistic``'s μ₀).
            raw_f = J.ravel()
            raw_cov = (count_covariance(fo, N, N * raw_f) / N**2
                       + (np.diag(raw_f) - np.outer(f0, f0)) / N)
            T, df, A, mu0 = independence_statistic(J, total_cov, prior, prior_cov=prior_cov, centre=centre,
                                                   null_cov=raw_cov)
            null_means.append(mu0)
            statistics.append(T)
            dfs.append(df)
            signals.append(A)
            pieces.append((fo, N, est, cov))
        kappa, detected = None, True
        if self.postprocess == MOMENT:
            kappa = concentration(statistics, dfs, signals, null_means=null_means)
        elif self.postprocess in (SHARE, BAYES):
            kappa = share_concentration(statistics, dfs, signals, null_means=null_means)
            if self.postprocess == BAYES:  # the guard: does the pooled test see any class dependence?
                detected = bool(np.isfinite(concentration(statistics, dfs, signals, null_means=null_means)))
        for attr, (fo, N, est, cov) in zip(self.attributes, pieces, strict=True):
            if self.postprocess == MLE and isinstance(fo, DirectEncoding):
                joint = mle_krr(est, N, fo.p, fo.q).reshape(attr.size, k)
            else:
                joint = to_distribution(est, self.postprocess).reshape(attr.size, k)
            col = joint.sum(axis=0)
            if self.postprocess in CENTRES:  # posterior means from each estimate's own noise (``shrinkage``)
                cond = posterior_conditionals((est / N).reshape(attr.size, k),
                                              (np.diag(cov) / N**2).reshape(attr.size, k), prior,
                                              centre=CENTRES[self.postprocess], concentration=kappa)
            else:
                # A class whose whole column was projected away gets a uniform conditional (no information).
                cond = np.where(col > 0, joint / np.where(col > 0, col, 1.0), 1.0 / attr.size)
            # Delta method for R = Ê_{a,c} / T_c, T_c = Σ_h Ê_{h,c}: gradient (e_a − R·1)/T_c over the values of
            # class c.
            se = np.empty((attr.size, k))
            for c in range(k):
                idx = np.arange(attr.size) * k + c
                block = cov[np.ix_(idx, idx)]
                total = max(col[c] * N, 1.0)
                r = cond[:, c]
                var = (np.diag(block) - 2 * r * block.sum(axis=1) + r**2 * block.sum()) / total**2
                se[:, c] = np.sqrt(np.maximum(var, 0.0) + r * (1 - r) / total)
            f = np.clip(est / N, 0.0, 1.0)
            raw = est.reshape(attr.size, k)
            raw_total = raw.sum(axis=0)
            cond_raw.append(np.where(raw_total > 0, raw / np.where(raw_total > 0, raw_total, 1.0), np.nan))
            conditionals.append(cond)
            cond_se.append(se)
            joint_raw.append((est / N).reshape(attr.size, k))
            joint_se.append(np.sqrt(np.diag(cov) / N**2 + f * (1 - f) / N).reshape(attr.size, k))
        metadata = {
            "mechanism": "ldp-naive-bayes",
            "epsilon": self.epsilon_per_respondent,
            "epsilon_per_report": self.epsilon_per_report,
            "strategy": self.strategy,
            "postprocess": self.postprocess,
            "oracles": [fo.name for fo in self.oracles],
            "reports": int(sum(c.n for c in stats.per_input)) // self.reports_per_respondent,
            "reports_per_input": [int(c.n) for c in stats.per_input],
            "prior_raw": prior_raw,
            "prior_standard_errors": prior_se,
            "prior_inputs": list(prior_inputs),
            "prior_weights": weights,
            "joint_raw": joint_raw,
            "joint_standard_errors": joint_se,
            "conditional_raw": cond_raw,
            "conditional_standard_errors": cond_se,
            "independence": {"statistics": statistics, "df": dfs, "signals": signals, "null_means": null_means},
        }
        published = prior
        if kappa is not None:
            metadata["concentration"] = kappa
            if self.postprocess in (SHARE, BAYES) and np.isfinite(kappa):  # the class prior shrunk by its own noise
                published, metadata["prior_concentration"] = posterior_prior(prior_raw, prior_se)
        if self.postprocess == BAYES:
            loss = null_loss(published, published, conditionals, centres)  # against the prior shrunk by its noise
            metadata["guard"] = {"dependence_detected": detected, "null_loss": loss}
            if not detected and loss > NULL_LOSS_TOLERANCE:  # the private majority rule
                conditionals = [np.repeat(c[:, None], k, axis=1) for c in centres]
                published, metadata["concentration"] = prior, float("inf")
        return NaiveBayesModel(self.class_attribute, self.attributes, published, conditionals, metadata=metadata)

    def params(self) -> dict:
        """What the browser needs."""
        return {
            "strategy": self.strategy,
            "epsilon": self.epsilon,
            "assignment": self.assignment.tolist(),
            "assignment_cdf": cdf(self.assignment).tolist(),
            "inputs": [fo.params() for fo in self.oracles],
            "classes": self.k,
        }
