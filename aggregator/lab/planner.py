"""The planner: the accuracy to expect from each privacy setting before a survey launches (issue 6, "The planner").

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
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import stats

from ..privacy import survey_protocol
from . import methods as registry
from .datasets import Table
from .evaluate import Progress, evaluate

__all__ = ["Setting", "Plan", "plan", "SIZES", "survey_methods", "interval", "respondents_needed"]

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

    def to_dict(self) -> dict:
        return asdict(self)


def _privacy(table: Table, config: dict) -> tuple[float, float | None]:
    protocol = survey_protocol.build({"class": table.class_attribute.to_dict(),
                                      "features": [a.to_dict() for a in table.attributes], **config})
    privacy = protocol.privacy()
    pse = privacy.get("pse_per_question")
    return float(privacy["epsilon_per_respondent"]), (float(min(pse.values())) if pse else None)


def _more_private(setting: Setting) -> tuple:
    return (setting.epsilon_per_respondent, -setting.accuracy)


def plan(table: Table, methods: list[str], epsilons: list[float], thetas: list[float], *, reps: int = 5,
         seed: int = 0, target: float = 0.8, progress: Progress | None = None) -> Plan:
    """Evaluate every (method, value) of the grids on ``table`` (as ``datasets.load_table`` returns it); see module."""
    if not methods:
        raise ValueError("choose at least one method")
    unknown = [m for m in methods if m not in survey_methods()]
    if unknown:
        raise ValueError(f"not a survey method: {', '.join(unknown)}; choose from {', '.join(survey_methods())}")
    if not 0 < target <= 1:
        raise ValueError("the target accuracy must lie in (0, 1]")
    points = [(m, v) for m in methods for v in (thetas if registry.get(m).parameter == "theta" else epsilons)]
    if not points:
        raise ValueError("the grid is empty: give ε values for LDP methods and θ values for MRR")
    total = len(points) + len(SIZES)
    settings, evaluations = [], []
    for i, (name, value) in enumerate(points):
        method = registry.get(name)
        e = evaluate(table, method, value, reps=reps, seed=seed)
        mean, low, high = interval(e.accuracies)
        config = method.survey(e.value)
        epsilon, pse = _privacy(method.prepare(table), config)
        settings.append(Setting(name, method.parameter, e.value, mean, low, high, epsilon, pse, config))
        evaluations.append(e)
        if progress is not None:
            progress(i + 1, total)
    # Every evaluation used the same splits (one seed): the first one's sizes are all's; its non-private accuracy is
    # Naive Bayes in the first method's representation (discretized, or Gaussian for the gauss-* methods).
    out = Plan(target, reps, seed, table.n, evaluations[0].n_train, evaluations[0].nonprivate_accuracy, settings)
    reaching = [s for s in settings if s.low >= target] if reps > 1 else [s for s in settings if s.accuracy >= target]
    out.reached = bool(reaching)
    out.recommendation = min(reaching, key=_more_private) if reaching else max(settings, key=lambda s: s.accuracy)
    out.learning_curve = _learning_curve(table, out.recommendation, reps, seed, len(points), total, progress)
    out.respondents_needed = respondents_needed(out.learning_curve, target)
    return out


def respondents_needed(curve: list[dict], target: float) -> int | None:
    """The smallest training size from which every larger size of the learning curve reaches ``target`` on average
    (a single lucky small subsample does not count), or ``None``."""
    needed = None
    for point in reversed(curve):
        if point["accuracy"] < target:
            break
        needed = point["n_train"]
    return needed


def _learning_curve(table: Table, setting: Setting, reps: int, seed: int, done: int, total: int,
                    progress: Progress | None) -> list[dict]:
    """Accuracy of ``setting`` on stratified subsamples of ``SIZES`` of the rows (each subsample split 80/20); sizes
    too small for a model (with one report per respondent, some input may get no report at all) are left out."""
    rng = np.random.default_rng(seed)
    curve = []
    for j, fraction in enumerate(SIZES):
        rows = _stratified_subsample(table.y, fraction, rng)
        try:
            e = evaluate(table.subset(rows), setting.method, setting.value, reps=reps, seed=seed)
        except ValueError:  # too few respondents for a model (an input without any report): no point
            e = None
        if e is not None:
            mean, low, high = interval(e.accuracies)
            curve.append({"n_train": e.n_train, "accuracy": mean, "low": low, "high": high})
        if progress is not None:
            progress(done + j + 1, total)
    return curve


def _stratified_subsample(y: np.ndarray, fraction: float, rng: np.random.Generator) -> np.ndarray:
    if fraction >= 1:
        return np.arange(y.size)
    rows = [rng.permutation(np.flatnonzero(y == c))[:max(2, round(fraction * np.sum(y == c)))] for c in np.unique(y)]
    return np.sort(np.concatenate(rows))
