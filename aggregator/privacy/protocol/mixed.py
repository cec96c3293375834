"""The LDP Naive Bayes protocol of a survey that mixes categorical and numeric questions (SPEC §4 + §5b):
one report per respondent, categorical questions through the class-joint frequency oracles (SPEC §4),
numeric ones through Approach 3's class-hiding vectors (SPEC §5b), the class through its own oracle.

Inputs (public, drawn by the browser): 0 the class; 1 … p the categorical features jointly with the class (feature
order among the categorical ones); p + 1 the *mean* group and p + 2 the *square* group of the q numeric features
(Approach 3: the browser then draws one numeric feature uniformly, also public). Every (input, moment) is equally
likely: the class and each categorical input 1/T, each group q/T, T = 1 + p + 2q — SPEC §4's uniform assignment over
the 1 + p + 2q inputs, as Approach 3 alone gives the prior 1/(2q + 1). Wire report: ``{"input": j, "report": …}``,
the oracle's wire value for j ≤ p, Approach 3's ``[attribute, [k numbers]]`` for the groups.

Estimation: the class prior and the categorical conditionals as ``LDPNaiveBayes`` (its default post-processing and
pooled prior), μ and σ of the numeric features as ``LDPGaussianNB`` with that published prior and its variance in
place of a prior group; the model lists the features in the survey's order. ε: each categorical question its input's
exact ε; the numeric questions, the class and the respondent ∞ with the grid-Laplace note (as Gaussian Approach 3:
``GaussianProtocol.privacy``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import noise
from ..assignment import assign, cdf, check_probabilities
from ..browser_arithmetic import grid_laplace_unmatched_mass
from ..browser_epsilon import realized_oracle_epsilon
from ..continuous.approaches import OneVector
from ..continuous.gaussian import GROUP_LABELS, MEAN, SQUARE, GaussianStats, LDPGaussianNB, MomentSums
from ..dependence import apply_floor
from ..exact_epsilon import ldp_nb_exact_epsilons, with_validation
from ..jsonable import json_safe
from ..naive_bayes.ldp import LDPNaiveBayes, LDPNBReports, LDPNBStats
from ..naive_bayes.model import NaiveBayesModel
from ..oracles.wire import from_wire, to_wire
from ..postprocess import DEFAULT as DEFAULT_POSTPROCESS
from ..schema import Numeric
from ..stats import Additive
from ..validation import correct_oracle
from .base import LDPValidation, ReportError, SurveyProtocol, as_model, one_report_inputs, one_report_payloads
from .config import ConfigError, ldp_epsilon, ldp_parameters, numeric_settings, section
from .ldp import LDPProtocol
from .schemas import INDEX, any_of, any_oracle_wire, keyed_cases, loosen, obj

__all__ = ["MixedProtocol", "MixedStats", "MixedReports", "is_mixed"]


def is_mixed(features) -> bool:
    """Whether ``features`` hold both categorical and numeric questions."""
    numeric = [isinstance(a, Numeric) for a in features]
    return any(numeric) and not all(numeric)


@dataclass(frozen=True, eq=False)
class MixedStats(Additive):
    """The categorical inputs' ``LDPNBStats`` (input 0 the class) and the numeric mean and square groups'
    ``MomentSums``; additive, JSON-able."""

    categorical: LDPNBStats
    mean: MomentSums
    square: MomentSums

    @property
    def n(self) -> int:
        """Number of respondents folded."""
        return int(sum(c.n for c in self.categorical.per_input) + self.mean.n + self.square.n)


@dataclass(frozen=True)
class MixedReports:
    """n respondents' reports: ``assigned`` their public inputs (0 … p + 2), ``categorical`` the oracle inputs'
    reports (``LDPNBReports`` of the respondents with input ≤ p), ``mean`` and ``square`` Approach 3's vector
    reports (attribute indices among the numeric features, (n_g, k) vectors)."""

    assigned: np.ndarray
    categorical: LDPNBReports
    mean: tuple
    square: tuple


class MixedProtocol(LDPValidation, SurveyProtocol):
    """LDP Naive Bayes over categorical and numeric questions in one survey (module docstring)."""

    mode = "ldp"
    browser_module = "mixed"
    stats_type = MixedStats
    privacy_settings = ("epsilon", "encoding")
    grouped_privacy = False
    report_keys = frozenset({"input", "report"})

    def __init__(self, config: dict):
        super().__init__(config)
        if not is_mixed(self.features):
            raise ConfigError("features", "a mixed survey needs both categorical and numeric feature questions")
        handling, _, approach = numeric_settings(config)
        if handling != "gaussian":
            raise ConfigError("numeric.handling", "a mixed survey's numeric questions use the Gaussian handling")
        if approach != 3:
            raise ConfigError("numeric.approach", "a survey mixing categorical and numeric questions uses Approach 3 "
                                                  "(one report per respondent): Approaches 1 and 2 report every "
                                                  "numeric answer at once")
        ldp = section(config, "ldp")
        if ldp.get("strategy", "one-report") != "one-report":
            raise ConfigError("ldp.strategy", "a survey mixing categorical and numeric questions sends one report "
                                              "per respondent")
        params: dict[str, Any] = ldp_parameters(config)
        epsilon = ldp_epsilon(config)
        self.categorical = [i for i, a in enumerate(self.features) if not isinstance(a, Numeric)]
        self.numeric = [i for i, a in enumerate(self.features) if isinstance(a, Numeric)]
        self.nb = LDPNaiveBayes(
            self.class_attribute, [self.features[i] for i in self.categorical], epsilon,
            oracle=ldp.get("encoding", "adaptive"), strategy="one-report",
            postprocess=ldp.get("postprocess", DEFAULT_POSTPROCESS),
            **params,
        )
        # The class input stands as the Gaussian estimator's prior group (its checks; the same oracle object), but
        # μ and σ are scaled by the published pooled prior (``estimate``).
        self.gnb = LDPGaussianNB(self.class_attribute, [self.features[i] for i in self.numeric], epsilon, approach=3,
                                 prior_oracle=self.nb.oracles[0], postprocess="norm-sub")
        p, q = len(self.categorical), len(self.numeric)
        total = 1 + p + 2 * q
        self.assignment = check_probabilities([1.0 / total] * (1 + p) + [q / total] * 2, p + 3, "assignment")
        self.check_browser_epsilon([(fo.name, fo.epsilon, fo.domain) for fo in self.nb.oracles]
                                   + [(self.gnb.vectors.browser_noise, epsilon, None)])

    @property
    def mean_input(self) -> int:
        return len(self.nb.oracles)

    @property
    def square_input(self) -> int:
        return len(self.nb.oracles) + 1

    @property
    def epsilon_per_respondent(self) -> float:
        return self.nb.epsilon

    def to_model_input(self, X) -> np.ndarray:
        """Question-order records → the model's input: categorical codes and numeric values (nothing binned)."""
        return self.project(X)

    # -- capabilities ---------------------------------------------------------------------------------------
    def checked_oracles(self) -> list:
        """The frequency-oracle inputs: the class, then each categorical feature × class."""
        klass = self.class_attribute.name
        labels = [f"class {klass}: "] + [f"{a.name} × {klass}: " for a in self.nb.attributes]
        return list(zip(labels, self.nb.oracles, strict=True))

    def checked_reports(self, reports: MixedReports) -> tuple:
        return tuple(reports.categorical.per_input)

    def assignment_probabilities(self) -> np.ndarray:
        """The published assignment: the class and each categorical input 1/T, the mean and square groups q/T."""
        return self.assignment

    def assignment_groups(self, stats: MixedStats) -> list[tuple[str, int]]:
        return [(GROUP_LABELS[MEAN], stats.mean.n), (GROUP_LABELS[SQUARE], stats.square.n)]

    def conditional_standard_errors(self, model) -> tuple[str, list | None]:
        """("delta", per feature: a categorical one's (n_i, k) SEs of P(a | c), a numeric one's (k,) SEs of μ_c in
        its units), or ("none", None) without them."""
        meta = as_model(model).metadata
        if meta.get("conditional_standard_errors") is None or meta.get("mean_standard_errors") is None:
            return "none", None
        return "delta", [np.asarray(c if c is not None else m, dtype=np.float64)
                         for c, m in zip(meta["conditional_standard_errors"], meta["mean_standard_errors"],
                                         strict=True)]

    # -- client half ----------------------------------------------------------------------------------------
    def perturb(self, X, y, rng: np.random.Generator) -> MixedReports:
        """Reports of the respondents with question-order records ``X`` and classes ``y``. Randomness order: the
        assignment (one ``rng.random(n)``), each oracle input's reports in input order, then the mean group's and
        the square group's vectors (``OneVector.randomize``)."""
        Xf = self.project(X)
        y = np.asarray(y, dtype=np.int64)
        X_cat = Xf[:, self.categorical]
        X_cat, y = self.nb.checked_records(X_cat, y)
        xt = self.gnb.normalise(Xf[:, self.numeric])
        assigned = assign(len(y), self.assignment, rng)
        per_input = tuple(fo.perturb(self.nb.input_values(j, X_cat[assigned == j], y[assigned == j]), rng)
                          for j, fo in enumerate(self.nb.oracles))
        ldp = assigned < self.mean_input
        categorical = LDPNBReports(int(ldp.sum()), per_input, assigned[ldp])
        mean_rows, square_rows = assigned == self.mean_input, assigned == self.square_input
        mean = self.gnb.randomize(xt[mean_rows], y[mean_rows], rng)
        square = self.gnb.randomize(xt[square_rows] ** 2, y[square_rows], rng)
        return MixedReports(assigned, categorical, mean, square)

    def encode(self, X, y, rng) -> list[dict]:
        reports = self.perturb(X, y, rng)
        wires = [to_wire(fo, r) for fo, r in zip(self.nb.oracles, reports.categorical.per_input, strict=True)]
        wires += [self.gnb.vectors_to_wire(reports.mean), self.gnb.vectors_to_wire(reports.square)]
        return one_report_payloads(wires, reports.assigned)

    def public(self) -> dict:
        """The browser's protocol: the oracle inputs as LDP one-report publishes them, the numeric groups as
        Approach 3 does, and which features are which."""
        return {**self.public_base(), "ldp": {
            "mixed": True,
            "strategy": "one-report",
            "epsilon": self.nb.epsilon,
            "assignment": self.assignment.tolist(),
            "assignment_cdf": cdf(self.assignment).tolist(),
            "inputs": [fo.params() for fo in self.nb.oracles],
            "classes": self.nb.k,
            "categorical": self.categorical,
            "numeric": self.numeric,
            # Approach 3's parameters without the Gaussian survey's group shares: the assignment above replaces them.
            "vectors": {key: value for key, value in self.gnb.params().items()
                        if key not in ("shares", "shares_cdf", "prior_share", "group_split")},
        }}

    # -- server half ----------------------------------------------------------------------------------------
    def parse(self, payloads: list) -> MixedReports:
        per, assigned = one_report_inputs(payloads, self.square_input + 1)
        parsed = []
        try:
            for fo, values in zip(self.nb.oracles, per, strict=False):
                parsed.append(from_wire(fo, values))
            mean = self.gnb.vectors_from_wire(per[self.mean_input])
            square = self.gnb.vectors_from_wire(per[self.square_input])
        except (TypeError, ValueError) as exc:
            raise ReportError("report", str(exc)) from None
        a = np.asarray(assigned, dtype=np.int64)
        ldp = a < self.mean_input
        return MixedReports(a, LDPNBReports(int(ldp.sum()), tuple(parsed), a[ldp]), mean, square)

    def aggregate(self, reports: MixedReports) -> MixedStats:
        return MixedStats(self.nb.aggregate(reports.categorical), self.gnb.fold_vectors(reports.mean),
                          self.gnb.fold_vectors(reports.square))

    def zero_stats(self) -> MixedStats:
        q, k = len(self.numeric), self.nb.k
        return MixedStats(self.nb.zero_stats(), MomentSums.zero(q, k), MomentSums.zero(q, k))

    def estimate(self, stats: MixedStats) -> NaiveBayesModel:
        """The model over the survey's features in order (module docstring); per-feature metadata lists in feature
        order too, ``None`` where a list does not apply to a feature's kind."""
        if not isinstance(stats, MixedStats):
            raise ValueError("stats must be MixedStats")
        discrete = self.nb.estimate(stats.categorical)
        # μ̃ = m / P̂(c) with the published (pooled) prior: estimated from the oracle inputs, independent of the
        # mean and square groups, and less noisy than the class input alone.
        gaussian = self.gnb.estimate(GaussianStats(stats.categorical.per_input[0], stats.mean, stats.square),
                                     prior=discrete.prior,
                                     prior_variance=np.asarray(discrete.metadata["prior_standard_errors"]) ** 2,
                                     gate=False)
        conditionals: list = [None] * len(self.features)
        for position, table in zip(self.categorical, discrete.conditionals, strict=True):
            conditionals[position] = table
        for position, table in zip(self.numeric, gaussian.conditionals, strict=True):
            conditionals[position] = table
        dmeta, gmeta = discrete.metadata, gaussian.metadata

        def in_order(values, positions) -> list:
            out: list = [None] * len(self.features)
            for position, value in zip(positions, values, strict=True):
                out[position] = value
            return out

        metadata = {
            **{key: dmeta[key] for key in ("epsilon", "postprocess", "oracles", "prior_raw", "prior_standard_errors",
                                           "prior_inputs", "prior_weights")},
            "mechanism": "ldp-mixed-naive-bayes",
            "approach": 3,
            "reports": stats.n,
            "reports_per_input": [int(c.n) for c in stats.categorical.per_input] + [int(stats.mean.n),
                                                                                   int(stats.square.n)],
            **{key: in_order(dmeta[key], self.categorical)
               for key in ("joint_raw", "joint_standard_errors", "conditional_raw", "conditional_standard_errors")},
            **{key: in_order(gmeta[key], self.numeric)
               for key in ("mean_standard_errors", "variance_floor", "mean_moments", "square_moments")},
        }
        independence = {key: in_order(dmeta["independence"][key], self.categorical)
                        for key in ("statistics", "df")}
        for key in ("concentration", "prior_concentration", "guard"):  # the categorical questions' shrinkage
            if key in dmeta:
                metadata[key] = dmeta[key]
        for key in ("statistics", "df"):
            for position, value in zip(self.numeric, gmeta["independence"][key], strict=True):
                independence[key][position] = value
        metadata["independence"] = independence
        model = NaiveBayesModel(self.class_attribute, self.features, discrete.prior, conditionals, metadata=metadata)
        if self.nb.postprocess == DEFAULT_POSTPROCESS:
            # The floor (``dependence``): the categorical questions' shrinkage already has it (``LDPNaiveBayes``);
            # the numeric ones are tested.
            numeric = [isinstance(a, Numeric) for a in self.features]
            return apply_floor(model, independence["statistics"], independence["df"], tested=numeric)
        return model

    # -- report schemas -------------------------------------------------------------------------------------
    def training_schema(self) -> dict:
        """``{"input": j, "report": <oracle j's wire value>}`` for j ≤ p, ``{"input": p + 1 | p + 2, "report":
        <Approach 3's wire report>}``."""
        vectors = self.gnb.vectors.wire_schema()
        cases = [(j, fo.wire_schema()) for j, fo in enumerate(self.nb.oracles)]
        return keyed_cases("input", cases + [(self.mean_input, vectors), (self.square_input, vectors)])

    @classmethod
    def report_shapes(cls) -> dict[str, dict]:
        wire = any_oracle_wire()
        vectors = loosen(OneVector(2, 2, 1.0).wire_schema())
        return {"MixedReport": obj({"input": INDEX,
                                    "report": any_of([*(wire["anyOf"] if "anyOf" in wire else [wire]), vectors])}),
                "LDPValidation": LDPProtocol.report_shapes()["LDPValidation"]}

    # -- privacy --------------------------------------------------------------------------------------------
    def privacy(self, prior_by_attribute: dict | None = None) -> dict:
        """ε as the browser realizes it (docs/privacy-figures.md, "Mixed surveys"): which input a respondent reports
        is public, so a categorical question's ε is its input's exact ε (``ldp_nb_exact_epsilons``); a numeric
        question's, the class's (every input carries it) and the respondent's are ∞, Approach 3's grid Laplace
        having outputs only one answer can give (``epsilon_note``: their probability), as for Gaussian surveys."""
        figs = ldp_nb_exact_epsilons([fo.params() for fo in self.nb.oracles], "one-report")
        per_question = {self.class_attribute.name: math.inf}
        for position, e in zip(self.categorical, figs["per_question"][1:], strict=True):
            per_question[self.features[position].name] = e
        for position in self.numeric:
            per_question[self.features[position].name] = math.inf
        respondent = math.inf
        if self.validation_share > 0:
            validation = realized_oracle_epsilon(correct_oracle(self.epsilon_per_respondent).params())
            folded = with_validation({"per_question": list(per_question.values()), "per_respondent": respondent},
                                     validation, self.validation_share)
            per_question = dict(zip(per_question, folded["per_question"], strict=True))
        numeric_mass = self.nb.k * grid_laplace_unmatched_mass(self.gnb.laplace_scale, noise.GRID, shift=2.0)
        grid = [fo for fo in self.nb.oracles if fo.browser_unmatched_mass() > 0]  # SHE/THE: bounded Laplace too
        note = ("Approach 3 adds Laplace noise to the numeric answers that the browser computes with bounded draws: a "
                "value at the very edge of the noise can only come from one answer, so no finite ε holds strictly "
                f"for the numeric questions and the class; such outputs have probability at most about "
                f"{numeric_mass:.1g} per numeric report (with ideal noise: ε = {self.nb.epsilon:g})")
        if grid:
            note += (f". {grid[0].name.upper()} does the same for the other questions: their ε is ∞ too, such outputs "
                     f"having probability about {max(fo.browser_unmatched_mass() for fo in grid):.1g} per report")
        else:
            note += ". Each categorical question's ε is exact"
        names = [self.class_attribute.name] + [a.name for a in self.features]
        return json_safe({
            "mode": "ldp",
            "epsilon_per_question": {n: per_question[n] for n in names},
            "epsilon_per_respondent": respondent,
            "epsilon_configured": self.nb.epsilon,
            "epsilon_exact": False,
            "strategy": "one-report",
            "approach": 3,
            "encodings": {n: fo.name for n, fo in zip([self.class_attribute.name]
                                                      + [a.name for a in self.nb.attributes], self.nb.oracles,
                                                      strict=True)},
            "epsilon_note": note,
            # The note's figure for the browser's own (translated) sentence: the largest probability, per report, of
            # an output only one answer can give.
            "epsilon_edge_mass": max([numeric_mass] + [fo.browser_unmatched_mass() for fo in grid]),
        })
