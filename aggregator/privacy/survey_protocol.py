"""A whole survey's randomization protocol, built from a plain configuration dict (the engine's single entry point
for the web app, the ``simulate`` command and the lab).

Configuration (JSON-able; ``survey_app.models.Survey.protocol_config()`` produces it)::

    {"mode": "ldp" | "mrr",
     "class": {"kind": "categorical", "name": ..., "values": [...]},
     "features": [{"kind": "categorical", ...} | {"kind": "numeric", "name": ..., "low": ..., "high": ...}, ...],
     "numeric": {"handling": "discretize", "bins": 4} | {"handling": "gaussian", "approach": 1 | 2 | 3},
     "ldp": {"epsilon": 1.0, "encoding": "oue", "threshold": null, "strategy": "one-report", "postprocess": "norm-sub"},
     "mrr": {"theta": 0.7, "groups": [[names…], …] | null, "personal": {name: [P_Y…]}, "personal_mode": {name: "simulated" | "real"},
             "postprocess": "norm-sub"},
     "validation": {"share": 0.1}}

``"projection"`` (optional): a ``continuous.projection.Projection`` dict fitted on the numeric questions of a public
reference sample; the numeric answers are standardised, projected and clipped before anything else (SPEC §5c).

Numeric features are discretized into equal-width bins over their public bounds (SPEC §5a) unless the LDP
"gaussian" handling is chosen (SPEC §5b; then every feature must be numeric). A protocol offers:

* ``public()`` — everything the browser needs, nothing secret;
* ``encode(X, y, rng)`` — simulated respondents' reports in wire form (the client halves), for demos and tests;
* ``parse(payloads)`` — wire reports → engine reports, ``ReportError`` naming the field on bad input;
  ``parse_one(payload)`` — one report as the API receives it, also refusing keys the wire format does not have
  (``report_keys``, ``validation_keys``: the API stores the payload verbatim, so nothing else may ride along);
* ``fold(payloads)`` → additive statistics; ``stats_to_dict`` / ``stats_from_dict``; ``zero_stats()``;
* ``estimate(stats)`` → ``NaiveBayesModel``; ``privacy()`` → ε per question and per respondent (and PSE for MRR).

The validation share (``privacy/validation.py``): a share of respondents sends ``{"validation": …}`` instead of a
training report — MRR: ``{"validation": {"answers": […]}}`` (a randomized record, as for training); LDP:
``{"validation": {"version": v, "report": 0 | 1}}`` (was model version v right on my true answers? through binary RR).
``split(payloads)`` separates the two kinds; ``fold_validation`` / ``zero_validation`` / ``validation_to_dict`` /
``validation_from_dict`` handle their additive statistics; ``accuracy(model, validation, version)`` estimates a
model's accuracy from them; ``encode_validation`` and ``respond`` (one respondent, the browser's draw order) are the
client halves.

Records given to ``encode`` and to the model use the *configured* features: codes for categorical ones, values for
numeric ones (``to_model_input`` bins them where the protocol discretizes).
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from . import oracles
from .channel import mrr_epsilon, mrr_group_epsilon
from .continuous.discretize import ewd_attribute, ewd_codes
from .continuous.gaussian import GaussianReports, GaussianStats, LDPGaussianNB
from .continuous.projection import Projection
from .mrr import MRRScheme, MRRStats
from .naive_bayes.ldp import LDPNaiveBayes, LDPNBReports, LDPNBStats
from .naive_bayes.model import NaiveBayesModel
from .oracles.wire import check_grid_values, from_wire, is_int, is_number, to_wire
from .pse import pse_after_mining, pse_entry
from .schema import Categorical, Numeric, attribute_from_dict
from .mrr import randomized_accuracy
from .validation import AccuracyEstimate, RecordHistogram, VersionCounts, correct_oracle, ldp_accuracy

__all__ = ["ReportError", "SurveyProtocol", "MRRProtocol", "LDPProtocol", "GaussianProtocol", "build",
           "MAX_VALIDATION_SHARE"]

#: At most this share of respondents validates instead of training.
MAX_VALIDATION_SHARE = 0.5
VALIDATION_KEY = "validation"
#: Longest unexpected key echoed back in an error's field name.
_FIELD_ECHO = 40


class ReportError(ValueError):
    """A malformed report; ``field`` names the offending part of the payload."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _only_keys(payload: dict, allowed: frozenset, prefix: str = "") -> None:
    """``ReportError`` naming the first key of ``payload`` that is not in ``allowed``."""
    extra = sorted(str(key) for key in payload if key not in allowed)
    if extra:
        raise ReportError(prefix + extra[0][:_FIELD_ECHO], f"unexpected key; this report holds only {', '.join(sorted(allowed))}")


def _config_error(message: str) -> ValueError:
    return ValueError(f"invalid survey configuration: {message}")


def _ldp_epsilon(ldp: dict) -> float:
    try:
        epsilon = float(ldp["epsilon"])
    except (KeyError, TypeError, ValueError):
        raise _config_error("LDP needs ε") from None
    if not math.isfinite(epsilon) or epsilon <= 0:
        raise _config_error("ε must be a number > 0")
    return epsilon


class SurveyProtocol:
    mode: str

    def __init__(self, config: dict):
        self.config = config
        if not config.get("class"):
            raise _config_error("the survey needs a class question")
        try:
            self.class_attribute = attribute_from_dict(config["class"])
            self.features = [attribute_from_dict(a) for a in config["features"]]
        except (KeyError, TypeError) as exc:
            raise _config_error(f"missing {exc}") from None
        if not isinstance(self.class_attribute, Categorical) or self.class_attribute.size < 2:
            raise _config_error("the class question must be categorical with at least two answers")
        if not self.features:
            raise _config_error("a survey needs at least one feature question besides the class")
        names = [a.name for a in self.features] + [self.class_attribute.name]
        if len(set(names)) != len(names):
            raise _config_error("question names must be unique")
        numeric = config.get("numeric") or {"handling": "discretize", "bins": 4}
        self.numeric_handling = numeric.get("handling", "discretize")
        self.bins = int(numeric.get("bins", 4))
        # Records arrive in question order; a projection (SPEC §5c) replaces the numeric questions by its components.
        self.questions = list(self.features)
        self.projection = None
        if config.get("projection"):
            self.projection = Projection.from_dict(config["projection"])
            self._numeric_questions = [i for i, a in enumerate(self.questions) if isinstance(a, Numeric)]
            if len(self._numeric_questions) != self.projection.mean.shape[0]:
                raise _config_error("the projection must be fitted on exactly the numeric questions")
            self.features = [a for a in self.questions if not isinstance(a, Numeric)] + self.projection.attributes()
        try:
            self.validation_share = float((config.get("validation") or {}).get("share", 0.0))
        except (TypeError, ValueError):
            raise _config_error("the validation share must be a number") from None
        if not 0 <= self.validation_share <= MAX_VALIDATION_SHARE:
            raise _config_error(f"the validation share must be in [0, {MAX_VALIDATION_SHARE}]")

    # -- shared helpers ------------------------------------------------------------------------
    def engine_features(self) -> list:
        """Features as the mechanism sees them (numeric → bins when discretizing)."""
        return [ewd_attribute(a, self.bins) if isinstance(a, Numeric) else a for a in self.features]

    def project(self, X) -> np.ndarray:
        """Question-order records → feature order: categorical answers, then the projected components (if any)."""
        X = np.array(X, dtype=np.float64, copy=True)
        if X.ndim != 2 or X.shape[1] != len(self.questions):
            raise ValueError(f"records must have {len(self.questions)} columns, one per question")
        if self.projection is None:
            return X
        categorical = [i for i in range(X.shape[1]) if i not in self._numeric_questions]
        return np.column_stack([X[:, categorical], self.projection.transform(X[:, self._numeric_questions])])

    def to_model_input(self, X) -> np.ndarray:
        """Question-order records → the model's input (projected; numeric columns binned when discretizing)."""
        X = self.project(X)
        for j, a in enumerate(self.features):
            if isinstance(a, Numeric):
                X[:, j] = ewd_codes(a, X[:, j], self.bins)
        return X

    # The mechanism (``MRRScheme``, ``LDPNaiveBayes`` or ``LDPGaussianNB``) does the work; its statistics type
    # serialises them. Subclasses set both.
    mechanism: Any
    stats_type: Any

    def aggregate(self, reports):
        return self.mechanism.aggregate(reports)

    def zero_stats(self):
        return self.mechanism.zero_stats()

    def stats_to_dict(self, stats) -> dict:
        return stats.to_dict()

    def stats_from_dict(self, data):
        return self.stats_type.from_dict(data)

    def estimate(self, stats) -> NaiveBayesModel:
        return self.mechanism.estimate(stats)

    #: Keys of a training report and of a validation report's inner object (subclasses set them).
    report_keys: frozenset
    validation_keys: frozenset

    def parse_one(self, payload) -> Any:
        """Check one wire report of either kind (training or validation) as the API receives it; ``ReportError``
        when malformed or when it holds a key its wire format does not have."""
        if self.is_validation(payload):
            if self.validation_share == 0:
                raise ReportError(VALIDATION_KEY, "this survey has no validation share")
            _only_keys(payload, frozenset({VALIDATION_KEY}))
            inner = payload[VALIDATION_KEY]
            if isinstance(inner, dict):
                _only_keys(inner, self.validation_keys, VALIDATION_KEY + ".")
            return self.parse_validation([inner])
        if isinstance(payload, dict):
            _only_keys(payload, self.report_keys)
        return self.parse([payload])

    def fold(self, payloads: Sequence[dict]):
        """Training reports → additive statistics (validation reports go to ``fold_validation``)."""
        stats = self.zero_stats()
        if payloads:
            stats = stats + self.aggregate(self.parse(list(payloads)))
        return stats

    def model_privacy(self, model: NaiveBayesModel) -> dict:
        """Privacy figures published with a model version (``privacy()``; MRR adds PSE before/after mining)."""
        return self.privacy()

    # -- the validation share ----------------------------------------------------------------------
    @staticmethod
    def is_validation(payload) -> bool:
        return isinstance(payload, dict) and VALIDATION_KEY in payload

    def split(self, payloads: Sequence) -> tuple[list, list]:
        """(training payloads, inner validation payloads)."""
        training, validation = [], []
        for p in payloads:
            (validation.append(p[VALIDATION_KEY]) if self.is_validation(p) else training.append(p))
        return training, validation

    validation_type: Any

    def zero_validation(self):
        return self.validation_type()

    def validation_to_dict(self, vstats):
        return vstats.to_dict()

    def validation_from_dict(self, data):
        return self.validation_type.from_dict(data)

    def encode_respondents(self, X, y, rng, published=None) -> list[dict]:
        """Many simulated respondents, each a validation respondent with probability ``validation_share`` (as in
        ``respond``; the draws are batched, so the order of random numbers differs from one-by-one ``respond``)."""
        X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
        validating = np.zeros(len(y), dtype=bool)
        if self.validation_share > 0 and (self.mode == "mrr" or published is not None):
            validating = rng.random(len(y)) < self.validation_share
        out: list = [None] * len(y)
        for mask, encode in ((~validating, lambda X_, y_: self.encode(X_, y_, rng)),
                             (validating, lambda X_, y_: self.encode_validation(X_, y_, rng, published))):
            rows = np.flatnonzero(mask)
            if rows.size:
                for i, payload in zip(rows, encode(X[rows], y[rows])):
                    out[i] = payload
        return out

    def respond(self, x, y: int, rng, published=None) -> dict:
        """One respondent's payload, drawn as the browser does (static/js/protocol.mjs ``respond``): with a validation
        share, first u = random(); u < share makes this a validation respondent — for LDP only when a model is
        published (``published`` = (version, NaiveBayesModel)), since there is nothing to validate otherwise."""
        X, Y = np.asarray([x], dtype=np.float64), np.asarray([y])
        if self.validation_share > 0:
            u = rng.random()
            if u < self.validation_share and (self.mode == "mrr" or published is not None):
                return self.encode_validation(X, Y, rng, published)[0]
        return self.encode(X, Y, rng)[0]

    def public_validation(self) -> dict:
        return {"share": self.validation_share}

    def public_base(self) -> dict:
        return {
            "mode": self.mode,
            "validation": self.public_validation(),
            "class": self.class_attribute.to_dict(),
            "questions": [a.to_dict() for a in self.questions],
            "features": [a.to_dict() for a in self.features],
            "projection": self.projection.to_dict() if self.projection else None,
            "numeric": {"handling": self.numeric_handling, "bins": self.bins},
        }


class MRRProtocol(SurveyProtocol):
    """Unrelated-question MRR (SPEC §2). Wire report: ``{"answers": [code per feature…, class code]}``."""

    mode = "mrr"
    stats_type = MRRStats
    report_keys = validation_keys = frozenset({"answers"})

    def __init__(self, config: dict):
        super().__init__(config)
        if self.projection is not None:
            raise _config_error("PCA/DCA applies to LDP surveys only")
        mrr = config.get("mrr") or {}
        attrs = self.engine_features() + [self.class_attribute]
        names = [a.name for a in attrs]
        groups = mrr.get("groups")
        if groups:
            try:
                groups = [[names.index(name) for name in g] for g in groups]
            except ValueError as exc:
                raise _config_error(f"group names unknown question: {exc}") from None
        personal = mrr.get("personal") or {}
        dists = [personal.get(a.name) for a in attrs]
        dists = [d if d is not None else [1.0 / a.size] * a.size for d, a in zip(dists, attrs)]
        self.personal_mode = {a.name: (mrr.get("personal_mode") or {}).get(a.name, "simulated") for a in attrs}
        self.postprocess = mrr.get("postprocess", "norm-sub")
        try:
            theta = float(mrr["theta"])
        except (KeyError, TypeError, ValueError):
            raise _config_error("MRR needs θ") from None
        if not 0 < theta <= 1:
            raise _config_error("θ must be in (0, 1]")
        self.scheme = self.mechanism = MRRScheme(attrs, class_index=len(attrs) - 1, theta=theta, groups=groups,
                                                 personal=dists)
        if self.validation_share > 0 and len(self.scheme.groups) != 1:
            raise _config_error("the accuracy estimate on randomized test records needs every question in one group: "
                                "use one group or set the validation share to 0")

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

    validation_type = RecordHistogram

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
        return model

    def privacy(self, prior_by_attribute: dict | None = None) -> dict:
        """ε per question, per group and per respondent (groups compose sequentially); PSE per question with the
        given true-value priors (default uniform: before any data), and per group (the minimum, SPEC §2)."""
        s = self.scheme
        per_question, pse = {}, {}
        for i, a in enumerate(s.attributes):
            theta = s.theta_of(i)
            per_question[a.name] = mrr_epsilon(theta, s.personal[i])
            prior = (prior_by_attribute or {}).get(a.name, np.full(a.size, 1.0 / a.size))
            pse[a.name] = pse_entry(prior, theta, s.personal[i])
        groups = []
        for g, members in enumerate(s.groups):
            groups.append({
                "attributes": [s.attributes[i].name for i in members],
                "theta": s.thetas[g],
                "epsilon": mrr_group_epsilon(s.thetas[g], [s.personal[i] for i in members]),
                "pse": min(pse[s.attributes[i].name] for i in members),
            })
        return {
            "mode": "mrr",
            "epsilon_per_question": per_question,
            "epsilon_per_respondent": float(sum(g["epsilon"] for g in groups)),
            "pse_per_question": pse,
            "groups": groups,
        }

    def model_privacy(self, model: NaiveBayesModel) -> dict:
        """``privacy()`` with PSE before and after mining (seed 004 §4, ``pse.pse_after_mining``, Scenario II) for
        the priors and inference rules of an estimated model, per question and per group."""
        mined = pse_after_mining(self.scheme, model.prior, model.conditionals)
        names = [a.name for a in self.scheme.attributes]
        out = self.privacy()  # pse_per_question there: uniform priors, the figure known before any data
        out["pse_before_mining"] = dict(zip(names, map(float, mined["before"])))
        out["pse_after_mining"] = dict(zip(names, map(float, mined["after"])))
        for g, group in enumerate(out["groups"]):
            group["pse_before_mining"] = float(mined["group_before"][g])
            group["pse_after_mining"] = float(mined["group_after"][g])
        return out


class _LDPValidation:
    """The LDP validation share: binary randomized response on "was version v right?" at the respondent's ε."""

    validation_type = VersionCounts
    validation_keys = frozenset({"version", "report"})
    epsilon_per_respondent: float

    def public_validation(self) -> dict:
        return {"share": self.validation_share, "oracle": correct_oracle(self.epsilon_per_respondent).params()}

    def parse_validation(self, inner: list) -> tuple[np.ndarray, np.ndarray]:
        versions = []
        for p in inner:
            v = p.get("version") if isinstance(p, dict) else None
            if not is_int(v) or v < 1:
                raise ReportError("validation.version", "must be the integer number of a published model version")
            if "report" not in p:
                raise ReportError("validation.report", "is required")
            versions.append(v)
        try:
            reports = from_wire(correct_oracle(self.epsilon_per_respondent), [p["report"] for p in inner])
        except ValueError as exc:
            raise ReportError("validation.report", str(exc)) from None
        return np.asarray(versions, dtype=np.int64), np.asarray(reports, dtype=np.int64)

    def fold_validation(self, inner: list) -> VersionCounts:
        return VersionCounts.fold(*self.parse_validation(inner)) if inner else VersionCounts()

    def encode_validation(self, X, y, rng, published=None) -> list[dict]:
        """Classify the true answers with the published model and send only "right?" through binary RR."""
        if published is None:
            raise ValueError("an LDP validation respondent needs the published (version, model)")
        version, model = published
        right = (model.predict(self.to_model_input(X)) == np.asarray(y)).astype(np.int64)
        reports = correct_oracle(self.epsilon_per_respondent).perturb(right, rng)
        return [{VALIDATION_KEY: {"version": int(version), "report": int(r)}} for r in reports]

    def accuracy(self, model, validation: VersionCounts, version: int) -> AccuracyEstimate | None:
        """Accuracy of ``version`` from the validation reports that evaluated it; ``None`` without any."""
        counts = validation.by_version.get(int(version))
        return ldp_accuracy(counts, self.epsilon_per_respondent) if counts is not None and counts.n else None


class LDPProtocol(_LDPValidation, SurveyProtocol):
    """LDP Naive Bayes over categorical (or discretized) features (SPEC §3–§4).

    Wire report — one-report: ``{"input": j, "report": <oracle wire value>}``; split: ``{"reports": [one per input]}``.
    """

    mode = "ldp"
    stats_type = LDPNBStats

    def __init__(self, config: dict):
        super().__init__(config)
        ldp = config.get("ldp") or {}
        epsilon = _ldp_epsilon(ldp)
        params = {}
        if ldp.get("encoding") == "the" and ldp.get("threshold") is not None:
            params["threshold"] = float(ldp["threshold"])
        self.nb = self.mechanism = LDPNaiveBayes(
            self.class_attribute,
            self.engine_features(),
            epsilon,
            oracle=ldp.get("encoding", "adaptive"),
            strategy=ldp.get("strategy", "one-report"),
            postprocess=ldp.get("postprocess", "norm-sub"),
            **params,
        )

    @property
    def report_keys(self) -> frozenset:
        return frozenset({"input", "report"} if self.nb.strategy == "one-report" else {"reports"})

    @property
    def epsilon_per_respondent(self) -> float:
        return self.nb.epsilon_per_respondent

    def public(self) -> dict:
        return {**self.public_base(), "ldp": self.nb.params()}

    def encode(self, X, y, rng) -> list[dict]:
        reports = self.nb.perturb(self.to_model_input(X).astype(np.int64), np.asarray(y), rng)
        wires = [to_wire(fo, r) for fo, r in zip(self.nb.oracles, reports.per_input)]
        if reports.assigned is None:
            return [{"reports": [w[i] for w in wires]} for i in range(reports.n)]
        position = np.zeros(len(wires), dtype=np.int64)
        out = []
        for j in reports.assigned:
            out.append({"input": int(j), "report": wires[j][position[j]]})
            position[j] += 1
        return out

    def parse(self, payloads: list) -> LDPNBReports:
        inputs = len(self.nb.oracles)
        per_input: list[list] = [[] for _ in range(inputs)]
        assigned = []
        for p in payloads:
            if not isinstance(p, dict):
                raise ReportError("report", "must be a JSON object")
            if self.nb.strategy == "one-report":
                j = p.get("input")
                if not isinstance(j, int) or isinstance(j, bool) or not 0 <= j < inputs:
                    raise ReportError("input", f"must be an integer in [0, {inputs})")
                if "report" not in p:
                    raise ReportError("report", "is required")
                per_input[j].append(p["report"])
                assigned.append(j)
            else:
                reports = p.get("reports")
                if not isinstance(reports, list) or len(reports) != inputs:
                    raise ReportError("reports", f"must be a list of {inputs} reports")
                for j, r in enumerate(reports):
                    per_input[j].append(r)
        parsed = []
        for j, (fo, values) in enumerate(zip(self.nb.oracles, per_input)):
            try:
                parsed.append(from_wire(fo, values))
            except ValueError as exc:
                raise ReportError("report" if self.nb.strategy == "one-report" else f"reports[{j}]", str(exc)) from None
        return LDPNBReports(len(payloads), tuple(parsed), np.asarray(assigned, dtype=np.int64) if assigned else None)

    def privacy(self, prior_by_attribute: dict | None = None) -> dict:
        per_input = self.nb.oracles[0].epsilon
        names = [self.class_attribute.name] + [a.name for a in self.features]
        return {
            "mode": "ldp",
            "epsilon_per_question": {n: per_input for n in names},
            "epsilon_per_respondent": self.nb.epsilon_per_respondent,
            "strategy": self.nb.strategy,
            "encodings": {n: fo.name for n, fo in zip(names, self.nb.oracles)},
        }


class GaussianProtocol(_LDPValidation, SurveyProtocol):
    """LDP Gaussian NB over numeric features (SPEC §5b). Wire report: ``{"group": 0 | 1 | 2, "report": …}`` with
    group 0 the class through the prior oracle, 1/2 the mean/square groups: Approach 1 an m×k list, Approach 2
    ``[j, ±1]``, Approach 3 ``[attribute, [k numbers]]``."""

    mode = "ldp"
    stats_type = GaussianStats
    report_keys = frozenset({"group", "report"})

    def __init__(self, config: dict):
        super().__init__(config)
        if not all(isinstance(a, Numeric) for a in self.features):
            raise _config_error("Gaussian Naive Bayes needs every feature question to be numeric (or discretize them)")
        ldp = config.get("ldp") or {}
        numeric = config.get("numeric") or {}
        epsilon = _ldp_epsilon(ldp)
        encoding = ldp.get("encoding", "adaptive")
        prior_oracle = oracles.choose(epsilon, self.class_attribute.size) if encoding == "adaptive" else encoding
        self.gnb = self.mechanism = LDPGaussianNB(
            self.class_attribute, self.features, epsilon, approach=int(numeric.get("approach", 3)),
            prior_oracle=prior_oracle, postprocess=ldp.get("postprocess", "norm-sub"),
        )

    def to_model_input(self, X) -> np.ndarray:
        return self.project(X)

    @property
    def epsilon_per_respondent(self) -> float:
        return self.gnb.epsilon

    def public(self) -> dict:
        return {**self.public_base(), "ldp": self.gnb.params()}

    def _vector_to_wire(self, group_reports) -> list:
        if self.gnb.approach == 1:
            return np.asarray(group_reports).tolist()
        first, second = group_reports
        if self.gnb.approach == 2:
            return [[int(j), int(s)] for j, s in zip(first, second)]
        return [[int(a), list(map(float, v))] for a, v in zip(first, second)]

    def encode(self, X, y, rng) -> list[dict]:
        reports = self.gnb.perturb(self.project(X), y, rng)
        wires = [to_wire(self.gnb.prior_oracle, reports.prior), self._vector_to_wire(reports.mean),
                 self._vector_to_wire(reports.square)]
        position = [0, 0, 0]
        out = []
        for g in reports.group:
            out.append({"group": int(g), "report": wires[g][position[g]]})
            position[g] += 1
        return out

    def _vectors_from_wire(self, values: list):
        """Mean/square group reports → engine vectors. Indices and signs must be int64 integers, vector components
        finite numbers on the noise grid within ``wire.grid_noise_bound`` (Approaches 1 and 3 add grid Laplace
        noise of scale ``laplace_scale`` to entries in [−1, 1], SPEC §5b)."""
        m, k = self.gnb.m, self.gnb.k
        try:
            if self.gnb.approach == 1:
                if not all(isinstance(v, list) and len(v) == m and all(
                        isinstance(r, list) and len(r) == k and all(is_number(x) for x in r) for r in v) for v in values):
                    raise ValueError(f"an Approach 1 report is an {m}×{k} list of finite numbers")
                V = np.asarray(values, dtype=np.float64).reshape(len(values), m, k)
                return self.gnb.validate_vectors(check_grid_values(V, self.gnb.laplace_scale, "Approach 1 report"))
            if not all(isinstance(v, list) and len(v) == 2 and is_int(v[0]) for v in values):
                raise ValueError("this report is a pair [integer index, …]")
            first = np.asarray([v[0] for v in values], dtype=np.int64) if values else np.empty(0, np.int64)
            if self.gnb.approach == 2:
                if not all(is_int(v[1]) for v in values):
                    raise ValueError("an Approach 2 report is [entry, ±1] with integers")
                return self.gnb.validate_vectors((first, np.asarray([v[1] for v in values], dtype=np.int64)))
            if not all(isinstance(v[1], list) and len(v[1]) == k and all(is_number(x) for x in v[1]) for v in values):
                raise ValueError(f"an Approach 3 report is [attribute, [{k} finite numbers]]")
            vec = np.asarray([v[1] for v in values], dtype=np.float64).reshape(len(values), k)
            return self.gnb.validate_vectors((first, check_grid_values(vec, self.gnb.laplace_scale, "Approach 3 report")))
        except (TypeError, ValueError) as exc:
            raise ReportError("report", str(exc)) from None

    def parse(self, payloads: list) -> GaussianReports:
        groups, per = [], [[], [], []]
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

    def privacy(self, prior_by_attribute: dict | None = None) -> dict:
        names = [self.class_attribute.name] + [a.name for a in self.features]
        return {
            "mode": "ldp",
            "epsilon_per_question": {n: self.gnb.epsilon for n in names},
            "epsilon_per_respondent": self.gnb.epsilon,
            "approach": self.gnb.approach,
        }


def build(config: dict) -> SurveyProtocol:
    """The protocol a configuration describes; ``ValueError`` with a readable message when it is invalid."""
    if not isinstance(config, dict):
        raise _config_error("expected an object")
    mode = config.get("mode")
    if mode == "mrr":
        return MRRProtocol(config)
    if mode == "ldp":
        handling = (config.get("numeric") or {}).get("handling", "discretize")
        if handling == "gaussian":
            return GaussianProtocol(config)
        if handling != "discretize":
            raise _config_error("numeric handling must be 'discretize' or 'gaussian'")
        return LDPProtocol(config)
    raise _config_error("mode must be 'mrr' or 'ldp'")
