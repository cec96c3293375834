"""What every survey protocol shares (``aggregator.privacy.protocol``): the questions and their projection, folding,
the validation share's bookkeeping and client draws, ``ReportError``, and the capabilities the web app asks for
instead of comparing mode strings."""
from __future__ import annotations

import hashlib
import math
from abc import ABC, abstractmethod
from typing import Any, Sequence

import numpy as np

from ..browser_epsilon import UnsupportedEpsilon, check_supported_epsilon
from ..continuous.discretize import ewd_attribute, ewd_codes
from ..continuous.projection import Projection
from ..jsonable import browser_json
from ..mrr import conditional_standard_error_bound
from ..naive_bayes.model import NaiveBayesModel
from ..oracles.base import FrequencyOracle
from ..oracles.wire import from_wire, is_int
from ..schema import Categorical, Numeric, attribute_from_dict
from ..validation import AccuracyEstimate, VersionCounts, correct_oracle, ldp_accuracy
from .config import ConfigError, check_settings, epsilon_error, numeric_settings, validation_share
from .schemas import document, ldp_validation_inner, validation_shape

__all__ = ["ReportError", "SurveyProtocol", "LDPValidation", "VALIDATION_KEY"]

VALIDATION_KEY = "validation"
#: The keys of adaptive allocation's day's assignment in the public protocol's "ldp": not part of its version.
DAILY_KEYS = frozenset({"assignment", "assignment_cdf", "assignment_source"})
#: Longest unexpected key echoed back in an error's field name.
_FIELD_ECHO = 40


#: How people write the settings that set a survey's privacy level (``SurveyProtocol.privacy_settings``).
SETTING_SYMBOLS = {"theta": "θ", "epsilon": "ε"}


class ReportError(ValueError):
    """A malformed report; ``field`` names the offending part of the payload."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def only_keys(payload: dict, allowed: frozenset, prefix: str = "") -> None:
    """``ReportError`` naming the first key of ``payload`` that is not in ``allowed``."""
    extra = sorted(str(key) for key in payload if key not in allowed)
    if extra:
        raise ReportError(prefix + extra[0][:_FIELD_ECHO],
                          f"unexpected key; this report holds only {', '.join(sorted(allowed))}")


def one_report_inputs(payloads: list, inputs: int) -> tuple[list[list], list[int]]:
    """One-report wire reports ``{"input": j, "report": …}`` (SPEC §4) → (each input's wire values, each report's
    input), ``ReportError`` naming the field when one is not such an object with j in [0, ``inputs``)."""
    per: list[list] = [[] for _ in range(inputs)]
    assigned = []
    for p in payloads:
        if not isinstance(p, dict):
            raise ReportError("report", "must be a JSON object")
        j = p.get("input")
        if not isinstance(j, int) or isinstance(j, bool) or not 0 <= j < inputs:
            raise ReportError("input", f"must be an integer in [0, {inputs})")
        if "report" not in p:
            raise ReportError("report", "is required")
        per[j].append(p["report"])
        assigned.append(j)
    return per, assigned


def one_report_payloads(wires: list[list], assigned) -> list[dict]:
    """The inverse of ``one_report_inputs``: each input's wire values (in its respondents' order) and each
    respondent's input → ``{"input": j, "report": …}`` in respondent order."""
    position = [0] * len(wires)
    out = []
    for j in assigned:
        out.append({"input": int(j), "report": wires[j][position[j]]})
        position[j] += 1
    return out


def _attribute(data, field: str):
    try:
        return attribute_from_dict(data)
    except (KeyError, TypeError) as exc:
        raise ConfigError(field, f"missing {exc}") from None
    except ValueError as exc:
        raise ConfigError(field, str(exc)) from None


def questions(config: dict) -> tuple[Categorical, list]:
    """The class question and the feature questions of ``config`` (``ConfigError`` on "class" or "features")."""
    if not config.get("class"):
        raise ConfigError("class", "the survey needs a class question")
    class_attribute = _attribute(config["class"], "class")
    if not isinstance(class_attribute, Categorical) or class_attribute.size < 2:
        raise ConfigError("class", "the class question must be categorical with at least two answers")
    if "features" not in config:
        raise ConfigError("features", "missing 'features'")
    if not isinstance(config["features"], list):
        raise ConfigError("features", "the feature questions must be a list")
    features = [_attribute(a, "features") for a in config["features"]]
    if not features:
        raise ConfigError("features", "a survey needs at least one feature question besides the class")
    names = [a.name for a in features] + [class_attribute.name]
    if len(set(names)) != len(names):
        raise ConfigError("features", "question names must be unique")
    return class_attribute, features


def as_model(model) -> NaiveBayesModel:
    """A ``NaiveBayesModel`` from itself or its dict (``ModelVersion.model``)."""
    return NaiveBayesModel.from_dict(model) if isinstance(model, dict) else model


def discrete_conditional_standard_errors(model) -> tuple[str, list | None]:
    """SEs of categorical conditionals P(a | c) from a model's metadata: the published delta-method ones
    (``conditional_standard_errors``, SPEC §4) or, from raw joint and prior SEs alone (MRR, SPEC §2), the
    Cauchy–Schwarz bound ``mrr.conditional_standard_error_bound``; ("none", None) without either."""
    model = as_model(model)
    meta = model.metadata
    if meta.get("conditional_standard_errors") is not None:
        return "delta", [np.asarray(se, dtype=np.float64) for se in meta["conditional_standard_errors"]]
    if meta.get("joint_standard_errors") is not None and meta.get("prior_standard_errors") is not None:
        return "bound", [
            conditional_standard_error_bound(table, np.asarray(joint_se, dtype=np.float64), model.prior,
                                             meta["prior_standard_errors"])
            for table, joint_se in zip(model.conditionals, meta["joint_standard_errors"], strict=True)
        ]
    return "none", None


class SurveyProtocol(ABC):
    """The shared half of a survey protocol (``aggregator.privacy.protocol``'s docstring lists the interface)."""

    mode: str

    # -- capabilities (what the web app asks instead of comparing modes; every protocol implements them) -------
    #: True: a version's accuracy is computed from the validation records folded so far and stored with it (new
    #: validation records justify a new version); False: read live per version from the validation counts.
    accuracy_at_publication: bool
    #: True: a validation respondent needs a published model (to evaluate).
    validation_needs_model: bool
    #: The settings (keys of the mode's configuration section) that set the privacy level, the level first: MRR's
    #: ("theta",) (SPEC §2), LDP's ("epsilon", "encoding") (SPEC §3). Decided by the mode alone (``for_mode``).
    privacy_settings: tuple[str, ...]
    #: The browser module that randomizes and words it (static/js/mechanisms.mjs), published as "mechanism".
    browser_module: str
    #: True (MRR, SPEC §2): questions are randomized in groups; ``privacy()`` gives ε and PSE per group, and ε per
    #: respondent adds the groups' ε. False (LDP): one ε covers everything a respondent sends; no PSE.
    grouped_privacy: bool

    @staticmethod
    def for_mode(mode: str) -> type[SurveyProtocol]:
        """A protocol class of survey mode ``mode`` (the classes of one mode agree on what the mode decides:
        ``privacy_settings``, ``grouped_privacy``), for surveys too incomplete to build; ``ConfigError`` on "mode"."""
        for cls in SurveyProtocol.__subclasses__():
            if cls.mode == mode:
                return cls
        raise ConfigError("mode", "mode must be 'mrr' or 'ldp'")

    @abstractmethod
    def validated_version(self, payload) -> int | None:
        """The model version a validation payload evaluated (LDP), else ``None``."""

    @abstractmethod
    def checked_oracles(self) -> list[tuple[str, FrequencyOracle]]:
        """(label, oracle) of every oracle input whose reports get per-report plausibility checks
        (``privacy.plausibility``), labelled "class sick: " or "odor × sick: "; [] for none."""

    @abstractmethod
    def checked_reports(self, reports) -> tuple:
        """The engine reports of each ``checked_oracles()`` input, from parsed training reports (``parse``)."""

    @abstractmethod
    def assignment_probabilities(self) -> np.ndarray | None:
        """The public assignment of one-report surveys (SPEC §4, §5b): the shares of the ``checked_oracles()``
        inputs, then of the ``assignment_groups`` (in that order); ``None`` where respondents are not assigned."""

    def assignment_groups(self, stats) -> list[tuple[str, int]]:
        """(label, reports folded) of each publicly assigned group no oracle checks — the mean and square groups of
        Gaussian and mixed surveys — read from the survey's statistics ``stats``; [] for the others."""
        return []

    @abstractmethod
    def conditional_standard_errors(self, model) -> tuple[str, list | None]:
        """(interval method, per-attribute standard errors of the published conditionals) of ``model`` (a
        ``NaiveBayesModel`` or its dict): "delta" (published delta-method SEs), "bound" (MRR's conservative bound,
        SPEC §2) or "none" (no SEs, e.g. a model fitted on true data: ``None``). Categorical attributes: (n_i, k)
        arrays of SEs of P(a | c); numeric ones (Gaussian NB): (k,) arrays of SEs of μ_c in the attribute's units."""

    # -- configuration ----------------------------------------------------------------------------------------
    def __init__(self, config: dict):
        self.config = config
        self.class_attribute, self.features = questions(config)
        check_settings(config)
        self.numeric_handling, self.bins, _ = numeric_settings(config)
        # Records arrive in question order; a projection (SPEC §5c) replaces the numeric questions by its components.
        self.questions = list(self.features)
        self.projection = None
        if config.get("projection"):
            self.projection = Projection.from_dict(config["projection"])
            self._numeric_questions = [i for i, a in enumerate(self.questions) if isinstance(a, Numeric)]
            if len(self._numeric_questions) != self.projection.mean.shape[0]:
                raise ConfigError("projection", "the projection must be fitted on exactly the numeric questions")
            self.features = [a for a in self.questions if not isinstance(a, Numeric)] + self.projection.attributes()
        self.validation_share = validation_share(config)

    # -- shared helpers ---------------------------------------------------------------------------------------
    def engine_features(self) -> list:
        """Features as the mechanism sees them (numeric → bins when discretizing)."""
        return [ewd_attribute(a, self.bins) if isinstance(a, Numeric) else a for a in self.features]

    def records(self, columns: dict) -> tuple[np.ndarray, np.ndarray]:
        """A public table's rows as the engine takes respondents: ``columns`` maps each question's name (the class's
        too) to its cells — a categorical question's labels as respondents see them, a numeric one's numbers within
        its bounds — and gives question-order records and class codes. ``ValueError`` naming the first missing
        column or cell that fits no answer."""
        out = []
        for attr in [*self.questions, self.class_attribute]:
            if attr.name not in columns:
                raise ValueError(f"no column {attr.name!r}")
            cells = list(columns[attr.name])
            if isinstance(attr, Numeric):
                try:
                    values = np.asarray([float(c) for c in cells], dtype=np.float64)
                except (TypeError, ValueError):
                    raise ValueError(f"column {attr.name!r} must hold numbers") from None
                if values.size and (not np.all(np.isfinite(values)) or values.min() < attr.low
                                    or values.max() > attr.high):
                    raise ValueError(f"column {attr.name!r} must lie within [{attr.low:g}, {attr.high:g}]")
            else:
                index = {v: i for i, v in enumerate(attr.values)}
                unknown = next((c for c in cells if str(c) not in index), None)
                if unknown is not None:
                    raise ValueError(f"column {attr.name!r}: {unknown!r} is none of its answers")
                values = np.asarray([index[str(c)] for c in cells], dtype=np.float64)
            out.append(values)
        if len({v.size for v in out}) != 1:
            raise ValueError("every column must have as many cells")
        return np.column_stack(out[:-1]) if self.questions else np.empty((out[-1].size, 0)), out[-1].astype(np.int64)

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

    @property
    def reference_prior_ready(self) -> bool:
        """Whether the estimate starts from a public sample's counts (``ldp.reference_counts``, fitting the
        questions)."""
        return False

    def reference_counts(self, X, y) -> list:
        """A public sample's answer counts per class for the model's prior (``ldp.reference_prior``): only the
        frequency-oracle protocol takes them."""
        raise ValueError("only LDP surveys with answers in choices or bins take the reference sample as a prior")

    #: Keys of a validation report's inner object (subclasses set them).
    validation_keys: frozenset

    @property
    @abstractmethod
    def report_keys(self) -> frozenset:
        """Keys of a training report (the API stores the payload verbatim, so nothing else may ride along)."""

    # -- report schemas (``protocol.schemas``) ------------------------------------------------------------------
    @abstractmethod
    def training_schema(self) -> dict:
        """JSON Schema of one training report (``parse_one``'s keys and bounds, the oracles' ``wire_schema()``)."""

    @abstractmethod
    def validation_schema(self) -> dict:
        """JSON Schema of a validation report's inner object (``{"validation": <this>}``)."""

    @classmethod
    @abstractmethod
    def report_shapes(cls) -> dict[str, dict]:
        """Generic shapes (OpenAPI 3.0 schemas by component name) of this mechanism's reports, whatever the survey."""

    def report_schema(self) -> dict:
        """The JSON Schema (2020-12) of one report this survey accepts (``protocol.schemas``): a training
        report, or with a validation share either kind — served with the protocol so that clients and fuzzers can
        build valid reports."""
        validation = validation_shape(self.validation_schema()) if self.validation_share > 0 else None
        return document(self.training_schema(), validation, f"One report to this survey ({type(self).__name__})")

    # -- per mode -------------------------------------------------------------------------------------------
    @abstractmethod
    def public(self) -> dict:
        """Everything the browser needs, nothing secret."""

    @property
    def version(self) -> str:
        """The protocol version a report states: SHA-256 (hex) of ``public()`` as the browser writes it
        (``jsonable.browser_json``) — the hash static/js/memo.mjs ``protocolVersion`` computes of the protocol it
        runs (without adaptive allocation's ``DAILY_KEYS``). Computed once per protocol object."""
        cached = self.__dict__.get("_version")
        if cached is None:
            public = self.public()
            if self.publishes_assignment:  # the day's assignment changes daily; the randomization does not
                public = {**public, "ldp": {k: v for k, v in public["ldp"].items() if k not in DAILY_KEYS}}
            cached = hashlib.sha256(browser_json(public).encode("utf-8")).hexdigest()
            self.__dict__["_version"] = cached
        return cached

    def public_with(self, assignment=None) -> dict:
        """``public()`` with the day's published assignment of respondents to inputs (adaptive allocation only,
        ``LDPProtocol``); other protocols ignore it."""
        return self.public()

    #: Whether each published model sets the next days' assignment of respondents (``next_assignment``).
    publishes_assignment: bool = False

    def next_assignment(self, model, stats) -> list[float] | None:
        """The assignment probabilities a newly published ``model`` sets for the respondents to come (adaptive
        allocation, ``LDPProtocol``); ``None``: no assignment to publish."""
        return None

    def served_assignment(self, stored) -> np.ndarray | None:
        """A stored assignment (a version's ``next_assignment``, a reference sample's ``pilot_assignment``) as the
        browser runs it (adaptive allocation, ``LDPProtocol``); ``None``: the uniform assignment."""
        return None

    def pilot_assignment(self, X, y, respondents: int | None = None) -> list[float] | None:
        """The assignment a public sample (records ``X``, class codes ``y``) sets before the first model (adaptive
        allocation, ``LDPProtocol``); ``None``: no assignment to publish."""
        return None

    @abstractmethod
    def encode(self, X, y, rng) -> list[dict]:
        """Simulated respondents' training reports in wire form (the client half)."""

    @abstractmethod
    def parse(self, payloads: list) -> Any:
        """Wire training reports → engine reports; ``ReportError`` naming the field on bad input."""

    @abstractmethod
    def parse_validation(self, inner: list) -> Any:
        """Inner validation payloads → engine validation reports; ``ReportError`` on bad input."""

    @abstractmethod
    def fold_validation(self, inner: list) -> Any:
        """Inner validation payloads → additive validation statistics."""

    @abstractmethod
    def encode_validation(self, X, y, rng, published=None) -> list[dict]:
        """Simulated validation respondents' payloads (the client half)."""

    @abstractmethod
    def accuracy(self, model, validation, version) -> AccuracyEstimate | None:
        """A model version's accuracy estimate from the validation statistics; ``None`` without any."""

    @abstractmethod
    def privacy(self, prior_by_attribute: dict | None = None) -> dict:
        """ε per question and per respondent (and the mode's other figures)."""

    def unprotected(self) -> list[str]:
        """The questions (class included) these settings give no privacy: ε = ∞ against every reader in ``privacy()``
        (``epsilon_per_question``; for MRR against someone who does not know the personal answers, the known-personal
        figure being the second, documented one) — e.g. MRR with θ = 1, which sends the true record, or a declared
        share of 0, whose answer is always true. The grid-Laplace edge (``epsilon_edge_mass``: outputs only one answer
        gives, at most 2^-40 per report) is documented and not counted (docs/privacy-figures.md). A survey with any
        such question may not open."""
        figures = self.privacy()
        if figures.get("epsilon_edge_mass") is not None:
            return []
        return [name for name, eps in figures["epsilon_per_question"].items() if math.isinf(float(eps))]

    def parse_one(self, payload) -> Any:
        """Check one wire report of either kind (training or validation) as the API receives it; ``ReportError``
        when malformed or when it holds a key its wire format does not have."""
        if self.is_validation(payload):
            if self.validation_share == 0:
                raise ReportError(VALIDATION_KEY, "this survey has no validation share")
            only_keys(payload, frozenset({VALIDATION_KEY}))
            inner = payload[VALIDATION_KEY]
            if isinstance(inner, dict):
                only_keys(inner, self.validation_keys, VALIDATION_KEY + ".")
            return self.parse_validation([inner])
        if isinstance(payload, dict):
            only_keys(payload, self.report_keys)
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

    # -- the validation share ---------------------------------------------------------------------------------
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

    def _may_validate(self, published) -> bool:
        """Whether a respondent drawn into the validation share validates: always, or (``validation_needs_model``)
        only when a model is published."""
        return not self.validation_needs_model or published is not None

    def encode_respondents(self, X, y, rng, published=None) -> list[dict]:
        """Many simulated respondents, each a validation respondent with probability ``validation_share`` (as in
        ``respond``; the draws are batched, so the order of random numbers differs from one-by-one ``respond``)."""
        X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
        validating = np.zeros(len(y), dtype=bool)
        if self.validation_share > 0 and self._may_validate(published):
            validating = rng.random(len(y)) < self.validation_share
        out: list = [None] * len(y)
        for mask, encode in ((~validating, lambda X_, y_: self.encode(X_, y_, rng)),
                             (validating, lambda X_, y_: self.encode_validation(X_, y_, rng, published))):
            rows = np.flatnonzero(mask)
            if rows.size:
                for i, payload in zip(rows, encode(X[rows], y[rows]), strict=True):
                    out[i] = payload
        return out

    def respond(self, x, y: int, rng, published=None) -> dict:
        """One respondent's payload, drawn as the browser does (static/js/protocol.mjs ``respond``): with a validation
        share, first u = random(); u < share makes this a validation respondent — for LDP only when a model is
        published (``published`` = (version, NaiveBayesModel)), since there is nothing to validate otherwise."""
        X, Y = np.asarray([x], dtype=np.float64), np.asarray([y])
        if self.validation_share > 0:
            u = rng.random()
            if u < self.validation_share and self._may_validate(published):
                return self.encode_validation(X, Y, rng, published)[0]
        return self.encode(X, Y, rng)[0]

    def public_validation(self) -> dict:
        return {"share": self.validation_share}

    def public_base(self) -> dict:
        return {
            "mode": self.mode,
            "mechanism": self.browser_module,
            "validation": self.public_validation(),
            "class": self.class_attribute.to_dict(),
            "questions": [a.to_dict() for a in self.questions],
            "features": [a.to_dict() for a in self.features],
            "projection": self.projection.to_dict() if self.projection else None,
            "numeric": {"handling": self.numeric_handling, "bins": self.bins},
        }


class LDPValidation:
    """The LDP validation share (LDP and Gaussian NB): binary randomized response on "was version v right on my true
    answers?" at the respondent's ε (``privacy/validation.py``); accuracy is read live per version."""

    accuracy_at_publication = False
    validation_needs_model = True
    validation_type = VersionCounts
    validation_keys = frozenset({"version", "report"})
    validation_share: float
    to_model_input: Any

    @property
    @abstractmethod
    def epsilon_per_respondent(self) -> float:
        """ε of everything one respondent sends (the validation report spends the same ε)."""

    def validated_version(self, payload) -> int | None:
        """The model version an LDP validation payload evaluated (``None`` for a training payload)."""
        inner = payload.get(VALIDATION_KEY) if isinstance(payload, dict) else None
        version = inner.get("version") if isinstance(inner, dict) else None
        return version if isinstance(version, int) and is_int(version) else None

    def check_browser_epsilon(self, mechanisms: Sequence[tuple[str, float, int | None]]) -> None:
        """``ConfigError`` on "ldp.epsilon", offering the largest ε per respondent it honours, when the browser's
        arithmetic cannot honour one of ``mechanisms`` ((name, ε, domain) as
        ``browser_epsilon.check_supported_epsilon`` takes them; each spends a fixed share of the respondent's ε) or,
        with a validation share, the validation report's binary randomized response at the respondent's ε (SPEC §2)."""
        checks = list(mechanisms)
        if self.validation_share > 0:
            checks.append(("binary-rr", self.epsilon_per_respondent, None))
        for name, epsilon, domain in checks:
            try:
                check_supported_epsilon(name, epsilon, domain)
            except UnsupportedEpsilon as exc:
                share = epsilon / self.epsilon_per_respondent
                raise epsilon_error(self.epsilon_per_respondent, exc.bound / share) from exc

    def public_validation(self) -> dict:
        return {"share": self.validation_share, "oracle": correct_oracle(self.epsilon_per_respondent).params()}

    def validation_schema(self) -> dict:
        """``{"version": v ≥ 1, "report": <binary RR's wire value>}``."""
        return ldp_validation_inner(correct_oracle(self.epsilon_per_respondent).wire_schema())

    def parse_validation(self, inner: list) -> tuple[np.ndarray, np.ndarray]:
        versions = []
        for p in inner:
            v = p.get("version") if isinstance(p, dict) else None
            if not (isinstance(v, int) and is_int(v)) or v < 1:
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
