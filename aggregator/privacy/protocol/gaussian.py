"""The LDP Gaussian Naive Bayes survey protocol (SPEC §5b): every feature numeric, one report per respondent in a
publicly assigned group (class prior, means or squares)."""
from __future__ import annotations

import numpy as np

from .. import oracles
from ..browser_arithmetic import realized_oracle_epsilon
from ..continuous.approaches import APPROACH_CLASSES
from ..continuous.gaussian import GROUP_LABELS, MEAN, SQUARE, GaussianReports, GaussianStats, LDPGaussianNB
from ..describe import Description
from ..jsonable import json_safe
from ..oracles.wire import from_wire, to_wire
from ..postprocess import DEFAULT as DEFAULT_POSTPROCESS
from ..schema import Numeric
from ..validation import correct_oracle
from .base import LDPValidation, ReportError, SurveyProtocol, as_model
from .config import ConfigError, ldp_epsilon, ldp_parameters, numeric_settings, section
from .ldp import LDPProtocol
from .schemas import any_of, any_oracle_wire, keyed_cases, loosen, obj

__all__ = ["GaussianProtocol"]


class GaussianProtocol(LDPValidation, SurveyProtocol):
    """LDP Gaussian NB over numeric features (SPEC §5b). Wire report: ``{"group": 0 | 1 | 2, "report": …}`` with
    group 0 the class through the prior oracle (its wire value, ``oracles.wire``), 1/2 the mean/square groups in the
    approach's wire format (``continuous.approaches``)."""

    mode = "ldp"
    browser_module = "gaussian"
    description = Description(
        "gaussian", "Gaussian approaches 1, 2 and 3",
        "Ways to keep numeric answers as numbers (the model learns a mean and a spread per class). Each browser sends "
        "either its class answer, its numbers, or its numbers squared, chosen at random.",
        "The numbers sit in a table with one column per class (the respondent's in the column of their class, zeros "
        "elsewhere). Approach 1: the whole table, with Laplace noise on every entry. Approach 2: a single random +1 "
        "or −1 about one entry of the table. Approach 3: one number's row, picked at random, with Laplace noise.",
        "SPEC §5b")
    stats_type = GaussianStats
    privacy_settings = ("epsilon", "encoding")  # the encoding of the class prior's oracle
    grouped_privacy = False
    report_keys = frozenset({"group", "report"})

    def __init__(self, config: dict):
        super().__init__(config)
        if not all(isinstance(a, Numeric) for a in self.features):
            raise ConfigError("numeric.handling",
                              "Gaussian Naive Bayes needs every feature question to be numeric (or discretize them)")
        ldp = section(config, "ldp")
        epsilon = ldp_epsilon(config)
        encoding = ldp.get("encoding", "adaptive")
        prior_oracle = oracles.get(encoding, epsilon=epsilon, domain=self.class_attribute.size,
                                   **ldp_parameters(config))  # "adaptive": the instance of its choice
        self.gnb = self.mechanism = LDPGaussianNB(
            self.class_attribute, self.features, epsilon, approach=numeric_settings(config)[2],
            prior_oracle=prior_oracle, postprocess=ldp.get("postprocess", DEFAULT_POSTPROCESS),
        )
        fo = self.gnb.prior_oracle
        self.check_browser_epsilon([(fo.name, fo.epsilon, fo.domain), (self.gnb.vectors.browser_noise, epsilon, None)])

    def to_model_input(self, X) -> np.ndarray:
        return self.project(X)

    @property
    def epsilon_per_respondent(self) -> float:
        return self.gnb.epsilon

    # -- capabilities (``SurveyProtocol``; validation ones from ``LDPValidation``) ---------------------------
    def checked_oracles(self) -> list:
        """The class-prior oracle; the vector groups are bounded by their wire check instead."""
        return [(f"class {self.class_attribute.name}: ", self.gnb.prior_oracle)]

    def checked_reports(self, reports: GaussianReports) -> tuple:
        return (reports.prior,)

    def assignment_probabilities(self) -> np.ndarray:
        """The published shares of the prior, mean and square groups (SPEC §5b)."""
        return self.gnb.shares

    def assignment_groups(self, stats: GaussianStats) -> list[tuple[str, int]]:
        return [(GROUP_LABELS[MEAN], stats.mean.n), (GROUP_LABELS[SQUARE], stats.square.n)]

    def conditional_standard_errors(self, model) -> tuple[str, list | None]:
        """("delta", per attribute the (k,) SEs of μ_c in the attribute's units, ``mean_standard_errors``), or
        ("none", None) for a model without them."""
        se = as_model(model).metadata.get("mean_standard_errors")
        if se is None:
            return "none", None
        return "delta", [np.asarray(row, dtype=np.float64) for row in se]

    # -- wire -------------------------------------------------------------------------------------------------
    def public(self) -> dict:
        return {**self.public_base(), "ldp": self.gnb.params()}

    def encode(self, X, y, rng) -> list[dict]:
        reports = self.gnb.perturb(self.project(X), y, rng)
        wires = [to_wire(self.gnb.prior_oracle, reports.prior), self.gnb.vectors_to_wire(reports.mean),
                 self.gnb.vectors_to_wire(reports.square)]
        position = [0, 0, 0]
        out = []
        for g in reports.group:
            out.append({"group": int(g), "report": wires[g][position[g]]})
            position[g] += 1
        return out

    def _vectors_from_wire(self, values: list):
        """Mean/square group reports → engine vectors (the approach's wire check: indices and signs int64 integers,
        vector components finite numbers on the noise grid within ``wire.grid_noise_bound``, SPEC §5b)."""
        try:
            return self.gnb.vectors_from_wire(values)
        except (TypeError, ValueError) as exc:
            raise ReportError("report", str(exc)) from None

    def parse(self, payloads: list) -> GaussianReports:
        groups: list[int] = []
        per: list[list] = [[], [], []]
        for p in payloads:
            g = p.get("group") if isinstance(p, dict) else None
            if not isinstance(g, int) or isinstance(g, bool) or g not in (0, 1, 2):
                raise ReportError("group", "must be 0 (class), 1 (mean) or 2 (square)")
            if "report" not in p:
                raise ReportError("report", "is required")
            groups.append(g)
            per[g].append(p["report"])
        try:
            prior = from_wire(self.gnb.prior_oracle, per[0])
        except ValueError as exc:
            raise ReportError("report", str(exc)) from None
        return GaussianReports(np.asarray(groups, dtype=np.int64), prior, self._vectors_from_wire(per[1]),
                               self._vectors_from_wire(per[2]))

    # -- report schemas ---------------------------------------------------------------------------------------
    def training_schema(self) -> dict:
        """``{"group": 0, "report": <prior oracle's wire value>}`` or ``{"group": 1 | 2, "report": <the approach's
        wire report>}`` (``continuous.approaches``)."""
        vectors = self.gnb.vectors.wire_schema()
        return keyed_cases("group", [(0, self.gnb.prior_oracle.wire_schema()), (1, vectors), (2, vectors)], "report")

    @classmethod
    def report_shapes(cls) -> dict[str, dict]:
        approaches = [loosen(c(2, 2, 1.0).wire_schema()) for c in APPROACH_CLASSES.values()]
        wire = any_oracle_wire()
        report = any_of([*(wire["anyOf"] if "anyOf" in wire else [wire]), *approaches])
        return {"GaussianReport": obj({"group": {"type": "integer", "enum": [0, 1, 2]}, "report": report}),
                "LDPValidation": LDPProtocol.report_shapes()["LDPValidation"]}

    # -- privacy ----------------------------------------------------------------------------------------------
    def privacy(self, prior_by_attribute: dict | None = None) -> dict:
        """ε of the browser's reports (docs/privacy-figures.md, "Gaussian Naive Bayes"). Each respondent sends one
        report of a publicly drawn group — the class through the prior oracle, or a vector group — so ε per
        respondent is the largest group's ε as the browser realizes it, and it bounds every question (an upper
        bound: not the exact per-question figure, ``epsilon_exact`` false). Approach 2's Duchi bit is finite and
        exact; Approaches 1 and 3 add grid Laplace noise from bounded draws, so no finite pure ε holds strictly:
        ∞, with the probability of the outputs only one answer can give in ``epsilon_note``."""
        names = [self.class_attribute.name] + [a.name for a in self.features]
        vectors = self.gnb.vectors
        figures = [realized_oracle_epsilon(self.gnb.prior_oracle.params()), vectors.realized_epsilon()]
        note = None
        mass = vectors.unmatched_mass()
        if mass > 0:
            note = (f"Approach {self.gnb.approach} adds Laplace noise that the browser computes with bounded draws: a "
                    "value at the very edge of the noise can only come from one answer, so no finite ε holds "
                    f"strictly; such outputs have probability at most about {mass:.1g} per report (with ideal noise: "
                    f"ε = {self.gnb.epsilon:g})")
        if self.validation_share > 0:
            figures.append(realized_oracle_epsilon(correct_oracle(self.epsilon_per_respondent).params()))
        epsilon = max(figures)
        out = {
            "mode": "ldp",
            "epsilon_per_question": {n: epsilon for n in names},
            "epsilon_per_respondent": epsilon,
            "epsilon_configured": self.gnb.epsilon,
            "epsilon_exact": False,
            "approach": self.gnb.approach,
        }
        if note:
            out["epsilon_note"] = note
            out["epsilon_edge_mass"] = mass  # the note's figure, for the page's own sentence (static/js/words.mjs)
        return json_safe(out)
