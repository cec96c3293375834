"""What survey_app may read of the aggregator's tables: the published model versions (survey_app never queries
``aggregator.models`` itself; tests/test_architecture.py holds the contract).

Validation respondents evaluate the newest version published before the current UTC day began
(``validation_version_number``), so the version a validation report names tells no more than its day.
"""
from __future__ import annotations

import datetime
import math

from .models import ModelVersion


def _before(survey_id: int, midnight: datetime.datetime):
    return ModelVersion.objects.filter(survey_id=survey_id, created_at__lt=midnight).order_by("-version")


def validation_version_number(survey, midnight: datetime.datetime) -> int | None:
    """The number of the newest version of ``survey`` published before ``midnight`` (``None`` if none)."""
    return _before(survey.pk, midnight).values_list("version", flat=True).first()


def validation_version_metrics(survey, midnight: datetime.datetime) -> dict | None:
    """The stored metrics of that version (``validation_version_number``), or ``None`` if there is none."""
    return _before(survey.pk, midnight).values_list("metrics", flat=True).first()


def version_exists(survey, version: int) -> bool:
    """Whether ``survey`` has published version number ``version``."""
    return ModelVersion.objects.filter(survey_id=survey.pk, version=version).exists()


def planned_accuracy(user_id: int | None, mode: str, parameter: str, value: float, encoding: str | None) -> dict | None:
    """The accuracy the newest finished planner run of user ``user_id`` expects for a survey in ``mode`` with
    ``parameter`` (``"epsilon"`` or ``"theta"``) = ``value`` and, under LDP, the frequency oracle ``encoding``
    (``aggregator.planning``, ``lab.planner.Setting``): {"exact": the planned setting at this value or ``None``,
    "below"/"above": the nearest planned settings on either side, "source": the reference data, "job": the run's id,
    "n_train": its training rows}; each setting {"method", "value", "accuracy", "low", "high", "percent",
    "interval"}. ``None`` when no run of that user planned this mode (and encoding)."""
    from .models import Job
    from .planning import percent

    def matches(setting: dict) -> bool:
        config = setting.get("config") or {}
        if config.get("mode") != mode or setting.get("parameter") != parameter:
            return False
        return mode != "ldp" or (config.get("ldp") or {}).get("encoding", "adaptive") == encoding

    def shown(setting: dict) -> dict:
        low, high = setting.get("low"), setting.get("high")
        spread = "" if low is None or high is None else f"{percent(low).removesuffix(' %')}–{percent(high)}"
        return {"method": setting["method"], "value": setting["value"], "accuracy": setting["accuracy"],
                "low": low, "high": high, "percent": percent(setting["accuracy"]), "interval": spread}

    if user_id is None:
        return None
    runs = Job.objects.filter(kind=Job.Kind.PLANNER, state=Job.State.DONE, created_by_id=user_id)
    for job in runs.order_by("-created_at")[:20]:
        planned = [s for s in (job.result or {}).get("settings", []) if matches(s)]
        if not planned:
            continue
        exact = [s for s in planned if math.isclose(s["value"], value, rel_tol=1e-9)]
        below = [s for s in planned if s["value"] < value and not math.isclose(s["value"], value, rel_tol=1e-9)]
        above = [s for s in planned if s["value"] > value and not math.isclose(s["value"], value, rel_tol=1e-9)]
        best = max(exact, key=lambda s: s["accuracy"]) if exact else None
        return {"exact": shown(best) if best else None,
                "below": shown(max(below, key=lambda s: (s["value"], s["accuracy"]))) if below else None,
                "above": shown(min(above, key=lambda s: (s["value"], -s["accuracy"]))) if above else None,
                "source": job.params.get("dataset") or job.params.get("filename") or "CSV",
                "job": job.pk, "n_train": (job.result or {}).get("n_train")}
    return None
