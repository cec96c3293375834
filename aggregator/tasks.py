"""Celery tasks: thin wrappers that load a survey by id and call ``aggregator.services``."""
from __future__ import annotations

from celery import shared_task

from survey_app.models import Survey

from . import services


@shared_task
def fold_survey(survey_id: int) -> int:
    """Fold a survey's new reports; returns how many."""
    return services.fold_new_reports(Survey.objects.get(pk=survey_id))


@shared_task
def retrain_survey(survey_id: int) -> int | None:
    """Fold and publish; returns the new version number (``None`` when nothing changed)."""
    version = services.retrain(Survey.objects.get(pk=survey_id))
    return version.version if version else None


@shared_task
def retrain_open_surveys() -> dict[str, int | None]:
    """Retrain every open survey (for a periodic schedule); returns {slug: new version or None}."""
    out: dict[str, int | None] = {}
    for survey in Survey.objects.filter(status=Survey.Status.OPEN).order_by("id"):
        version = services.retrain(survey)
        out[survey.slug] = version.version if version else None
    return out
