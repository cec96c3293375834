"""A whole survey's randomization protocol, built from a plain configuration dict (the engine's single entry point
for the web app, the ``simulate`` command and the lab). ``aggregator.privacy.survey_protocol`` re-exports it.

Configuration (JSON-able; ``survey_app.models.Survey.protocol_config()`` produces it)::

    {"mode": "ldp" | "mrr",
     "class": {"kind": "categorical", "name": ..., "values": [...]},
     "features": [{"kind": "categorical", ...} | {"kind": "numeric", "name": ..., "low": ..., "high": ...}, ...],
     "numeric": {"handling": "discretize", "bins": 4} | {"handling": "gaussian", "approach": 1 | 2 | 3},
     "ldp": {"epsilon": 1.0, "encoding": "oue", "parameters": {} | {"threshold": 0.25} (the encoding's own, e.g.
             THE's), "strategy": "one-report", "postprocess": "bayes"},
     "mrr": {"theta": 0.7, "groups": [[names…], …] | null, "personal": {name: [P_Y…]},
             "personal_mode": {name: "simulated" | "real"}, "postprocess": "bayes"},
     "validation": {"share": 0.1}}

``"projection"`` (optional): a ``continuous.projection.Projection`` dict fitted on the numeric questions of a public
reference sample; the numeric answers are standardised, projected and clipped before anything else (SPEC §5c).

Numeric features are discretized into equal-width bins over their public bounds (SPEC §5a) unless the LDP
"gaussian" handling is chosen (SPEC §5b): then a survey of numeric questions only is a ``GaussianProtocol`` and one
that mixes categorical and numeric questions a ``MixedProtocol`` (``mixed``: Approach 3, one report per
respondent). A protocol offers:

* ``public()`` — everything the browser needs, nothing secret (its "mechanism": the browser module that randomizes,
  the class's ``browser_module``);
* ``encode(X, y, rng)`` — simulated respondents' reports in wire form (the client halves), for demos and tests;
* ``parse(payloads)`` — wire reports → engine reports, ``ReportError`` naming the field on bad input;
  ``parse_one(payload)`` — one report as the API receives it, also refusing keys the wire format does not have
  (``report_keys``, ``validation_keys``: the API stores the payload verbatim, so nothing else may ride along);
* ``fold(payloads)`` → additive statistics; ``stats_to_dict`` / ``stats_from_dict``; ``zero_stats()``;
* ``estimate(stats)`` → ``NaiveBayesModel``; ``privacy()`` → ε per question and per respondent (and PSE for MRR);
* ``report_schema()`` → the JSON Schema of one report (issue 14; ``schemas``: built from the oracles'
  ``wire_schema()``), and ``report_shapes()`` (per class, and for all in this package) → the generic shapes the
  OpenAPI document types the report body with.

The validation share (``privacy/validation.py``): a share of respondents sends ``{"validation": …}`` instead of a
training report — MRR: ``{"validation": {"answers": […]}}`` (a randomized record, as for training); LDP:
``{"validation": {"version": v, "report": 0 | 1}}`` (was model version v right on my true answers? through binary RR).
``split(payloads)`` separates the two kinds; ``fold_validation`` / ``zero_validation`` / ``validation_to_dict`` /
``validation_from_dict`` handle their additive statistics; ``accuracy(model, validation, version)`` estimates a
model's accuracy from them; ``encode_validation`` and ``respond`` (one respondent, the browser's draw order) are the
client halves.

Records given to ``encode`` and to the model use the *configured* features: codes for categorical ones, values for
numeric ones (``to_model_input`` bins them where the protocol discretizes).

Capabilities (what the web app asks instead of comparing modes): ``accuracy_at_publication``,
``validation_needs_model``, ``validated_version(payload)``, ``checked_oracles()``, ``checked_reports(reports)``,
``assignment_probabilities()``, ``conditional_standard_errors(model)`` (``base.SurveyProtocol``).

Modules: ``config`` (``ConfigError``, ``check_settings``: the configuration's rules, each error naming its field),
``base`` (``SurveyProtocol``: questions, projection, folding, the validation share; ``LDPValidation``), ``mrr``,
``ldp``, ``gaussian``, ``mixed`` (one protocol class each). The mechanisms' own knowledge stays with them: oracle
wire formats in ``oracles``, the Gaussian approaches in ``continuous.approaches``.
"""

from __future__ import annotations

from .base import SETTING_SYMBOLS, VALIDATION_KEY, ReportError, SurveyProtocol
from .config import MAX_VALIDATION_SHARE, ConfigError, check_settings, mode, numeric_settings
from .gaussian import GaussianProtocol
from .ldp import LDPProtocol
from .mixed import MixedProtocol
from .mrr import MRRProtocol

__all__ = ["ReportError", "ConfigError", "SurveyProtocol", "MRRProtocol", "LDPProtocol", "GaussianProtocol",
           "MixedProtocol", "build", "check_settings", "MAX_VALIDATION_SHARE", "VALIDATION_KEY", "SETTING_SYMBOLS",
           "report_shapes"]


def report_shapes() -> dict[str, dict]:
    """Every mechanism's generic report shapes by component name (``SurveyProtocol.report_shapes``; a name two
    mechanisms share, as LDP and Gaussian NB's validation report, is one shape)."""
    shapes: dict[str, dict] = {}
    for cls in (LDPProtocol, GaussianProtocol, MixedProtocol, MRRProtocol):
        for name, shape in cls.report_shapes().items():
            if shapes.setdefault(name, shape) != shape:
                raise ValueError(f"two mechanisms define the report shape {name!r} differently")
    return shapes


def build(config: dict) -> SurveyProtocol:
    """The protocol a configuration describes; ``ConfigError`` (a ``ValueError``) naming the field when it is invalid.

    The protocol checks its questions (class, features), then ``check_settings``, then what depends on both."""
    if mode(config) == "mrr":
        return MRRProtocol(config)
    handling, _, _ = numeric_settings(config)
    if handling != "gaussian":
        return LDPProtocol(config)
    features = config.get("features")
    kinds = {a.get("kind") for a in features if isinstance(a, dict)} if isinstance(features, list) else set()
    return MixedProtocol(config) if {"categorical", "numeric"} <= kinds else GaussianProtocol(config)
