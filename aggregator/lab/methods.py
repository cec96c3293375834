"""The lab's methods: every way of training a classifier the comparison lab knows, by name.

A ``Method`` turns a training ``Table`` (already in the method's representation, below), its privacy parameter and a
random generator into a *predictor*: a function from the feature matrix ``X`` of test rows (same representation) to
class codes. ``Method.train`` does the whole thing from a table as loaded (``datasets.load_table``), for use outside
``evaluate``.

Representations (``Features``) — how a method sees the attributes; each is applied row by row with public parameters
only (bounds and domains of the whole file, never statistics of the rows), so train and test rows are prepared
identically and preparing before splitting leaks nothing:

* ``DISCRETE`` — numeric attributes into ``bins`` equal-width bins over their public bounds (SPEC §5a; seed 000 uses
  4 bins on Diabetes, ``BASELINES.md`` EWD-4), categorical ones as they are (missing values are a category);
* ``BINARY`` — ``DISCRETE``, then every categorical attribute that is not binary becomes one yes/no attribute per
  value (one-hot). For Warner's related-question model, which negates whole records of binary answers (seed 004 §6.1;
  §5.1 binarizes numeric data at the midpoint of the range, i.e. ``bins = 2``); the class must be binary;
* ``NUMERIC`` — every feature numeric, as loaded (Gaussian NB, SPEC §5b); a categorical feature is an error (a code
  is not a measurement: load such columns as numeric, or choose a discrete method);
* ``MIXED`` — as loaded: categorical codes and numeric values side by side;
* ``GAUSSIAN`` — as loaded, with at least one numeric feature: Gaussian NB Approach 3 (``gauss-sample``), whose
  survey protocol takes numeric questions only (``GaussianProtocol``) or mixes them with categorical ones
  (``MixedProtocol``: one report per respondent, a categorical question through its class-joint frequency oracle).
  Approaches 1 and 2 (``gauss-laplace``, ``gauss-onebit``) report every numeric answer at once, which leaves no
  report for a categorical question within the one ε: they stay ``NUMERIC`` and refuse mixed tables (the error
  names Approach 3).

Privacy parameters: ``"epsilon"`` (ε of local or central DP, default ``DEFAULTS["epsilon"]`` = 1) or ``"theta"``
(θ, the probability of a true answer in randomized response, SPEC §2, default 0.7 as the demo survey), or ``None``.

The non-private baseline (``Method.baseline``, the papers' accuracy "without privacy") is ``nonprivate``: Naive Bayes
on the true rows *without* smoothing (the maximum-likelihood P(a | c); zeros are floored by the model,
``PROB_FLOOR``). It is what every private estimator here becomes when the noise vanishes — MRR at θ = 1 gives it
exactly (seed 004 §5.2.1), LDP NB at ε → ∞ up to the one-report sampling — so the gap to it is the price of privacy
alone. ``nonprivate-add1`` is the add-1 (Laplace) smoothed fit of ``BASELINES.md``; smoothing alone moves accuracy
(mushroom, 20 splits 80/20: 99.1 % unsmoothed, 95.4 % add-1; glass 64.4 % / 60.9 %).

The LDP and MRR methods go through ``privacy.protocol.build`` — the same configuration, client halves
(``encode``: wire reports, exactly what browsers send), fold and estimate as a live survey; Warner's model (never a
survey mode) through ``privacy.warner.WarnerScheme``. Every training row is one respondent.

Adding a method is one ``register(Method(...))`` call with a ``fit`` function, e.g.::

    register(Method("central-laplace", "central ε-DP NB, Laplace noise (SPEC §6)", _fit_central_laplace,
                    parameter="epsilon", features=MIXED))

``evaluate`` and the ``evaluate`` command (``--method`` choices) read the registry.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence, cast

import numpy as np

from survey_app.tables import Table

from ..privacy import oracles, validation
from ..privacy import protocol as survey_protocol
from ..privacy.central import fit_laplace_nb, fit_robust_nb, fit_smooth_nb
from ..privacy.channel import check_theta
from ..privacy.comparison import fit_dp_svm, fit_dp_tree
from ..privacy.continuous.approaches import APPROACH_CLASSES
from ..privacy.continuous.projection import fit_dca, fit_pca
from ..privacy.naive_bayes.fit import fit_nonprivate
from ..privacy.naive_bayes.ldp import LDPNaiveBayes
from ..privacy.naive_bayes.model import NaiveBayesModel
from ..privacy.protocol.ldp import LDPProtocol
from ..privacy.protocol.mrr import MRRProtocol
from ..privacy.public_prior import centres, reference_counts, with_public_prior
from ..privacy.schema import Categorical, Numeric
from ..privacy.stats import Counts
from ..privacy.synthetic import synthetic_from_model, synthetic_published
from ..privacy.warner import WarnerScheme
from .datasets import discretize_table

__all__ = ["Method", "Features", "Predictor", "DISCRETE", "BINARY", "NUMERIC", "MIXED", "GAUSSIAN", "DEFAULTS",
           "PARAMETERS", "DEFAULT_BINS", "register", "get", "names", "oracle_method", "binarize", "require_numeric"]

#: Predicts class codes for the rows of a feature matrix (in the method's representation).
Predictor = Callable[[np.ndarray], np.ndarray]
#: Privacy parameters and their defaults.
DEFAULTS = {"epsilon": 1.0, "theta": 0.7}
PARAMETERS = {"epsilon": "ε", "theta": "θ"}
#: Equal-width bins per numeric attribute for the discrete methods (seed 000 on Diabetes; BASELINES.md).
DEFAULT_BINS = 4
#: Labels of a one-hot attribute (``BINARY``).
NO, YES = "no", "yes"


# -- representations ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Features:
    """A representation: ``prepare(table, bins)`` returns the table as the method sees it (row by row, see module)."""

    name: str
    prepare: Callable[[Table, int], Table]


def binarize(table: Table, bins: int = DEFAULT_BINS) -> Table:
    """``DISCRETE``, then one yes/no attribute "name=value" per value of every non-binary categorical attribute."""
    if table.class_attribute.size != 2:
        raise ValueError(f"this method needs a binary class; {table.class_attribute.name!r} has "
                         f"{table.class_attribute.size} values")
    table = discretize_table(table, bins)
    attributes, columns = [], []
    for j, attr in enumerate(cast(Sequence[Categorical], table.attributes)):  # discretized: all categorical
        if attr.size == 2:
            attributes.append(attr)
            columns.append(table.X[:, j])
            continue
        for code, label in enumerate(attr.values):
            attributes.append(Categorical(f"{attr.name}={label}", (NO, YES)))
            columns.append((table.X[:, j] == code).astype(np.float64))
    return replace(table, attributes=tuple(attributes), X=np.column_stack(columns),
                   columns=tuple(a.name for a in attributes))


def require_numeric(table: Table, bins: int = DEFAULT_BINS) -> Table:
    """The table itself when every feature is numeric, else ``ValueError`` naming the categorical ones."""
    categorical = [a.name for a in table.attributes if not isinstance(a, Numeric)]
    if categorical:
        shown = ", ".join(repr(n) for n in categorical[:5]) + (", …" if len(categorical) > 5 else "")
        mixed = len(categorical) < len(table.attributes)
        raise ValueError(f"this method needs numeric features only, but {len(categorical)} are categorical ({shown}); "
                         "load them as numeric if they are measurements, or choose a discrete method"
                         + ("; for a table that mixes categorical and numeric features use gauss-sample (Gaussian "
                            "Approach 3: one report per respondent; Approaches 1 and 2 report every numeric answer "
                            "at once)" if mixed else ""))
    return table


def require_some_numeric(table: Table, bins: int = DEFAULT_BINS) -> Table:
    """The table as loaded when at least one feature is numeric (``GAUSSIAN``), else ``ValueError``."""
    if not any(isinstance(a, Numeric) for a in table.attributes):
        raise ValueError("this method needs at least one numeric feature (Gaussian Naive Bayes); every feature is "
                         "categorical: choose a discrete method")
    return table


DISCRETE = Features("discrete", discretize_table)
BINARY = Features("binary", binarize)
NUMERIC = Features("numeric", require_numeric)
MIXED = Features("mixed", lambda table, bins: table)
GAUSSIAN = Features("gaussian", require_some_numeric)


# -- the method object --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Method:
    """A named way to train a classifier: ``fit(train, value, rng) -> Predictor`` on tables in ``features`` form.

    ``parameter`` names the privacy parameter ``value`` is ("epsilon", "theta" or ``None``); ``summary`` is one line
    for ``--help``.
    """

    name: str
    summary: str
    fit: Callable[[Table, Any, np.random.Generator], Predictor]  # value: a float, None when parameter is None
    parameter: str | None = None
    features: Features = DISCRETE
    #: For a method a live survey can run: its protocol configuration at a privacy value, without the questions
    #: (``privacy.protocol``'s "mode", "ldp", "mrr", "numeric" keys) — what the planner shows and applies.
    survey: Callable[[float], dict] | None = None
    #: The mechanism it runs (an oracle class, a Gaussian approach class, a protocol class), whose ``description``
    #: (``privacy.describe``) gives the planner's plain words.
    mechanism: object = None

    def __post_init__(self):
        if self.parameter is not None and self.parameter not in DEFAULTS:
            raise ValueError(f"parameter must be one of {', '.join(DEFAULTS)} or None, got {self.parameter!r}")

    @property
    def default(self) -> float | None:
        return DEFAULTS.get(self.parameter) if self.parameter else None

    def check(self, value=None) -> float | None:
        """The privacy parameter to use: ``value`` (checked) or the default; ``ValueError`` when out of range."""
        if self.parameter is None:
            if value is not None:
                raise ValueError(f"method {self.name!r} takes no privacy parameter")
            return None
        if value is None:
            return self.default
        if self.parameter == "theta":
            return check_theta(value, name="θ", allow_zero=False)
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ValueError("ε must be a number > 0") from None
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"ε must be a finite number > 0, got {value!r}")
        return value

    def prepare(self, table: Table, bins: int = DEFAULT_BINS) -> Table:
        return self.features.prepare(table, bins)

    def baseline(self) -> "Method":
        """The non-private counterpart: Naive Bayes on the same representation (the papers' "without privacy")."""
        return replace(NONPRIVATE, features=self.features)

    def train(self, table: Table, value=None, bins: int = DEFAULT_BINS, rng: np.random.Generator | None = None):
        """Prepare a loaded training table, fit, and return a predictor of loaded test tables' class codes."""
        rng = rng if rng is not None else np.random.default_rng()
        fitted = self.fit(self.prepare(table, bins), self.check(value), rng)
        return lambda test: fitted(self.prepare(test, bins).X)


_REGISTRY: dict[str, Method] = {}


def register(method: Method) -> Method:
    if method.name in _REGISTRY:
        raise ValueError(f"method {method.name!r} is already registered")
    _REGISTRY[method.name] = method
    return method


def names() -> list[str]:
    """Every method in registration order, then the frequency oracles registered after this module was imported (as
    their ``oracle_method``, see ``get``)."""
    return list(_REGISTRY) + [name for name in oracles.names(sort=False) if name not in _REGISTRY]


def get(name: str) -> Method:
    """The method ``name``; a frequency oracle registered after this module was imported (``oracles.register``) is
    found too, as its ``oracle_method``."""
    if name in _REGISTRY:
        return _REGISTRY[name]
    if name in oracles.names():
        return oracle_method(name)
    raise ValueError(f"unknown method {name!r}; choose one of {', '.join(_REGISTRY)}")


# -- fit functions ------------------------------------------------------------------------------------------------
def _nonprivate(alpha: float):
    """Naive Bayes on the true rows (SPEC §1, ``fit_nonprivate``): add-``alpha`` smoothed counts, per-class mean and
    standard deviation."""

    def fit(table: Table, value, rng) -> Predictor:
        return fit_nonprivate(table.class_attribute, table.attributes, table.X, table.y, alpha=alpha).predict

    return fit


def _survey(config: Callable[..., dict]):
    """A fit through a survey protocol: each training row is one respondent whose browser half (``encode``) sends a
    wire report; the server folds and estimates as for a live survey (``privacy.protocol``)."""

    def fit(table: Table, value: float, rng: np.random.Generator) -> Predictor:
        protocol = survey_protocol.build({
            "class": table.class_attribute.to_dict(),
            "features": [a.to_dict() for a in table.attributes],
            **config(value),
        })
        model = protocol.estimate(protocol.fold(protocol.encode(table.X, table.y, rng)))
        return lambda X: model.predict(protocol.to_model_input(X))

    return fit


def _ldp_nb(encoding: str):
    return lambda epsilon: {"mode": "ldp", "ldp": {"epsilon": epsilon, "encoding": encoding}}


def _gaussian(approach: int):
    return lambda epsilon: {"mode": "ldp", "ldp": {"epsilon": epsilon},
                            "numeric": {"handling": "gaussian", "approach": approach}}


def _mrr(theta: float) -> dict:
    return {"mode": "mrr", "mrr": {"theta": theta}}


def survey_method(name: str, summary: str, config: Callable[[float], dict], parameter: str,
                  features: Features | None = None, mechanism: object = None) -> Method:
    """Register a method that runs as a live survey with protocol configuration ``config(value)``."""
    return register(Method(name, summary, _survey(config), parameter=parameter, features=features or DISCRETE,
                           survey=config, mechanism=mechanism))


def _fit_warner(table: Table, theta: float, rng: np.random.Generator) -> Predictor:
    """Du & Zhan's related-question MRR (SPEC §2, ``privacy.warner``): each record kept w.p. θ, else negated."""
    binary = cast(tuple[Categorical, ...], table.attributes)  # one-hot binary attributes (features=BINARY)
    scheme = WarnerScheme(binary + (table.class_attribute,), class_index=len(table.attributes), theta=theta)
    reports = scheme.perturb(np.column_stack([table.X, table.y]).astype(np.int64), rng)
    return scheme.estimate(scheme.aggregate(reports)).to_model().predict


NONPRIVATE = register(Method("nonprivate", "Naive Bayes on the true data, unsmoothed: what every private estimator "
                                           "tends to as θ → 1 or ε → ∞ (SPEC §1)", _nonprivate(0.0)))
register(Method("nonprivate-add1", "Naive Bayes on the true data, add-1 smoothing (BASELINES.md's CategoricalNB)",
                _nonprivate(1.0)))
survey_method("mrr", "unrelated-question randomized response, one group, uniform personal answers (SPEC §2)", _mrr,
              parameter="theta", mechanism=MRRProtocol)
register(Method("warner", "Warner's related-question randomized response on one-hot binary attributes (SPEC §2)",
                _fit_warner, parameter="theta", features=BINARY))
def oracle_method(name: str) -> Method:
    """LDP Naive Bayes, one report per respondent, with the frequency oracle registered as ``name`` (its ``label``
    in the summary): the lab's method for every oracle of ``privacy.oracles``, registered under the oracle's name."""
    oracle = oracles.lookup(name)
    label = getattr(oracle, "label", "") or name
    return Method(name, f"LDP Naive Bayes, one report per respondent, {label} (SPEC §3–§4)", _survey(_ldp_nb(name)),
                  parameter="epsilon", features=DISCRETE, survey=_ldp_nb(name), mechanism=oracle)


for _name in oracles.names(sort=False):  # registration order: SPEC §3's table, then the adaptive choice
    register(oracle_method(_name))
# The estimators the default (empirical-Bayes shrinkage toward the marginal, ``privacy.shrinkage``) replaced, for the
# comparison (docs/results/): seed 000's post-processing (estimates below 1 become 1; "-neg1") and the simplex
# projection alone (Norm-Sub, the earlier default; "-normsub"); and THE at seed 000's threshold 0.25 instead
# of the variance-optimal one.
_POSTPROCESS_VARIANTS = (("neg1", "neg-to-one", "seed 000's post-processing (negative counts → 1)"),
                         ("normsub", "norm-sub", "the simplex projection alone (Norm-Sub), no shrinkage"),
                         ("postmean", "posterior-mean", "posterior means under the flat Dirichlet prior, no floor "
                                                        "(the earlier default)"),
                         ("marginal", "marginal-mean", "posterior means centred on the answer's marginal, no floor"),
                         ("share", "share-mean", "posterior means centred on the answer's marginal, κ averaged over "
                                                 "the class-explained share, the class prior shrunk too, no guard"),
                         ("moment", "moment-mean", "posterior means centred on the answer's marginal, one κ by the "
                                                  "method of moments, the private majority rule when it is ∞ (the "
                                                  "default before the share and its guard)"),
                         ("mle", "mle", "the closed-form MLE of k-RR frequencies (Pinzón et al.) where the input is "
                                        "DE, Norm-Sub elsewhere"))
for _encoding in ("de", "sue", "oue", "olh", "ss", "adaptive"):
    for _suffix, _postprocess, _label in _POSTPROCESS_VARIANTS:
        register(Method(f"{_encoding}-{_suffix}", f"{_encoding} with {_label}",
                        _survey(lambda epsilon, e=_encoding, pp=_postprocess: {
                            "mode": "ldp", "ldp": {"epsilon": epsilon, "encoding": e, "postprocess": pp}}),
                        parameter="epsilon"))
for _suffix, _postprocess, _label in _POSTPROCESS_VARIANTS:
    register(Method(f"mrr-{_suffix}", f"mrr with {_label}",
                    _survey(lambda theta, pp=_postprocess: {"mode": "mrr", "mrr": {"theta": theta, "postprocess": pp}}),
                    parameter="theta"))


def _private_majority(config: Callable[[float], dict]):
    """The private majority rule (SPEC §4): argmax P̂(c) of the model estimated from the same reports, for every
    record."""

    def fit(table: Table, value: float, rng: np.random.Generator) -> Predictor:
        protocol = survey_protocol.build({
            "class": table.class_attribute.to_dict(),
            "features": [a.to_dict() for a in table.attributes],
            **config(value),
        })
        model = protocol.estimate(protocol.fold(protocol.encode(table.X, table.y, rng)))
        top = int(np.argmax(model.prior))
        return lambda X: np.full(np.asarray(X).shape[0], top, dtype=np.int64)

    return fit


for _encoding in ("de", "sue", "oue", "olh", "ss", "adaptive"):
    register(Method(f"{_encoding}-majority", f"the private majority rule of {_encoding}: the class its privately "
                    "estimated prior ranks first, for every record (SPEC §4)", _private_majority(_ldp_nb(_encoding)),
                    parameter="epsilon"))
register(Method("mrr-majority", "the private majority rule of mrr (SPEC §4)", _private_majority(_mrr),
                parameter="theta"))
# -- choosing among candidates with the validation share (``privacy.validation.choose``) -------------------------------
#: The product's default validation share (``survey_app.models.Survey.validation_share``).
VALIDATION_SHARE = 0.1
#: The candidates, post-processing of the same training reports: the default estimator (the incumbent), the private
#: majority rule (the floor) and seed 000's negative→1 (the old rule the default falls furthest behind where it does:
#: docs/results/regret.md).
CANDIDATES = ("default", "majority", "neg1")


def _validated(encoding: str, share: float = VALIDATION_SHARE):
    """LDP Naive Bayes whose published model the validation share chooses: each row is a validation respondent with
    probability ``share`` (as the browser draws it), the others report for training; the candidates are fitted from
    the training reports; each validation respondent is assigned a candidate at random (``validation.assign``),
    classifies its own true answers with it and sends "right?" through binary randomized response at the survey's ε;
    ``validation.choose`` publishes the default unless a candidate's interval separates above it."""

    def fit(table: Table, epsilon: float, rng: np.random.Generator) -> Predictor:
        spec = {"class": table.class_attribute.to_dict(), "features": [a.to_dict() for a in table.attributes]}
        default = cast(LDPProtocol, survey_protocol.build({**spec, **_ldp_nb(encoding)(epsilon)}))
        neg1 = survey_protocol.build({**spec, "mode": "ldp",
                                      "ldp": {"epsilon": epsilon, "encoding": encoding, "postprocess": "neg-to-one"}})
        validating = rng.random(table.n) < share
        train, held = table.subset(~validating), table.subset(validating)
        stats = default.fold(default.encode(train.X, train.y, rng))
        model, other = default.estimate(stats), neg1.estimate(stats)
        top = int(np.argmax(model.prior))
        predictors: dict[str, Predictor] = {
            "default": lambda X: model.predict(default.to_model_input(X)),
            "majority": lambda X: np.full(np.asarray(X).shape[0], top, dtype=np.int64),
            "neg1": lambda X: other.predict(neg1.to_model_input(X)),
        }
        assigned = validation.assign(held.n, len(CANDIDATES), rng)
        oracle = validation.correct_oracle(default.epsilon_per_respondent)
        estimates: dict[str, validation.AccuracyEstimate | None] = {}
        for i, name in enumerate(CANDIDATES):
            mine = assigned == i
            if not mine.any():
                estimates[name] = None
                continue
            right = (predictors[name](held.X[mine]) == held.y[mine]).astype(np.int64)
            reports = np.asarray(oracle.perturb(right, rng), dtype=np.int64)
            counts = Counts(int(reports.size), np.bincount(reports, minlength=2).astype(np.int64))
            estimates[name] = validation.ldp_accuracy(counts, default.epsilon_per_respondent)
        return predictors[validation.choose(estimates, "default").published]

    return fit


register(Method("adaptive-validated", f"the default, the private majority rule or negative→1, whichever the "
                f"validation share ({VALIDATION_SHARE:.0%} of respondents, assigned at random among them) finds "
                "better beyond its interval; the default otherwise (privacy.validation.choose)",
                _validated("adaptive"), parameter="epsilon"))


# -- a public reference sample as the conditionals' prior (``privacy.public_prior``) -----------------------------------
#: Sizes of the public sample the ``-public<N>`` methods hold out of the training rows (they do not report).
PUBLIC_ROWS = (50, 100, 500)


def _split_public(table: Table, rows: int, rng: np.random.Generator) -> tuple[Table, Table]:
    if table.n <= rows:
        raise ValueError(f"a public sample of {rows} rows needs a training part larger than {table.n} rows")
    order = rng.permutation(table.n)
    return table.subset(np.sort(order[:rows])), table.subset(np.sort(order[rows:]))


def _public_prior(encoding: str, rows: int):
    """LDP Naive Bayes whose conditionals take a held-out public sample of ``rows`` training rows as their prior, with
    the weight the other rows' reports decide (``public_prior.with_public_prior``)."""

    def fit(table: Table, epsilon: float, rng: np.random.Generator) -> Predictor:
        public, reporting = _split_public(table, rows, rng)
        protocol = survey_protocol.build({"class": table.class_attribute.to_dict(),
                                          "features": [a.to_dict() for a in table.attributes],
                                          **_ldp_nb(encoding)(epsilon)})
        model = protocol.estimate(protocol.fold(protocol.encode(reporting.X, reporting.y, rng)))
        counts = reference_counts(protocol.to_model_input(public.X), public.y, model.attributes,
                                  table.class_attribute.size)
        published = with_public_prior(model, counts)
        return lambda X: published.predict(protocol.to_model_input(X))

    return fit


def _public_only(rows: int):
    """Naive Bayes from the public sample alone (add-½ counts): what the sample gives without any report."""

    def fit(table: Table, value: float, rng: np.random.Generator) -> Predictor:
        public, _ = _split_public(table, rows, rng)
        k = table.class_attribute.size
        counts = reference_counts(public.X, public.y, table.attributes, k)
        prior = (np.bincount(public.y, minlength=k) + 0.5) / (public.n + 0.5 * k)
        model = NaiveBayesModel(table.class_attribute, table.attributes, prior, [centres(c) for c in counts])
        return lambda X: model.predict(np.asarray(X, dtype=np.int64))

    return fit


for _rows in PUBLIC_ROWS:
    register(Method(f"adaptive-public{_rows}", f"the default with a public sample of {_rows} training rows (held "
                    "out: they do not report) as the conditionals' prior, its weight decided by the reports "
                    "(empirical Bayes; privacy.public_prior)", _public_prior("adaptive", _rows), parameter="epsilon"))
    register(Method(f"public{_rows}-only", f"Naive Bayes from a public sample of {_rows} training rows alone "
                    "(add-½ counts), no report", _public_only(_rows), parameter="epsilon"))
register(Method("the-0.25", "THE at seed 000's threshold 0.25", _survey(
    lambda epsilon: {"mode": "ldp", "ldp": {"epsilon": epsilon, "encoding": "the", "parameters": {"threshold": 0.25}}}),
    parameter="epsilon"))
for _name, _approach, _label, _features in (
        ("gauss-laplace", 1, "Approach 1: all vectors + Laplace; numeric features only", NUMERIC),
        ("gauss-onebit", 2, "Approach 2: one bit; numeric features only", NUMERIC),
        ("gauss-sample", 3, "Approach 3: one sampled vector + Laplace; categorical features, if any, through "
                            "their class-joint frequency oracles in the same one report (a mixed survey)", GAUSSIAN)):
    survey_method(_name, f"LDP Gaussian Naive Bayes, {_label} (SPEC §5b)", _gaussian(_approach), parameter="epsilon",
                  features=_features, mechanism=APPROACH_CLASSES[_approach])
    register(Method(f"{_name}-majority", f"the private majority rule of {_name} (SPEC §4)",
                    _private_majority(_gaussian(_approach)), parameter="epsilon", features=_features))
    register(Method(f"{_name}-nofloor", f"{_name} without the floor (every question kept, as before the floor)",
                    _survey(lambda epsilon, a=_approach: {**_gaussian(a)(epsilon), "ldp": {
                        "epsilon": epsilon, "postprocess": "posterior-mean"}}), parameter="epsilon",
                    features=_features))


# -- adaptive allocation of respondents (privacy.allocation, docs/results/013-allocation.md) ---------------------------
#: Rows of the training part held out as a public pilot sample (the reference sample a designer may upload): they set
#: the assignment and do not report.
PILOT_ROWS = 100
#: Respondents of the ``-rounds`` methods report in this many equal waves, each assigned from the estimates so far.
ROUNDS = 2


def _fit_allocated(encoding: str, how: str):
    """LDP NB, one report each, with the product's adaptive allocation (``LDPProtocol.pilot_assignment`` from a
    held-out public pilot, planned for the respondents there are, ``how="pilot"``; ``next_assignment`` after each
    wave, ``"rounds"``)."""

    def fit(table: Table, epsilon: float, rng: np.random.Generator) -> Predictor:
        protocol = survey_protocol.build({
            "class": table.class_attribute.to_dict(), "features": [a.to_dict() for a in table.attributes],
            "mode": "ldp", "ldp": {"epsilon": epsilon, "encoding": encoding, "allocation": "adaptive"}})
        nb = cast(LDPProtocol, protocol).nb
        X, y = table.X.astype(np.int64), table.y
        rows = rng.permutation(table.n)
        if how == "pilot":
            pilot, rows = rows[:PILOT_ROWS], rows[PILOT_ROWS:]
            waves, weights = [rows], protocol.pilot_assignment(X[pilot], y[pilot], respondents=rows.size)
        else:
            waves, weights = np.array_split(rows, ROUNDS), None
        total = None
        for i, wave_rows in enumerate(waves):
            wave = LDPNaiveBayes(nb.class_attribute, nb.attributes, epsilon, oracle=encoding, assignment=weights)
            stats = wave.aggregate(wave.perturb(X[wave_rows], y[wave_rows], rng))
            total = stats if total is None else total + stats
            if i + 1 < len(waves):
                try:
                    weights = protocol.next_assignment(nb.estimate(total), total)
                except ValueError:  # an input without reports yet: stay uniform
                    pass
        assert total is not None  # at least one wave
        return nb.estimate(total).predict

    return fit


for _how, _label in (("pilot", f"assignment from a held-out public pilot of {PILOT_ROWS} rows"),
                     ("rounds", f"assignment re-estimated after each of {ROUNDS} waves")):
    register(Method(f"oue-{_how}", f"OUE LDP Naive Bayes, one report per respondent, {_label} (privacy.allocation)",
                    _fit_allocated("oue", _how), parameter="epsilon"))

# -- central-DP comparison classifiers (SPEC §7, seed 003; privacy.comparison) --------------------------------------
def _comparison(fit_classifier):
    def fit(table: Table, epsilon: float, rng: np.random.Generator) -> Predictor:
        return fit_classifier(table.class_attribute, table.attributes, table.X, table.y, epsilon, rng).predict

    return fit


register(Method("dp-svm", "central ε-DP linear SVM, objective perturbation with Huber loss (SPEC §7)",
                _comparison(fit_dp_svm), parameter="epsilon", features=MIXED))
register(Method("dp-tree", "central ε-DP CART of depth 3 on binary attributes, noisy counts (SPEC §7)",
                _comparison(fit_dp_tree), parameter="epsilon", features=DISCRETE))
register(Method("svm", "the same linear SVM without noise (dp-svm at ε = ∞; seed 003's non-private SVM)",
                lambda table, value, rng: _comparison(fit_dp_svm)(table, math.inf, rng), features=MIXED))
register(Method("tree", "the same CART without noise (dp-tree at ε = ∞; seed 003's non-private tree)",
                lambda table, value, rng: _comparison(fit_dp_tree)(table, math.inf, rng), features=DISCRETE))


# -- dimensionality reduction before perturbation (SPEC §5c, seed 000 Figs. 3–4) ------------------------------------
def _projected(fit_projection, components: int, numeric: dict, encoding: str | None = None):
    """LDP Naive Bayes on ``components`` PCA or DCA components of the numeric features. As in seed 000, the projection
    is fitted on the training rows themselves; a live survey fits it on a public reference sample instead
    (``privacy.protocol``'s ``"projection"``), which this stands in for."""

    def fit(table: Table, epsilon: float, rng: np.random.Generator) -> Predictor:
        projection = fit_projection(table, components)
        ldp = {"epsilon": epsilon} if encoding is None else {"epsilon": epsilon, "encoding": encoding}
        return _survey(lambda e: {"mode": "ldp", "ldp": ldp, "numeric": numeric,
                                  "projection": projection.to_dict()})(table, epsilon, rng)

    return fit


_PROJECTIONS = {"pca": lambda table, n: fit_pca(table.X, n), "dca": lambda table, n: fit_dca(table.X, table.y, n)}
for _kind, _n in (("pca", 6), ("dca", 1)):  # seed 000's best component counts for discretized Diabetes
    for _encoding in ("de", "oue"):
        register(Method(f"{_encoding}-{_kind}{_n}", f"{_encoding} on {_n} {_kind.upper()} component(s) in "
                        f"{DEFAULT_BINS} bins (SPEC §5a, §5c)",
                        _projected(_PROJECTIONS[_kind], _n, {"handling": "discretize", "bins": DEFAULT_BINS},
                                   _encoding),
                        parameter="epsilon", features=NUMERIC))
for _kind in ("pca", "dca"):  # one component: seed 000's best for Gaussian NB
    for _name, _approach in (("gauss-laplace", 1), ("gauss-onebit", 2), ("gauss-sample", 3)):
        register(Method(f"{_name}-{_kind}1", f"LDP Gaussian NB, Approach {_approach}, on one {_kind.upper()} component "
                        "(SPEC §5b, §5c)",
                        _projected(_PROJECTIONS[_kind], 1, {"handling": "gaussian", "approach": _approach}),
                        parameter="epsilon", features=NUMERIC))


# -- central-DP Naive Bayes and DP synthetic data (SPEC §6, §8; privacy.central, privacy.synthetic) ----------------
def _central(fit_model):
    def fit(table: Table, epsilon: float, rng: np.random.Generator) -> Predictor:
        return fit_model(table.class_attribute, table.attributes, table.X, table.y, epsilon, rng).predict

    return fit


def _train_on(synthetic) -> Predictor:
    """Naive Bayes (add-1) fitted on synthetic rows: what a data user would do with the release."""
    return fit_nonprivate(synthetic.class_attribute, synthetic.attributes, synthetic.X, synthetic.y, alpha=1.0).predict


def _fit_synthetic_em(table: Table, epsilon: float, rng: np.random.Generator) -> Predictor:
    discrete = cast(Sequence[Categorical], table.attributes)  # features=DISCRETE
    return _train_on(synthetic_published(table.class_attribute, discrete, table.X, table.y, epsilon,
                                         size=table.n, rng=rng))


def _fit_synthetic_post(table: Table, epsilon: float, rng: np.random.Generator) -> Predictor:
    model = fit_laplace_nb(table.class_attribute, table.attributes, table.X, table.y, epsilon, rng)
    return _train_on(synthetic_from_model(model, size=table.n, rng=rng))


register(Method("central-laplace", "central ε-DP Naive Bayes, global sensitivity, Laplace noise (SPEC §6, seed 003)",
                _central(fit_laplace_nb), parameter="epsilon", features=MIXED))
register(Method("central-smooth",
                "central ε-DP Naive Bayes, smooth sensitivity (Cauchy) for μ and σ (SPEC §6, seed 002)",
                _central(fit_smooth_nb), parameter="epsilon", features=MIXED))
register(Method("central-robust", "central ε-DP Naive Bayes that degrades to the prior: budget split favouring the "
                "class counts, noise-aware shrinkage, variance floor (privacy.central.robust_nb)",
                _central(fit_robust_nb), parameter="epsilon", features=MIXED))
register(Method("synthetic-em", "NB trained on the seed 001 exponential-mechanism synthetic data, as published — not "
                                "proven ε-DP (SPEC §8)", _fit_synthetic_em, parameter="epsilon", features=DISCRETE))
register(Method("synthetic-post", "NB trained on rows sampled from a central-laplace model: post-processing, ε-DP "
                                  "(SPEC §8)", _fit_synthetic_post, parameter="epsilon", features=MIXED))
