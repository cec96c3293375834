"""The MRR survey protocol (SPEC §2): unrelated-question multi-variant randomized response over every question."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..browser_arithmetic import check_supported_personal
from ..dependence import apply_floor
from ..describe import Description
from ..exact_epsilon import mrr_exact_epsilons
from ..jsonable import json_safe
from ..mrr import MRRScheme, MRRStats, independence_statistics, randomized_accuracy
from ..naive_bayes.model import NaiveBayesModel
from ..oracles.wire import integer_schema, is_int
from ..postprocess import DEFAULT as DEFAULT_POSTPROCESS
from ..pse import pse_after_mining, pse_after_mining_bayes, pse_entry
from ..validation import AccuracyEstimate, RecordHistogram
from .base import VALIDATION_KEY, ReportError, SurveyProtocol, discrete_conditional_standard_errors
from .config import ConfigError, mrr_groups, mrr_theta, section
from .schemas import INDEX, array_of, obj, validation_shape

__all__ = ["MRRProtocol"]


class MRRProtocol(SurveyProtocol):
    """Unrelated-question MRR (SPEC §2). Wire report: ``{"answers": [code per feature…, class code]}``; a validation
    respondent randomizes exactly like a training one and sends ``{"validation": {"answers": […]}}``."""

    mode = "mrr"
    browser_module = "mrr"
    title = "Unrelated-question randomized response (θ)"
    description = Description(
        "mrr", "MRR (randomized response with unrelated questions)",
        "The browser flips a biased coin that only it sees: with probability θ it sends the respondent's true "
        "answers, otherwise stand-in answers (drawn at random, or the answers to an unrelated question).",
        "The record looks the same either way, so nobody can tell whether a given record is true. With several "
        "question groups, each group has its own coin and its own θ.", "SPEC §2",
        "Randomized response: each record sent true or replaced by stand-ins (choose θ)", plan_default=True)
    stats_type = MRRStats
    validation_type = RecordHistogram
    report_keys = validation_keys = frozenset({"answers"})
    accuracy_at_publication = True
    validation_needs_model = False
    privacy_settings = ("theta",)
    grouped_privacy = True

    def __init__(self, config: dict):
        super().__init__(config)
        mrr = section(config, "mrr")
        attrs = self.engine_features() + [self.class_attribute]
        names = [a.name for a in attrs]
        groups = mrr_groups(config)
        if groups is not None:
            try:
                groups = [[names.index(name) for name in g] for g in groups]
            except ValueError as exc:
                raise ConfigError("mrr.groups", f"group names unknown question: {exc}") from None
            if sorted(i for g in groups for i in g) != list(range(len(attrs))) or not all(groups):
                raise ConfigError("mrr.groups", "the groups must put every question in exactly one group")
        personal = mrr.get("personal") or {}
        dists = [personal.get(a.name) for a in attrs]
        dists = [d if d is not None else [1.0 / a.size] * a.size for d, a in zip(dists, attrs, strict=True)]
        self.personal_mode = {a.name: (mrr.get("personal_mode") or {}).get(a.name, "simulated") for a in attrs}
        self.postprocess = mrr.get("postprocess", DEFAULT_POSTPROCESS)
        try:  # everything else is checked: only the personal distributions can be wrong here
            self.scheme = self.mechanism = MRRScheme(attrs, class_index=len(attrs) - 1, theta=mrr_theta(config),
                                                     groups=groups, personal=dists)
            # the browser's inverse CDF must realize every positive P_Y (SPEC §2; ``browser_arithmetic``)
            check_supported_personal(self.scheme.personal, names)
        except (TypeError, ValueError) as exc:
            raise ConfigError("mrr.personal", str(exc)) from None

    # -- capabilities (``SurveyProtocol``) ---------------------------------------------------------------------
    def validated_version(self, payload) -> None:
        """``None``: an MRR validation record names no version (each version's accuracy uses every record folded
        before its publication)."""
        return None

    def checked_oracles(self) -> list:
        """[]: MRR reports are randomized records, not frequency-oracle reports."""
        return []

    def checked_reports(self, reports) -> tuple:
        return ()

    def assignment_probabilities(self) -> None:
        """``None``: every MRR respondent answers every question."""
        return None

    def conditional_standard_errors(self, model) -> tuple[str, list | None]:
        """("bound", the conservative Cauchy–Schwarz SEs of P(a | c) from the published raw joint and prior SEs,
        ``mrr.conditional_standard_error_bound``), or ("none", None) for a model without them."""
        return discrete_conditional_standard_errors(model)

    # -- wire -------------------------------------------------------------------------------------------------
    def public(self) -> dict:
        return {**self.public_base(), "mrr": {**self.scheme.params(), "personal_mode": self.personal_mode}}

    def encode(self, X, y, rng) -> list[dict]:
        R = self.scheme.perturb(np.column_stack([self.to_model_input(X), y]).astype(np.int64), rng)
        return [{"answers": [int(v) for v in row]} for row in R]

    def parse(self, payloads: list) -> np.ndarray:
        m = len(self.scheme.attributes)
        rows = []
        for p in payloads:
            answers = p.get("answers") if isinstance(p, dict) else None
            if not isinstance(answers, list) or len(answers) != m:
                raise ReportError("answers", f"must be a list of {m} answer codes")
            if not all(is_int(v) for v in answers):
                raise ReportError("answers", "must hold integer codes")
            rows.append(answers)
        try:
            return self.scheme.validate(np.asarray(rows, dtype=np.int64).reshape(len(rows), m))
        except ValueError as exc:
            raise ReportError("answers", str(exc)) from None

    # -- report schemas ---------------------------------------------------------------------------------------
    def training_schema(self) -> dict:
        """``{"answers": [a code in [0, size) per question, features then class]}``."""
        return obj({"answers": array_of([integer_schema(0, a.size - 1) for a in self.scheme.attributes])})

    def validation_schema(self) -> dict:
        """A validation record is randomized as a training one."""
        return self.training_schema()

    @classmethod
    def report_shapes(cls) -> dict[str, dict]:
        record = obj({"answers": {"type": "array", "items": INDEX}})
        return {"MRRReport": record, "MRRValidation": validation_shape(record)}

    # -- the validation share ---------------------------------------------------------------------------------
    def parse_validation(self, inner: list) -> np.ndarray:
        return self.parse(inner)

    def fold_validation(self, inner: list) -> RecordHistogram:
        return RecordHistogram.fold(self.parse_validation(inner)) if inner else RecordHistogram()

    def encode_validation(self, X, y, rng, published=None) -> list[dict]:
        """A validation respondent randomizes exactly like a training one; only the marking differs."""
        return [{VALIDATION_KEY: report} for report in self.encode(X, y, rng)]

    def accuracy(self, model: NaiveBayesModel, validation: RecordHistogram, version=None) -> AccuracyEstimate | None:
        """Randomized-test-record accuracy (SPEC §2) of ``model`` on every validation record; ``None`` without any.
        P_Y(cc) is computed exactly, or by Monte Carlo with a fixed seed on large personal spaces."""
        if validation.n == 0:
            return None
        est, se = randomized_accuracy(model.predict, validation.records(), self.scheme, rng=np.random.default_rng(0))
        return AccuracyEstimate(est, se, validation.n, "mrr-randomized-test-records")

    # -- estimation and privacy -------------------------------------------------------------------------------
    def estimate(self, stats) -> NaiveBayesModel:
        est = self.scheme.estimate(stats, postprocess=self.postprocess)
        model = est.to_model()
        model.metadata.update({
            "mechanism": "mrr",
            "reports": int(stats.n),
            "prior_raw": est.prior_raw,
            "prior_standard_errors": est.prior_se,
            "joint_raw": list(est.joint_raw),
            "joint_standard_errors": list(est.joint_se),
        })
        statistics, dfs = independence_statistics(self.scheme, stats, est)
        model.metadata["independence"] = {"statistics": statistics, "df": dfs}
        if self.postprocess == DEFAULT_POSTPROCESS:  # the floor (``dependence``): untrusted questions left out
            return apply_floor(model, statistics, dfs)
        return model

    #: Which ε figure is which (shown beside them when a group holds a real personal question).
    KNOWN_PERSONAL_NOTE = ("“known personal” figures are against someone who knows the respondent's answers to the "
                           "real unrelated questions: a group holding one is then sent true detectably (ε = ∞); the "
                           "other figures are against someone who does not know them")

    def exact_epsilons(self) -> dict:
        """``exact_epsilon.mrr_exact_epsilons`` of this scheme with the browser's realized θ and P_Y (SPEC §2)."""
        s = self.scheme
        real = [i for i, a in enumerate(s.attributes) if self.personal_mode[a.name] == "real"]
        return mrr_exact_epsilons(s.thetas, s.groups, s.personal, real=real)

    def privacy(self, prior_by_attribute: dict | None = None) -> dict:
        """Exact ε (SPEC §2 "Exact ε per question and per respondent", ``exact_epsilon.mrr_exact_epsilons``) per
        question — changing one answer moves its whole group, so a question has its group's ε —, per group and per
        respondent (groups compose), each also against someone who knows the real personal answers ("…_known_personal":
        ∞ for a group holding a real personal question); PSE per question with the given true-value priors (default
        uniform: before any data), and per group (the minimum, SPEC §2). JSON-ready: ∞ is "Infinity" (``json_safe``)."""
        s = self.scheme
        names = [a.name for a in s.attributes]
        ex = self.exact_epsilons()
        pse = {}
        for i, a in enumerate(s.attributes):
            prior = (prior_by_attribute or {}).get(a.name, np.full(a.size, 1.0 / a.size))
            pse[a.name] = pse_entry(prior, s.theta_of(i), s.personal[i])
        groups: list[dict[str, Any]] = []
        for g, members in enumerate(s.groups):
            groups.append({
                "attributes": [names[i] for i in members],
                "theta": s.thetas[g],
                "epsilon": ex["per_group"][g],
                "epsilon_known_personal": ex["per_group_known_personal"][g],
                "pse": min(pse[names[i]] for i in members),
            })
        out = {
            "mode": "mrr",
            "epsilon_per_question": dict(zip(names, ex["per_question"], strict=True)),
            "epsilon_per_respondent": ex["per_respondent"],
            "epsilon_per_question_known_personal": dict(zip(names, ex["per_question_known_personal"], strict=True)),
            "epsilon_per_respondent_known_personal": ex["per_respondent_known_personal"],
            "epsilon_exact": True,
            "real_personal": [n for n in names if self.personal_mode[n] == "real"],
            "pse_per_question": pse,
            "groups": groups,
        }
        if out["real_personal"]:
            out["epsilon_note"] = self.KNOWN_PERSONAL_NOTE
        return json_safe(out)

    def model_privacy(self, model: NaiveBayesModel) -> dict:
        """``privacy()`` with PSE before and after mining for an estimated model, per question and per group: the
        default "after" is the informative form (SPEC §2 "PSE after mining, informative form",
        ``pse.pse_after_mining_bayes``: a Bayes adversary with the whole record and the model; exact or Monte Carlo
        with its standard error), the paper-literal one (seed 004 §4.2, Scenario II, ``pse.pse_after_mining``) is kept
        as ``pse_after_mining_paper``."""
        bayes = pse_after_mining_bayes(self.scheme, model.prior, model.conditionals)
        paper = pse_after_mining(self.scheme, model.prior, model.conditionals)
        names = [a.name for a in self.scheme.attributes]
        out = self.privacy()  # pse_per_question there: uniform priors, the figure known before any data

        def per_question(values) -> dict:
            return dict(zip(names, map(float, values), strict=True))

        out["pse_before_mining"] = per_question(bayes["before"])
        out["pse_after_mining"] = per_question(bayes["after"])
        out["pse_after_mining_se"] = per_question(bayes["after_se"])
        out["pse_after_mining_method"] = bayes["method"]
        out["pse_after_mining_samples"] = int(bayes["samples"])
        out["pse_after_mining_paper"] = per_question(paper["after"])
        for g, group in enumerate(out["groups"]):
            group["pse_before_mining"] = float(bayes["group_before"][g])
            group["pse_after_mining"] = float(bayes["group_after"][g])
            lowest = min(self.scheme.groups[g], key=lambda i: bayes["after"][i])  # the entry giving the minimum
            group["pse_after_mining_se"] = float(bayes["after_se"][lowest])
            group["pse_after_mining_paper"] = float(paper["group_after"][g])
        return json_safe(out)
