"""The rules of a survey configuration, in one place: ``check_settings`` validates everything that does
not need the questions and names the offending field; the protocol classes check the rest (class and feature
questions, MRR groups and personal distributions, the projection's fit) with the same ``ConfigError``. The web app's
``Survey.clean`` calls ``check_settings`` and maps ``ConfigError.field`` onto its form fields.

Fields are dotted configuration paths: "mode", "class", "features", "ldp.epsilon", "ldp.encoding", "ldp.parameters",
"ldp.strategy", "ldp.postprocess", "ldp.allocation", "ldp.reference_prior", "ldp.reference_counts", "mrr.theta",
"mrr.groups", "mrr.personal", "mrr.postprocess", "numeric.handling", "numeric.bins", "numeric.approach", "projection",
"validation.share".
"""
from __future__ import annotations

import math

from .. import oracles
from ..browser_epsilon import UnsupportedEpsilon, check_supported_epsilon
from ..continuous.approaches import APPROACH_CLASSES, approach_class
from ..continuous.projection import Projection
from ..describe import check_parameters
from ..naive_bayes.ldp import STRATEGIES
from ..postprocess import DEFAULT as DEFAULT_POSTPROCESS
from ..postprocess import METHODS

#: How one-report respondents are assigned their input: uniformly, or by weights the server recomputes from each
#: published model (``privacy.allocation``).
ALLOCATIONS = ("uniform", "adaptive")


def ldp_reference_prior(config: dict) -> bool:
    """``ldp.reference_prior`` (false when absent): the public reference sample's answer counts as the conditionals'
    prior (``privacy.public_prior``); the frequency-oracle protocol only (numbers kept as numbers have no counts)."""
    value = section(config, "ldp").get("reference_prior", False)
    if not isinstance(value, bool):
        raise ConfigError("ldp.reference_prior", "the reference sample's prior is on (true) or off (false)")
    if value and numeric_settings(config)[0] == "gaussian":
        raise ConfigError("ldp.reference_prior", "the reference sample's prior needs the frequency-oracle protocol: "
                                                 "numbers kept as numbers (Gaussian) have no answer counts")
    return value


def ldp_allocation(config: dict) -> str:
    """``ldp.allocation`` ("uniform" when absent); "adaptive" needs one report per respondent."""
    ldp = section(config, "ldp")
    allocation = ldp.get("allocation", "uniform")
    if allocation not in ALLOCATIONS:
        raise ConfigError("ldp.allocation", f"the allocation must be one of {', '.join(ALLOCATIONS)}")
    if allocation == "adaptive" and ldp.get("strategy", "one-report") != "one-report":
        raise ConfigError("ldp.allocation", "adaptive allocation assigns one input per respondent: it needs the "
                                            "one-report strategy")
    return allocation

__all__ = ["ConfigError", "check_settings", "MAX_VALIDATION_SHARE", "MODES", "NUMERIC_HANDLINGS"]

#: At most this share of respondents validates instead of training (``privacy/validation.py``).
MAX_VALIDATION_SHARE = 0.5
MODES = ("mrr", "ldp")
NUMERIC_HANDLINGS = ("discretize", "gaussian")
DEFAULT_NUMERIC = {"handling": "discretize", "bins": 4}


class ConfigError(ValueError):
    """An invalid survey configuration; ``field`` is the dotted path of the offending setting (module docstring).

    Parameters
    ----------
    field : str
        The dotted path of the offending setting.
    message : str
        What is wrong: a fixed sentence, or a %-template filled from ``params`` (``template`` keeps it unfilled, for
        a catalogue to translate).
    params : dict, optional
        The figures or names the template mentions.
    """

    def __init__(self, field: str, message: str, params: dict | None = None):
        self.template = message
        self.params = dict(params or {})
        self.message = message % self.params if params else message
        super().__init__(f"invalid survey configuration: {self.message}")
        self.field = field


#: The designer's sentence for an ε beyond the browser's arithmetic (``browser_epsilon.UnsupportedEpsilon`` says why).
EPSILON_TOO_LARGE = "ε = %(epsilon)s is more than a browser can honour exactly: choose ε ≤ %(choose)s"


def epsilon_error(epsilon: float, bound: float) -> ConfigError:
    """The ``ConfigError`` on "ldp.epsilon" for a survey's ``epsilon`` above the ``bound`` the browser honours for it
    (SPEC §2): one plain sentence offering the bound rounded down to two decimals."""
    return ConfigError("ldp.epsilon", EPSILON_TOO_LARGE,
                       {"epsilon": f"{epsilon:g}", "choose": f"{math.floor(bound * 100) / 100:.2f}"})


def section(config: dict, name: str) -> dict:
    """``config[name]`` as a dict ({} when absent or null)."""
    value = config.get(name) or {}
    if not isinstance(value, dict):
        raise ConfigError(name, f"the {name} settings must be an object")
    return value


def mode(config) -> str:
    """The survey's mode, "mrr" or "ldp" (SPEC §2, §3)."""
    if not isinstance(config, dict):
        raise ConfigError("mode", "expected an object")
    value = config.get("mode")
    if value not in MODES:
        raise ConfigError("mode", "mode must be 'mrr' or 'ldp'")
    return value


def numeric_settings(config: dict) -> tuple[str, int, int]:
    """(handling, bins, approach) of the numeric questions: "discretize" into ``bins`` equal-width bins (SPEC §5a) or
    "gaussian" with Approach 1, 2 or 3 (SPEC §5b; LDP only)."""
    numeric: dict = config.get("numeric") or DEFAULT_NUMERIC
    if not isinstance(numeric, dict):
        raise ConfigError("numeric.handling", "the numeric settings must be an object")
    handling = numeric.get("handling", "discretize")
    if handling not in NUMERIC_HANDLINGS:
        raise ConfigError("numeric.handling", "numeric handling must be 'discretize' or 'gaussian'")
    bins = numeric.get("bins", 4)
    try:
        whole = not isinstance(bins, bool) and float(bins).is_integer()
    except (TypeError, ValueError, OverflowError):
        whole = False
    if not whole or int(bins) < 2:
        raise ConfigError("numeric.bins", "the number of bins must be a whole number of at least 2")
    approach = numeric.get("approach", 3)
    if handling == "gaussian" and (isinstance(approach, bool) or approach not in tuple(APPROACH_CLASSES)):
        raise ConfigError("numeric.approach", "approach must be 1, 2 or 3")
    return handling, int(bins), int(approach) if handling == "gaussian" else 3


def validation_share(config: dict) -> float:
    """The share of respondents who validate instead of training, in [0, ``MAX_VALIDATION_SHARE``]."""
    validation = config.get("validation") or {}
    try:
        share = float(validation.get("share", 0.0))
    except (AttributeError, TypeError, ValueError):
        raise ConfigError("validation.share", "the validation share must be a number") from None
    if not 0 <= share <= MAX_VALIDATION_SHARE:
        raise ConfigError("validation.share", "the validation share must be in [0, %(max)s]",
                          {"max": MAX_VALIDATION_SHARE})
    return share


def ldp_epsilon(config: dict) -> float:
    """ε per respondent of an LDP survey: a finite number > 0."""
    try:
        epsilon = float(section(config, "ldp")["epsilon"])
    except (KeyError, TypeError, ValueError):
        raise ConfigError("ldp.epsilon", "LDP needs ε") from None
    if not math.isfinite(epsilon) or epsilon <= 0:
        raise ConfigError("ldp.epsilon", "ε must be a number > 0")
    return epsilon


def ldp_parameters(config: dict) -> dict[str, float]:
    """The encoding's extra parameters (``ldp.parameters``, e.g. THE's threshold t), checked against the oracle's own
    ``parameters`` (``privacy.describe.Parameter``); ``None`` values and another registered encoding's parameters
    are left out (changing the encoding strands no setting), a name no encoding takes is an error. {} for none."""
    ldp = section(config, "ldp")
    values = ldp.get("parameters") or {}
    if not isinstance(values, dict):
        raise ConfigError("ldp.parameters", "the encoding's parameters must be an object: name → number")
    try:
        oracle = oracles.lookup(ldp.get("encoding", "adaptive"))
    except ValueError as exc:
        raise ConfigError("ldp.encoding", str(exc)) from None
    others = {p.name for name in oracles.names() for p in getattr(oracles.lookup(name), "parameters", ())}
    others -= {p.name for p in getattr(oracle, "parameters", ())}
    try:
        return check_parameters(oracle, {k: v for k, v in values.items() if k not in others})
    except ValueError as exc:
        raise ConfigError("ldp.parameters", str(exc)) from None


def mrr_theta(config: dict) -> float:
    """θ of an MRR survey: the probability that a group's true answers are sent, in (0, 1] (SPEC §2)."""
    try:
        theta = float(section(config, "mrr")["theta"])
    except (KeyError, TypeError, ValueError):
        raise ConfigError("mrr.theta", "MRR needs θ") from None
    if not 0 < theta <= 1:
        raise ConfigError("mrr.theta", "θ must be in (0, 1]")
    return theta


def mrr_groups(config: dict) -> list | None:
    """The MRR attribute groups as lists of question names, or ``None`` (one group holding every question)."""
    groups = section(config, "mrr").get("groups")
    if not groups:
        return None
    if not isinstance(groups, list) or not all(
            isinstance(g, list) and all(isinstance(name, str) for name in g) for g in groups):
        raise ConfigError("mrr.groups", "the groups must be a list of lists of question names")
    return groups


def _postprocess(settings: dict, field: str) -> None:
    if settings.get("postprocess", DEFAULT_POSTPROCESS) not in METHODS:
        raise ConfigError(field, f"the post-processing method must be one of {', '.join(METHODS)}")


def _check_browser_bound(config: dict, epsilon: float, share: float) -> None:
    """The part of the browser's ε bound (``browser_epsilon.max_supported_epsilon``, SPEC §2) that needs no
    questions: the validation report's binary RR at ε, the Gaussian approaches' noise at ε and, for one report per
    respondent, an encoding whose bound does not depend on the domain. The protocol checks the rest (DE's and the
    adaptive choice's domains, split's ε/(m + 1)) once it has the questions."""
    ldp = section(config, "ldp")
    handling, _, approach = numeric_settings(config)
    checks = ["binary-rr"] if share > 0 else []  # the validation report
    encoding = str(ldp.get("encoding", "adaptive")).lower()
    if handling == "gaussian":
        checks.append(approach_class(approach).browser_noise)
    elif (ldp.get("strategy", "one-report") == "one-report"
          and not oracles.lookup(encoding).epsilon_bound_needs_domain()):
        checks.append(encoding)
    for mechanism in checks:
        try:
            check_supported_epsilon(mechanism, epsilon)
        except UnsupportedEpsilon as exc:
            raise epsilon_error(epsilon, exc.bound) from exc


def _check_ldp(config: dict, share: float = 0.0) -> None:
    ldp = section(config, "ldp")
    epsilon = ldp_epsilon(config)
    encoding = ldp.get("encoding", "adaptive")
    if str(encoding).lower() not in oracles.names():
        raise ConfigError("ldp.encoding", f"unknown frequency oracle {encoding!r}; choose one of "
                                          f"{', '.join(oracles.names())}")
    ldp_parameters(config)
    if ldp.get("strategy", "one-report") not in STRATEGIES:
        raise ConfigError("ldp.strategy", f"the strategy must be one of {', '.join(STRATEGIES)}")
    _postprocess(ldp, "ldp.postprocess")
    ldp_reference_prior(config)
    if ldp_allocation(config) == "adaptive" and numeric_settings(config)[0] == "gaussian":
        raise ConfigError("ldp.allocation", "adaptive allocation needs the frequency-oracle protocol: the Gaussian "
                                            "approaches assign their own groups")
    _check_browser_bound(config, epsilon, share)


def _check_mrr(config: dict, share: float) -> None:
    mrr = section(config, "mrr")
    groups = mrr_groups(config)
    if not isinstance(mrr.get("personal") or {}, dict):
        raise ConfigError("mrr.personal", "the personal distributions must be an object: question name → probabilities")
    mrr_theta(config)
    _postprocess(mrr, "mrr.postprocess")
    if share > 0 and groups is not None and len(groups) != 1:
        raise ConfigError("validation.share", "the accuracy estimate on randomized test records needs every question "
                                              "in one group: use one group or set the validation share to 0")


def check_settings(config: dict) -> None:
    """Check every setting of ``config`` that does not need its questions; ``ConfigError`` naming the first bad
    field. Mode, numeric handling (bins, Gaussian approach), validation share, the projection's form (LDP only),
    then LDP's ε (within what the browser can honour, as far as it is known without the questions), encoding, the
    encoding's parameters (each within its range, e.g. THE's t ∈ [0, 1]), strategy and post-processing, or MRR's
    θ ∈ (0, 1], groups, personal distributions, post-processing, and the one-group rule of its validation share
    (SPEC §2: accuracy on randomized test records needs every question in one group)."""
    survey_mode = mode(config)
    numeric_settings(config)
    share = validation_share(config)
    if config.get("projection"):
        if survey_mode != "ldp":
            raise ConfigError("projection", "PCA/DCA applies to LDP surveys only")
        try:
            Projection.from_dict(config["projection"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ConfigError("projection", str(exc)) from None
    if survey_mode == "ldp":
        _check_ldp(config, share)
    else:
        _check_mrr(config, share)
