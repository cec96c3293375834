"""The LDP Naive Bayes survey protocol (SPEC §3–§4): categorical (or discretized) features through frequency
oracles, one report per respondent (one-report: a publicly assigned input) or one per input (split)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import allocation
from ..assignment import cdf, check_probabilities
from ..browser_epsilon import realized_oracle_epsilon
from ..describe import Description
from ..exact_epsilon import ldp_nb_exact_epsilons, with_validation
from ..jsonable import json_safe
from ..naive_bayes.fit import fit_nonprivate
from ..naive_bayes.ldp import LDPNaiveBayes, LDPNBReports, LDPNBStats
from ..naive_bayes.model import NaiveBayesModel
from ..oracles.wire import from_wire, to_wire
from ..postprocess import DEFAULT as DEFAULT_POSTPROCESS
from ..postprocess import to_distribution
from ..public_prior import reference_counts, with_public_prior
from ..validation import correct_oracle
from .base import (
    LDPValidation,
    ReportError,
    SurveyProtocol,
    discrete_conditional_standard_errors,
    one_report_inputs,
    one_report_payloads,
)
from .config import ConfigError, ldp_allocation, ldp_epsilon, ldp_parameters, ldp_reference_prior, section
from .schemas import INDEX, any_oracle_wire, array_of, keyed_cases, ldp_validation_inner, loosen, obj, validation_shape

__all__ = ["LDPProtocol"]


class LDPProtocol(LDPValidation, SurveyProtocol):
    """LDP Naive Bayes over categorical (or discretized) features (SPEC §3–§4).

    Wire report — one-report: ``{"input": j, "report": <oracle wire value>}``; split: ``{"reports": [one per input]}``
    (each oracle's wire value, ``oracles.wire``).
    """

    mode = "ldp"
    browser_module = "ldp-nb"
    title = "Local differential privacy (ε)"
    description = Description(
        "ldp", "LDP (local differential privacy)",
        "A guarantee about each respondent's randomized report: whatever the true answers, any report is at most e^ε "
        "times more likely under one set of answers than under another.",
        "“Local” because the disguise happens on the respondent's device, before the survey receives anything. An "
        "LDP survey uses one of the encodings below.", "SPEC §3–§4")
    stats_type = LDPNBStats
    privacy_settings = ("epsilon", "encoding")
    grouped_privacy = False

    def __init__(self, config: dict):
        super().__init__(config)
        ldp = section(config, "ldp")
        params: dict[str, Any] = ldp_parameters(config)
        self.nb = self.mechanism = LDPNaiveBayes(
            self.class_attribute,
            self.engine_features(),
            ldp_epsilon(config),
            oracle=ldp.get("encoding", "adaptive"),
            strategy=ldp.get("strategy", "one-report"),
            postprocess=ldp.get("postprocess", DEFAULT_POSTPROCESS),
            **params,
        )
        self.allocation = ldp_allocation(config)
        self.publishes_assignment = self.allocation == "adaptive"
        self.reference_prior = ldp_reference_prior(config)
        counts = ldp.get("reference_counts") if self.reference_prior else None
        self.prior_counts = None if counts is None else self._checked_counts(counts)
        self.check_browser_epsilon(
            [(fo.name, fo.epsilon, fo.domain) for fo in self.nb.oracles])

    @property
    def report_keys(self) -> frozenset:
        return frozenset({"input", "report"} if self.nb.strategy == "one-report" else {"reports"})

    @property
    def epsilon_per_respondent(self) -> float:
        return self.nb.epsilon_per_respondent

    # -- capabilities (``SurveyProtocol``; validation ones from ``LDPValidation``) ---------------------------
    def checked_oracles(self) -> list:
        """Every input: the class, then each feature × class (SPEC §4)."""
        klass = self.class_attribute.name
        labels = [f"class {klass}: "] + [f"{a.name} × {klass}: " for a in self.nb.attributes]
        return list(zip(labels, self.nb.oracles, strict=True))

    def checked_reports(self, reports: LDPNBReports) -> tuple:
        return tuple(reports.per_input)

    def assignment_probabilities(self) -> np.ndarray | None:
        """One-report: the published probabilities a_j of each input (SPEC §4); split: ``None``. Adaptive allocation:
        ``None`` too — its probabilities change from day to day, so the plausibility statistics carry each day's
        expected counts instead (``plausibility.report_checks``)."""
        return self.nb.assignment if self.nb.strategy == "one-report" and self.allocation == "uniform" else None

    def served_assignment(self, stored) -> np.ndarray | None:
        """A stored assignment (a version's ``next_assignment``, a reference sample's ``pilot_assignment``) as the
        browser runs it: probabilities of every input, each positive (an input of probability 0 would change the
        privacy figures), summing to 1; ``None`` — the uniform assignment — for anything else, or under uniform
        allocation. The protocol API, the fold's expected counts and the dashboard all read it through here."""
        if stored is None or self.allocation != "adaptive":
            return None
        try:
            a = check_probabilities(stored, len(self.nb.oracles), "assignment")
        except (TypeError, ValueError):
            return None
        return a if np.all(a > 0) else None

    def next_assignment(self, model, stats: LDPNBStats) -> list[float] | None:
        """Adaptive allocation: the assignment for the respondents to come, from a published ``model`` and the
        statistics it was estimated from, planned for as many reports again (``allocation.weights``). The signal is
        read from the raw joint estimates made distributions by Norm-Sub — not from the model's shrunk conditionals,
        whose noise the shrinkage already removed. ``None`` under uniform allocation."""
        if self.allocation != "adaptive":
            return None
        prior = model.metadata.get("prior_raw", model.prior)
        conditionals = [np.column_stack([to_distribution(column, "norm-sub") for column in np.asarray(joint).T])
                        for joint in model.metadata["joint_raw"]]
        variances = [fo.count_variance(1) for fo in self.nb.oracles]
        return allocation.weights(to_distribution(np.asarray(prior, dtype=np.float64), "norm-sub"), conditionals,
                                  variances, [c.n for c in stats.per_input]).tolist()

    def _checked_counts(self, counts) -> list[np.ndarray] | None:
        """``ldp.reference_counts``: per question an (answers × classes) table of finite counts ≥ 0. Tables that no
        longer fit the questions (edited since the sample was counted; saving the draft refits them) are not used:
        ``None``, as a stored assignment that no longer fits is not."""
        k = self.class_attribute.size
        try:
            tables = [np.asarray(c, dtype=np.float64) for c in counts]
        except (TypeError, ValueError):
            raise ConfigError("ldp.reference_counts", "the reference counts must be tables of numbers") from None
        if [t.shape for t in tables] != [(a.size, k) for a in self.nb.attributes]:
            return None
        if any(not np.all(np.isfinite(t)) or np.any(t < 0) for t in tables):
            raise ConfigError("ldp.reference_counts", "the reference counts need one (answers × classes) table of "
                                                      "counts ≥ 0 per question: refit them from the reference sample")
        return tables

    @property
    def reference_prior_ready(self) -> bool:
        return self.prior_counts is not None

    def reference_counts(self, X, y) -> list[list[list[float]]]:
        """The public sample's (answer, class) counts per question (question-order records ``X``, class codes ``y``,
        e.g. ``records`` of the designer's reference sample): what ``ldp.reference_counts`` takes."""
        y = np.asarray(y, dtype=np.int64)
        if y.size == 0:
            raise ValueError("the sample has no rows")
        tables = reference_counts(self.to_model_input(X).astype(np.int64), y, self.nb.attributes,
                                  self.class_attribute.size)
        return [t.tolist() for t in tables]

    def estimate(self, stats) -> NaiveBayesModel:
        """The mechanism's estimate; with the reference sample's prior (``ldp.reference_prior`` and its counts), every
        conditional the posterior mean under it, weighted by the reports (``public_prior.with_public_prior``)."""
        model = self.nb.estimate(stats)
        return model if self.prior_counts is None else with_public_prior(model, self.prior_counts)

    def pilot_assignment(self, X, y, respondents: int | None = None) -> list[float] | None:
        """Adaptive allocation: the assignment a *public* sample (question-order records ``X`` and class codes ``y``,
        e.g. ``records`` of the designer's reference sample) sets before the first model: its add-½ smoothed counts
        taken as known parameters, planned for ``respondents`` reports (default ``allocation.PILOT_REPORTS_PER_INPUT``
        per input; ``allocation.weights``, ``estimated=False``); ``None`` under uniform allocation."""
        if self.allocation != "adaptive":
            return None
        y = np.asarray(y, dtype=np.int64)
        if y.size == 0:
            raise ValueError("the sample has no rows")
        model = fit_nonprivate(self.class_attribute, self.nb.attributes, self.to_model_input(X).astype(np.int64), y,
                               alpha=0.5)
        variances = [fo.count_variance(1) for fo in self.nb.oracles]
        return allocation.weights(model.prior, model.conditionals, variances,
                                  batch=respondents or allocation.PILOT_REPORTS_PER_INPUT * len(self.nb.oracles),
                                  estimated=False).tolist()

    def public_with(self, assignment=None, source: str = "model") -> dict:
        """``public()`` with the assignment of the day in place of the uniform one (adaptive allocation):
        ``served_assignment(assignment)``, and ``assignment_source`` — "model" (set by a published version),
        "sample" (by the public reference sample) or "uniform" (neither yet, or a stored one that does not fit) —
        for the words shown to respondents."""
        public = self.public()
        if self.allocation != "adaptive":
            return public
        a = self.served_assignment(assignment)
        ldp = {**public["ldp"], "assignment_source": "uniform" if a is None else source}
        if a is not None:
            ldp.update(assignment=a.tolist(), assignment_cdf=cdf(a).tolist())
        return {**public, "ldp": ldp}
        a = check_probabilities(assignment, len(self.nb.oracles), "assignment")
        if np.any(a <= 0):
            raise ValueError("every input needs a positive assignment probability")
        public["ldp"] = {**public["ldp"], "assignment": a.tolist(), "assignment_cdf": cdf(a).tolist()}
        return public

    def conditional_standard_errors(self, model) -> tuple[str, list | None]:
        """("delta", the model's published ``conditional_standard_errors``), or ("none", None) without them."""
        return discrete_conditional_standard_errors(model)

    # -- wire -------------------------------------------------------------------------------------------------
    def public(self) -> dict:
        """The browser's protocol; adaptive allocation adds ``"allocation": "adaptive"`` (a uniform survey's protocol
        is as before it existed, so the memo bound to its hash stays valid)."""
        extra = {"allocation": "adaptive"} if self.allocation == "adaptive" else {}
        return {**self.public_base(), "ldp": {**self.nb.params(), **extra}}

    def encode(self, X, y, rng) -> list[dict]:
        reports = self.nb.perturb(self.to_model_input(X).astype(np.int64), np.asarray(y), rng)
        wires = [to_wire(fo, r) for fo, r in zip(self.nb.oracles, reports.per_input, strict=True)]
        if reports.assigned is None:
            return [{"reports": [w[i] for w in wires]} for i in range(reports.n)]
        return one_report_payloads(wires, reports.assigned)

    def parse(self, payloads: list) -> LDPNBReports:
        inputs = len(self.nb.oracles)
        if self.nb.strategy == "one-report":
            per_input, assigned = one_report_inputs(payloads, inputs)
        else:
            per_input, assigned = [[] for _ in range(inputs)], []
            for p in payloads:
                if not isinstance(p, dict):
                    raise ReportError("report", "must be a JSON object")
                reports = p.get("reports")
                if not isinstance(reports, list) or len(reports) != inputs:
                    raise ReportError("reports", f"must be a list of {inputs} reports")
                for j, r in enumerate(reports):
                    per_input[j].append(r)
        parsed = []
        for j, (fo, values) in enumerate(zip(self.nb.oracles, per_input, strict=True)):
            try:
                parsed.append(from_wire(fo, values))
            except ValueError as exc:
                raise ReportError("report" if self.nb.strategy == "one-report" else f"reports[{j}]", str(exc)) from None
        return LDPNBReports(len(payloads), tuple(parsed), np.asarray(assigned, dtype=np.int64) if assigned else None)

    # -- report schemas ---------------------------------------------------------------------------------------
    def training_schema(self) -> dict:
        """One-report: ``{"input": j, "report": <oracle j's wire value>}``; split: ``{"reports": [one per input]}``."""
        wires = [fo.wire_schema() for fo in self.nb.oracles]
        if self.nb.strategy == "one-report":
            return keyed_cases("input", list(enumerate(wires)))
        return obj({"reports": array_of(wires)})

    @classmethod
    def report_shapes(cls) -> dict[str, dict]:
        wire = any_oracle_wire()
        return {"LDPOneReport": obj({"input": INDEX, "report": wire}),
                "LDPSplitReports": obj({"reports": {"type": "array", "items": wire}}),
                "LDPValidation": validation_shape(loosen(ldp_validation_inner({"enum": [0, 1]})))}

    # -- privacy ----------------------------------------------------------------------------------------------
    def exact_epsilons(self) -> dict:
        """``exact_epsilon.ldp_nb_exact_epsilons`` of the oracles as the browser runs them, with the validation
        report folded in when there is a validation share (``with_validation``)."""
        figs = ldp_nb_exact_epsilons([fo.params() for fo in self.nb.oracles], self.nb.strategy,
                                     assignment=self.nb.assignment)
        if self.validation_share > 0:
            validation = realized_oracle_epsilon(correct_oracle(self.epsilon_per_respondent).params())
            figs = with_validation(figs, validation, self.validation_share)
        return figs

    def privacy(self, prior_by_attribute: dict | None = None) -> dict:
        """Exact ε (SPEC §2 "Exact ε per question and per respondent", ``exact_epsilon``) per question — the class
        through every input that carries it (split: the sum), a feature through its own input; the validation
        report's ε where it is larger — and per respondent, from the probabilities the browser realizes (SHE/THE: the
        browser's grid Laplace is bounded, so their pure ε is ∞ — ``browser_arithmetic``). JSON-ready: ∞ is
        "Infinity" (``json_safe``); ``epsilon_configured`` is the ε the survey asked for."""
        figs = self.exact_epsilons()
        names = [self.class_attribute.name] + [a.name for a in self.features]
        out = {
            "mode": "ldp",
            "epsilon_per_question": dict(zip(names, figs["per_question"], strict=True)),
            "epsilon_per_respondent": figs["per_respondent"],
            "epsilon_configured": self.nb.epsilon_per_respondent,
            "epsilon_exact": True,
            "strategy": self.nb.strategy,
            "encodings": {n: fo.name for n, fo in zip(names, self.nb.oracles, strict=True)},
        }
        grid = [fo for fo in self.nb.oracles if fo.browser_unmatched_mass() > 0]
        if grid:
            mass = sum(fo.browser_unmatched_mass() for fo in grid)
            out["epsilon_note"] = (
                f"{grid[0].name.upper()} adds Laplace noise that the browser computes with bounded draws: a value at "
                f"the very edge of the noise can only come from one answer, so no finite ε holds strictly; such "
                f"outputs have probability about {mass:.1g} per respondent (with ideal noise: ε = "
                f"{self.nb.epsilon_per_respondent:g}, {', '.join(f'{fo.epsilon:g}' for fo in grid[:1])} per input)")
            out["epsilon_edge_mass"] = mass  # the note's figure, for the page's own sentence (static/js/words.mjs)
        return json_safe(out)
