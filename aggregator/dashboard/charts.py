"""Chart-ready JSON for the staff dashboard (issue 4, "Dashboard"): small pure functions that turn what a survey
stores — ``ModelVersion.model`` / ``privacy`` / ``metrics``, accuracy estimates, report counts per day — into the
plain dicts the page's Chart.js code draws (``static/js/dashboard/charts.mjs``). No database access: every figure is
unit-tested without Django (``tests/dashboard/test_charts.py``).

Intervals are 95 % normal intervals, as for the accuracy estimates (``privacy.validation.CONFIDENCE``):
estimate ± z·SE with z = Φ⁻¹(0.975) ≈ 1.96, clipped to the parameter's range for display. The standard errors come
from the survey's protocol (``SurveyProtocol.conditional_standard_errors``), which names how (``interval_method``):

* ``"delta"`` — discrete LDP Naive Bayes (SPEC §4): the delta-method standard error of the published P(a | c)
  itself; Gaussian Naive Bayes (SPEC §5b): μ_c ± z·SE(μ_c), in the attribute's own units.
* ``"bound"`` — MRR (SPEC §2): a conservative bound on the delta method for the ratio P(a ∧ c)/P(c) (Cauchy–Schwarz
  on the unpublished covariance, ``privacy.mrr.conditional_standard_error_bound``): these intervals cover at least
  95 %.
* ``"none"`` — a model without standard errors (e.g. fitted on true data): estimates only.
"""
from __future__ import annotations

import math
from datetime import date, timedelta
from typing import Iterable, Mapping, Sequence

import numpy as np
from scipy.stats import norm

from aggregator.privacy.jsonable import json_safe
from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from aggregator.privacy.schema import Categorical
from aggregator.privacy.validation import CONFIDENCE

__all__ = ["Z", "MAX_DAILY_POINTS", "reports_over_time", "accuracy_series", "attribute_distributions",
           "privacy_per_attribute", "privacy_summary", "findings", "warning_count"]

#: Normal quantile of the dashboard's intervals (≈ 1.96 for 95 %).
Z = float(norm.ppf(0.5 + CONFIDENCE / 2))
#: Beyond this many days, reports are counted per week (Monday to Sunday) rather than per day.
MAX_DAILY_POINTS = 120


def _number(x) -> float | None:
    """A finite float, or ``None`` (JSON ``null``: Chart.js leaves a gap)."""
    if x is None or isinstance(x, str):
        return None
    x = float(x)
    return x if math.isfinite(x) else None


# -- reports over time -----------------------------------------------------------------------------------------
def reports_over_time(rows: Iterable[tuple[date, int, int]], max_daily_points: int = MAX_DAILY_POINTS) -> dict:
    """Training and validation reports per day — or per week (labelled by its Monday) when the survey spans more than
    ``max_daily_points`` days — from ``(received_on, training, validation)`` rows, with empty days filled in.

    Reports carry only a coarse date (``Report.received_on``), so a day is the finest resolution there is."""
    counts: dict[date, list[int]] = {}
    for day, training, validation in rows:
        entry = counts.setdefault(day, [0, 0])
        entry[0] += int(training)
        entry[1] += int(validation)
    if not counts:
        return {"bucket": "day", "labels": [], "training": [], "validation": []}
    first, last = min(counts), max(counts)
    weekly = (last - first).days + 1 > max_daily_points
    if weekly:
        by_week: dict[date, list[int]] = {}
        for day, (training, validation) in counts.items():
            entry = by_week.setdefault(day - timedelta(days=day.weekday()), [0, 0])
            entry[0] += training
            entry[1] += validation
        counts, step = by_week, timedelta(days=7)
        first, last = min(counts), max(counts)
    else:
        step = timedelta(days=1)
    labels, training, validation = [], [], []
    day = first
    while day <= last:
        t, v = counts.get(day, (0, 0))
        labels.append(day.isoformat())
        training.append(t)
        validation.append(v)
        day += step
    return {"bucket": "week" if weekly else "day", "labels": labels, "training": training, "validation": validation}


# -- accuracy per version --------------------------------------------------------------------------------------
def accuracy_series(versions: Sequence[int], accuracies: Mapping[int, dict]) -> dict:
    """One point per model version (oldest first): the accuracy estimate and its interval ``[low, high]``, or
    ``null`` where the version has no estimate (LDP: no validation respondent has evaluated it yet)."""
    versions = sorted(versions)
    out = {"labels": [f"v{v}" for v in versions], "versions": versions,
           "estimate": [], "low": [], "high": [], "reports": [], "method": None}
    for v in versions:
        acc = accuracies.get(v)
        out["estimate"].append(_number(acc["estimate"]) if acc else None)
        out["low"].append(_number(acc["low"]) if acc else None)
        out["high"].append(_number(acc["high"]) if acc else None)
        out["reports"].append(int(acc["reports"]) if acc else 0)
        if acc:
            out["method"] = acc.get("method")
    return out


# -- per-attribute distributions -------------------------------------------------------------------------------
def _interval(estimate: np.ndarray, se: np.ndarray | None, low: float, high: float):
    """Estimate ± Z·SE clipped to [low, high]; ``None`` bounds without standard errors, the whole range where one
    is unknown (NaN) or infinite."""
    if se is None:
        return [None] * estimate.size, [None] * estimate.size
    se = np.where(np.isnan(se), np.inf, se)  # an unknown SE says nothing: the whole range
    return (np.clip(estimate - Z * se, low, high).tolist(), np.clip(estimate + Z * se, low, high).tolist())


def attribute_distributions(model_dict: dict, protocol=None) -> list[dict]:
    """Per feature attribute, what the model estimates for each class, with 95 % intervals from the standard errors
    ``protocol.conditional_standard_errors`` gives (``interval_method``; module docstring); without a ``protocol``
    (a model fitted on true data), estimates only.

    Categorical (and discretized numeric) attributes: ``{"kind": "categorical", "name", "values": [labels],
    "classes", "interval_method", "series": [{"class", "estimate": [P(a | c) per value], "low", "high"}]}``.
    Numeric attributes (Gaussian NB): ``{"kind": "numeric", "name", "low_bound", "high_bound", "classes",
    "interval_method", "estimate": [μ_c], "low", "high", "sigma": [σ_c]}`` in the attribute's units, intervals
    clipped to its public bounds."""
    model = NaiveBayesModel.from_dict(model_dict)
    method, standard_errors = protocol.conditional_standard_errors(model) if protocol is not None else ("none", None)
    if standard_errors is None:
        method = "none"
    classes = list(model.classes)
    out = []
    for i, (attr, table) in enumerate(zip(model.attributes, model.conditionals, strict=True)):
        se = None if standard_errors is None else np.asarray(standard_errors[i], dtype=np.float64)
        if isinstance(attr, Categorical):
            series = []
            for c, label in enumerate(classes):
                low, high = _interval(table[:, c], None if se is None else se[:, c], 0.0, 1.0)
                series.append({"class": label, "estimate": table[:, c].tolist(), "low": low, "high": high})
            out.append({"kind": "categorical", "name": attr.name, "values": list(attr.values), "classes": classes,
                        "interval_method": method, "series": series})
        else:
            low, high = _interval(table[0], se, attr.low, attr.high)
            out.append({"kind": "numeric", "name": attr.name, "low_bound": attr.low, "high_bound": attr.high,
                        "classes": classes, "interval_method": method,
                        "estimate": table[0].tolist(), "low": low, "high": high, "sigma": table[1].tolist()})
    return json_safe(out)


# -- privacy ---------------------------------------------------------------------------------------------------
def _epsilon(x) -> tuple[float | None, bool]:
    """A stored ε figure (a number, or "Infinity" — ``privacy.jsonable.json_safe`` — or ∞) → (finite value or
    ``None``, whether it is ∞): JSON has no ∞, so the chart gets a flag beside a gap."""
    if x is None:
        return None, False
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None, False
    return (x, False) if math.isfinite(x) else (None, x > 0)


def privacy_per_attribute(privacy: dict) -> dict:
    """ε per question (question order as published; exact, issue 11 item 4, unless ``epsilon_exact`` is false) with
    ``epsilon_infinite`` flags (∞ has no JSON number); for MRR with a real personal question also the figures
    against someone who knows the personal answers (``epsilon_known_personal``, ``None`` otherwise) and the
    ``epsilon_note`` saying which is which; PSE per question: with a uniform prior (known before any data), and
    before / after mining with the estimated model — after mining the informative figure with its standard error
    and method, and the paper-literal one (seed 004 §4; ``null`` where absent)."""
    names = list((privacy.get("epsilon_per_question") or {}).keys())

    def column(key: str):
        values = privacy.get(key)
        return None if values is None else [_number(values.get(n)) for n in names]

    def epsilons(key: str):
        values = privacy.get(key)
        if values is None:
            return None, None
        pairs = [_epsilon(values.get(n)) for n in names]
        return [v for v, _ in pairs], [inf for _, inf in pairs]

    epsilon, infinite = epsilons("epsilon_per_question")
    known, known_infinite = epsilons("epsilon_per_question_known_personal")
    if known is not None and (known, known_infinite) == (epsilon, infinite):
        known = known_infinite = None  # no real personal question: one figure
    respondent, respondent_infinite = _epsilon(privacy.get("epsilon_per_respondent"))
    respondent_known, respondent_known_infinite = _epsilon(privacy.get("epsilon_per_respondent_known_personal"))
    return {
        "mode": privacy.get("mode"),
        "labels": names,
        "epsilon": epsilon,
        "epsilon_infinite": infinite,
        "epsilon_known_personal": known,
        "epsilon_known_personal_infinite": known_infinite,
        "epsilon_note": privacy.get("epsilon_note"),
        "epsilon_exact": privacy.get("epsilon_exact"),
        "epsilon_per_respondent": respondent,
        "epsilon_per_respondent_infinite": respondent_infinite,
        "epsilon_per_respondent_known_personal": None if known is None else respondent_known,
        "epsilon_per_respondent_known_personal_infinite": None if known is None else respondent_known_infinite,
        "pse_uniform": column("pse_per_question"),
        "pse_before": column("pse_before_mining"),
        "pse_after": column("pse_after_mining"),
        "pse_after_se": column("pse_after_mining_se"),
        "pse_after_paper": column("pse_after_mining_paper"),
        "pse_after_method": privacy.get("pse_after_mining_method"),
    }


def privacy_summary(privacy: dict | None) -> dict:
    """At a glance: ε per respondent (a float, ∞ included: the page prints it, never JSON) — and against someone who
    knows the real personal answers, when that differs, with the note saying which is which — and, for MRR, the
    survey's PSE: the minimum over its groups (SPEC §2, group privacy) before and after mining (``None`` where the
    privacy figures do not have them), each with the questions of the group it comes from (``…_group``)."""
    privacy = privacy or {}
    groups = privacy.get("groups") or []

    def lowest(key: str):
        """(the smallest figure over the groups, that group's questions), or (None, None)."""
        values = [(value, g.get("attributes") or []) for g in groups
                  if g.get(key) is not None and (value := _number(g.get(key))) is not None]
        return min(values, key=lambda pair: pair[0]) if values else (None, None)

    def minimum(key: str):
        return lowest(key)[0]

    def epsilon(key: str):
        value, infinite = _epsilon(privacy.get(key))
        return math.inf if infinite else value

    respondent = epsilon("epsilon_per_respondent")
    known = epsilon("epsilon_per_respondent_known_personal")
    return {"mode": privacy.get("mode"), "epsilon_per_respondent": respondent,
            "epsilon_per_respondent_known_personal": None if known == respondent else known,
            "epsilon_note": privacy.get("epsilon_note"),
            "pse_before": minimum("pse_before_mining"), "pse_after": minimum("pse_after_mining"),
            "pse_before_group": lowest("pse_before_mining")[1], "pse_after_group": lowest("pse_after_mining")[1],
            "pse_uniform": minimum("pse")}


# -- plausibility findings -------------------------------------------------------------------------------------
def findings(versions: Iterable[tuple[int, dict]]) -> list[dict]:
    """Every plausibility finding (``privacy.monitoring``, ``privacy.plausibility``) of the given ``(version, metrics)``
    pairs, newest version first: ``{"version", "kind": "out_of_range" | "jump" | "report_check", "parameter",
    "entries", "worst_z", "warning", …}`` with ``min``/``max`` (raw estimates outside [0, 1]), ``from``/``to`` (the
    largest jump) or ``check`` (which per-report statistic strayed from honest reports'). ``worst_z`` is ``None``
    when infinite (a zero standard error)."""
    out = []
    for version, metrics in sorted(versions, key=lambda pair: -pair[0]):
        for kind, key in (("out_of_range", "out_of_range"), ("jump", "jumps"), ("report_check", "plausibility")):
            for f in (metrics or {}).get(key) or []:
                row = {"version": version, "kind": kind, "parameter": f.get("parameter", ""),
                       "entries": int(f.get("entries", 0)), "worst_z": _number(f.get("worst_z")),
                       "warning": bool(f.get("warning"))}
                for extra in ("min", "max", "from", "to", "check"):
                    if extra in f:
                        row[extra] = _number(f[extra])
                out.append(row)
    return out


def warning_count(metrics: dict | None) -> int:
    """How many findings of one version are warnings (beyond ``monitoring.Z_WARN`` standard errors)."""
    metrics = metrics or {}
    return sum(bool(f.get("warning"))
               for key in ("out_of_range", "jumps", "plausibility") for f in metrics.get(key) or [])
