"""The planner: the accuracy to expect from each privacy setting before a survey launches.

Given a public reference table shaped like the survey's answers, ``plan`` runs the lab (``evaluate``: repeated
stratified 80/20 splits, every training row one simulated respondent through the survey's own client halves) for
every chosen method at every ε or θ of the grid, all on the same splits (one seed), and reports per setting:

* the mean accuracy over the repetitions and its 95 % interval — Student's t over the repetitions' accuracies,
  mean ± t₀.₉₇₅,ᵣ₋₁ · s/√r (``scipy.stats.t``), cut to [0, 1]: where the mean accuracy of this setting lies, not one
  survey's spread;
* the privacy the setting gives each respondent, from the survey protocol itself (``SurveyProtocol.privacy``): ε per
  respondent, and for MRR the PSE per question before any data (uniform priors; the smallest is reported);
* the non-private Naive Bayes on the same splits, the ceiling.

The recommendation is the most private setting whose interval lies above the target accuracy — the smallest ε, or for
θ the smallest ε per respondent — and, when none reaches it, the most accurate setting (``reached`` false). For the
recommended setting the learning curve answers "how many respondents": the same evaluation on stratified subsamples
of the reference table (``SIZES`` of its rows); the answer is the smallest training size from which every larger one
reaches the target on average — or none within the reference table's rows (more respondents may still reach it; the
table cannot tell).

Usefulness. The plan carries the majority rule — always guessing the reference table's most frequent
class, whose accuracy is that class's share of the rows (``majority_accuracy``, ``Table.majority_accuracy``). It has no
interval of the kind the settings have: the stratified splits give every repetition's test rows the same class counts,
so the rule scores the same on every repetition. A setting *beats the majority rule* (``beats_majority``) when the
lower end of its 95 % interval lies strictly above the majority rule's accuracy on the very same test rows (one
repetition, no interval: its mean accuracy does) — ``evaluate``'s majority accuracy, the class share up to the
rounding of the stratified split (``majority_test_accuracy``; a curve point's ``"majority"``), so that a model which
always predicts the most frequent class neither beats the rule nor falls below it. An interval whose upper end is below
it, or that reaches down to it, does not beat it. The plan applies the rule to every setting (at the reference table's
training size) and to the recommended setting at the planned number of
respondents (``respondents``; by default the reference table's training rows): that size is one more point of the
learning curve when it is smaller than the table's training part; when it is larger, the table can simulate no more
than its training rows and the expectation is the full table's (``expected["simulated"]`` says which). From the same
curve comes the smallest number of respondents from which every larger size beats the majority rule
(``respondents_to_beat_majority``).

The floor and the old rules (SPEC §4; docs/results/regret.md). On the same splits, every setting is also evaluated
as its private majority rule — the class the privately estimated prior ranks first, from the same randomized
reports, for every record (``<method>-majority``) — and as the older estimators of its family (Norm-Sub,
negative→1, the flat-Dirichlet posterior means, or for Gaussian NB itself without the floor; ``regret.family_of``).
A setting carries the paired 95 % intervals of its accuracy minus the private majority rule's (the floor) and minus
the binding old rule's (the regret: the old rule whose interval has the lowest upper end), and in how many
repetitions the model predicted the private majority rule's class for every test row, from the same reports
(``evaluate``'s ``compare``): the noise hid the answers' class signal and the model fell back on that rule, or the
answers moved none of its predictions. The learning curve carries the private majority rule too, so the warning at
the planned number of respondents can name the reason (``planning.usefulness_warning``).

Mixed reference data: when the table mixes categorical and numeric columns, ``gauss-sample`` plans
a survey that mixes them (``protocol.mixed``: Gaussian Approach 3 for the numbers, the class-joint frequency oracles
for the other questions, one report per respondent; ``Plan.mixed``); ``gauss-laplace`` and ``gauss-onebit`` refuse
such a table (they report every numeric answer at once), and the discrete methods plan the numbers in bins.

Every model is fitted as a live survey fits it with the engine's default estimator: the survey configurations
(``Method.survey``) name no post-processing, so the protocol's default (``privacy.postprocess.DEFAULT``, recorded as
``Plan.estimator``) applies — to the settings, the learning curve and so to the respondents needed.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import stats

from survey_app.tables import Table

from ..privacy import protocol as survey_protocol
from ..privacy.postprocess import DEFAULT as DEFAULT_ESTIMATOR
from ..privacy.schema import Numeric
from . import methods as registry
from .evaluate import Progress, evaluate
from .regret import Family, family_of, paired_interval

__all__ = ["Setting", "Plan", "plan", "SIZES", "survey_methods", "interval", "respondents_needed", "beats_majority",
           "respondents_to_beat_majority", "against"]

#: Fractions of the reference table's rows for the learning curve.
SIZES = (0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0)
CONFIDENCE = 0.95


def survey_methods() -> list[str]:
    """Methods a live survey can run (``Method.survey``), in registry order."""
    return [name for name in registry.names() if registry.get(name).survey is not None]


def interval(accuracies, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """(mean, low, high): the t interval of the mean of the repetitions' accuracies, cut to [0, 1] (one repetition:
    no interval)."""
    a = np.asarray(accuracies, dtype=np.float64)
    mean = float(a.mean())
    if a.size < 2:
        return mean, math.nan, math.nan
    half = float(stats.t.ppf(0.5 + confidence / 2, a.size - 1) * a.std(ddof=1) / math.sqrt(a.size))
    return mean, max(0.0, mean - half), min(1.0, mean + half)  # an accuracy lies in [0, 1]


@dataclass
class Setting:
    method: str
    parameter: str  #: "epsilon" or "theta"
    value: float
    accuracy: float
    low: float
    high: float
    epsilon_per_respondent: float
    min_pse: float | None  #: MRR: the smallest PSE of any question (uniform priors); None for LDP
    config: dict  #: the survey protocol configuration of this setting (``Method.survey``)
    beats_majority: bool = False  #: the interval's lower end lies above the majority rule (``beats_majority``)
    #: The engine's ``epsilon_note`` where the pure ε is ∞ only through outputs of negligible probability (grid
    #: Laplace: docs/privacy-figures.md), and the ε the setting asks for, by which the planner then ranks it.
    epsilon_note: str | None = None
    epsilon_configured: float | None = None
    #: The floor and the old rules on the same splits (``regret.family_of``; all None for a method without them):
    #: the private majority rule's mean accuracy, the paired difference setting − private majority (``floor``:
    #: {"mean", "low", "high"}), the binding old rule (the lowest upper end of its paired interval) with its mean
    #: accuracy, and the paired difference setting − that rule (``regret``).
    private_majority: float | None = None
    floor: dict | None = None
    best_rival: str | None = None
    best_rival_accuracy: float | None = None
    regret: dict | None = None
    #: Repetitions in which the model predicted the private majority rule's class for every test row (fitted from
    #: the same reports): it fell back on that rule, or the answers moved none of its predictions.
    matches_private_majority: int = 0

    @property
    def epsilon_for_ranking(self) -> float:
        """The ε that orders settings by privacy: the exact figure, or, where the engine notes that its ∞ comes only
        from outputs of negligible probability, the configured ε."""
        if math.isinf(self.epsilon_per_respondent) and self.epsilon_note and self.epsilon_configured is not None:
            return self.epsilon_configured
        return self.epsilon_per_respondent


@dataclass
class Plan:
    target: float
    reps: int
    seed: int
    n_rows: int
    n_train: int
    nonprivate_accuracy: float
    settings: list[Setting] = field(default_factory=list)
    recommendation: Setting | None = None
    reached: bool = False
    learning_curve: list[dict] = field(default_factory=list)  #: [{"n_train", "accuracy", "low", "high"}]
    respondents_needed: int | None = None
    majority_accuracy: float = math.nan  #: always guessing the most frequent class: its share of the rows
    majority_class: str = ""
    #: the majority rule on the settings' test rows (the class share up to the split's rounding): what they must beat
    majority_test_accuracy: float = math.nan
    estimator: str = DEFAULT_ESTIMATOR  #: the post-processing every model was fitted with (the engine's default)
    respondents: int | None = None  #: the planned number of respondents, if given
    #: The recommended setting at the planned number of respondents: {"respondents" (planned, or the training rows),
    #: "n_train" (simulated), "simulated" (False when the table has fewer training rows than planned), "accuracy",
    #: "low", "high", "majority" (the rule on the same test rows), "beats_majority"}; None without a learning curve.
    expected: dict | None = None
    respondents_to_beat_majority: int | None = None
    #: The reference table mixes categorical and numeric features: ``gauss-sample`` then plans a mixed survey
    #: (``MixedProtocol``: numbers kept, Approach 3; the other questions through their frequency oracles; one report
    #: per respondent), the discrete methods one with the numbers in bins.
    mixed: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


def _privacy(table: Table, config: dict) -> dict:
    """The privacy figures of ``config`` on ``table``'s questions, as ``Setting`` takes them."""
    protocol = survey_protocol.build({"class": table.class_attribute.to_dict(),
                                      "features": [a.to_dict() for a in table.attributes], **config})
    privacy = protocol.privacy()
    pse = privacy.get("pse_per_question")
    configured = privacy.get("epsilon_configured")
    return {"epsilon_per_respondent": float(privacy["epsilon_per_respondent"]),
            "min_pse": float(min(pse.values())) if pse else None,
            "epsilon_note": privacy.get("epsilon_note") or None,
            "epsilon_configured": None if configured is None else float(configured)}


def _more_private(setting: Setting) -> tuple:
    return (setting.epsilon_for_ranking, -setting.accuracy)


def beats_majority(accuracy: float, low: float | None, majority: float) -> bool:
    """Whether an expected accuracy clears the majority rule: the lower end ``low`` of its interval lies strictly
    above ``majority`` (no interval — one repetition, ``low`` NaN or None —: the mean ``accuracy`` does). An interval
    whose upper end is below the majority rule, or one that reaches down to it, does not."""
    bound = accuracy if low is None or math.isnan(low) else low
    return bool(bound > majority)


def respondents_to_beat_majority(curve: list[dict], majority: float | None = None) -> int | None:
    """The smallest training size from which every larger size of the learning curve beats the majority rule
    (``beats_majority``; each point's own ``"majority"``, on its test rows, unless ``majority`` is given), or
    ``None``."""
    needed = None
    for point in reversed(curve):
        if not beats_majority(point["accuracy"], point.get("low"), point["majority"] if majority is None else majority):
            break
        needed = point["n_train"]
    return needed


def plan(table: Table, methods: list[str], epsilons: list[float], thetas: list[float], *, reps: int = 5,
         seed: int = 0, target: float = 0.8, respondents: int | None = None,
         progress: Progress | None = None) -> Plan:
    """Evaluate every (method, value) of the grids on ``table`` (as ``datasets.load_table`` returns it); see module."""
    if not methods:
        raise ValueError("choose at least one method")
    unknown = [m for m in methods if m not in survey_methods()]
    if unknown:
        raise ValueError(f"not a survey method: {', '.join(unknown)}; choose from {', '.join(survey_methods())}")
    if not 0 < target <= 1:
        raise ValueError("the target accuracy must lie in (0, 1]")
    if respondents is not None and (isinstance(respondents, bool) or not isinstance(respondents, (int, np.integer))
                                    or respondents < 1):
        raise ValueError(f"the planned number of respondents must be a whole number ≥ 1, got {respondents!r}")
    points = [(m, v) for m in methods for v in (thetas if registry.get(m).parameter == "theta" else epsilons)]
    if not points:
        raise ValueError("the grid is empty: give ε values for LDP methods and θ values for MRR")
    majority = table.majority_accuracy()
    fractions = list(SIZES)
    # The planned number as one more point of the curve when the table's training part (80 % of its rows) is larger.
    planned_fraction = respondents / (table.n * 0.8) if respondents is not None else 1.0
    if planned_fraction < 1 and all(not math.isclose(planned_fraction, f) for f in fractions):
        fractions = sorted(fractions + [planned_fraction])
    families = {name: family_of(name) for name in methods}
    # Progress counts evaluations: per setting its own (with its private majority rule) and its old rules'; per curve
    # point one. Every evaluation uses the same splits and encodings (one seed): the comparisons are paired.
    total = sum(1 + len(_rivals(families[m])) for m, _ in points) + len(fractions)
    settings, evaluations, done = [], [], 0
    for name, value in points:
        method, family = registry.get(name), families[name]
        e = evaluate(table, method, value, reps=reps, seed=seed, compare=family.majority if family else None)
        if method.survey is None or method.parameter is None or e.value is None:
            raise ValueError(f"{name!r} does not run as a survey: the planner plans survey methods")
        done += 1
        rivals = {}
        for rival in _rivals(family):
            try:
                rivals[rival] = evaluate(table, rival, e.value, reps=reps, seed=seed).accuracies
            except ValueError:  # an old rule this table does not suit: compared with the others only
                pass
            done += 1
            if progress is not None:
                progress(done, total)
        mean, low, high = interval(e.accuracies)
        config = method.survey(e.value)
        privacy = _privacy(method.prepare(table), config)
        # every evaluation uses the same splits (one seed): the majority rule on its test rows is the same for all
        settings.append(Setting(name, method.parameter, e.value, mean, low, high, config=config,
                                beats_majority=beats_majority(mean, low, e.majority_accuracy), **privacy,
                                **against(e, rivals)))
        evaluations.append(e)
        if progress is not None:
            progress(done, total)
    # Every evaluation used the same splits (one seed): the first one's sizes are all's; its non-private accuracy is
    # Naive Bayes in the first method's representation (discretized, or Gaussian for the gauss-* methods).
    out = Plan(target, reps, seed, table.n, evaluations[0].n_train, evaluations[0].nonprivate_accuracy, settings,
               majority_accuracy=majority, majority_test_accuracy=evaluations[0].majority_accuracy,
               majority_class=table.class_attribute.values[int(np.bincount(table.y).argmax())],
               respondents=None if respondents is None else int(respondents),
               mixed=len({isinstance(a, Numeric) for a in table.attributes}) == 2)
    reaching = [s for s in settings if s.low >= target] if reps > 1 else [s for s in settings if s.accuracy >= target]
    out.reached = bool(reaching)
    out.recommendation = min(reaching, key=_more_private) if reaching else max(settings, key=lambda s: s.accuracy)
    out.learning_curve = _learning_curve(table, out.recommendation, fractions, reps, seed, done, total, progress,
                                         families[out.recommendation.method])
    out.respondents_needed = respondents_needed(out.learning_curve, target)
    out.respondents_to_beat_majority = respondents_to_beat_majority(out.learning_curve)
    out.expected = _expected(out.learning_curve, out.respondents if out.respondents is not None else out.n_train)
    return out


def _expected(curve: list[dict], planned: int) -> dict | None:
    """The learning-curve point for ``planned`` respondents: the one closest in size when ``planned`` is within the
    curve, else the largest (the table simulates no more)."""
    if not curve:
        return None
    largest = curve[-1]
    point = largest if planned >= largest["n_train"] else min(curve, key=lambda p: abs(p["n_train"] - planned))
    return {"respondents": int(planned), "n_train": point["n_train"],
            "simulated": planned <= largest["n_train"],
            "accuracy": point["accuracy"], "low": point["low"], "high": point["high"],
            "majority": point["majority"],
            "beats_majority": beats_majority(point["accuracy"], point["low"], point["majority"]),
            "private_majority": point.get("private_majority"), "reps": point.get("reps"),
            "matches_private_majority": point.get("matches_private_majority", 0)}


def respondents_needed(curve: list[dict], target: float) -> int | None:
    """The smallest training size from which every larger size of the learning curve reaches ``target`` on average
    (a single lucky small subsample does not count), or ``None``."""
    needed = None
    for point in reversed(curve):
        if point["accuracy"] < target:
            break
        needed = point["n_train"]
    return needed


def _learning_curve(table: Table, setting: Setting, fractions: list[float], reps: int, seed: int, done: int,
                    total: int, progress: Progress | None, family: Family | None = None) -> list[dict]:
    """Accuracy of ``setting`` on stratified subsamples of ``fractions`` of the rows (each subsample split 80/20),
    with its private majority rule's on the same splits when ``family`` has one; sizes too small for a model (with
    one report per respondent, some input may get no report at all) are left out."""
    rng = np.random.default_rng(seed)
    curve = []
    for fraction in fractions:
        rows = _stratified_subsample(table.y, fraction, rng)
        try:
            e = evaluate(table.subset(rows), setting.method, setting.value, reps=reps, seed=seed,
                         compare=family.majority if family else None)
        except ValueError:  # too few respondents for a model (an input without any report): no point
            e = None
        if e is not None:
            mean, low, high = interval(e.accuracies)
            point = {"n_train": e.n_train, "accuracy": mean, "low": low, "high": high,
                     "majority": e.majority_accuracy, "reps": len(e.accuracies)}
            if e.compare_accuracies:
                point |= {"private_majority": float(np.mean(e.compare_accuracies)),
                          "matches_private_majority": int(np.sum(e.identical))}
            curve.append(point)
        done += 1
        if progress is not None:
            progress(done, total)
    return curve


def _rivals(family: Family | None) -> tuple[str, ...]:
    return () if family is None else family.rivals


def _paired(diff) -> dict:
    mean, low, high = paired_interval(diff)
    return {"mean": mean, "low": None if math.isnan(low) else low, "high": None if math.isnan(high) else high}


def against(e, rivals: dict) -> dict:
    """A setting's figures against its private majority rule and its old rules (``Setting``'s fields): ``e`` its
    ``Evaluation`` with the private majority rule as ``compare`` (none: no figures), ``rivals`` each old rule's
    accuracies on the same splits. The binding old rule is the one whose paired interval has the lowest upper end
    (with one repetition: the lowest difference), as in ``regret.regret_table``."""
    if not e.compare_accuracies:
        return {}
    a = np.asarray(e.accuracies, dtype=np.float64)
    floor = np.asarray(e.compare_accuracies, dtype=np.float64)
    out = {"private_majority": float(floor.mean()), "floor": _paired(a - floor),
           "matches_private_majority": int(np.sum(e.identical))}
    gaps = {m: _paired(a - np.asarray(r, dtype=np.float64)) for m, r in rivals.items()}
    if gaps:
        best = min(gaps, key=lambda m: (gaps[m]["mean"] if gaps[m]["high"] is None else gaps[m]["high"],
                                        gaps[m]["mean"]))
        out |= {"best_rival": best, "best_rival_accuracy": float(np.mean(rivals[best])), "regret": gaps[best]}
    return out


def _stratified_subsample(y: np.ndarray, fraction: float, rng: np.random.Generator) -> np.ndarray:
    if fraction >= 1:
        return np.arange(y.size)
    rows = [rng.permutation(np.flatnonzero(y == c))[:max(2, round(fraction * np.sum(y == c)))] for c in np.unique(y)]
    return np.sort(np.concatenate(rows))
