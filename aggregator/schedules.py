"""The one place where retraining schedules are declared: every open survey gets a django-celery-beat
``PeriodicTask`` running ``aggregator.tasks.retrain_survey`` every ``survey.retrain_minutes``; other surveys' tasks
are disabled. ``sync_schedule`` runs whenever a survey is saved (``aggregator.apps``)."""
from __future__ import annotations

import json

from django_celery_beat.models import IntervalSchedule, PeriodicTask

from survey_app.models import Survey

TASK = "aggregator.tasks.retrain_survey"


def task_name(survey: Survey) -> str:
    return f"retrain survey {survey.pk}"


def sync_schedule(survey: Survey) -> PeriodicTask | None:
    """Create, update or disable the survey's periodic retraining task."""
    existing = PeriodicTask.objects.filter(name=task_name(survey)).first()
    if survey.status != Survey.Status.OPEN:
        if existing and existing.enabled:
            existing.enabled = False
            existing.save(update_fields=["enabled"])
        return existing
    interval, _ = IntervalSchedule.objects.get_or_create(every=survey.retrain_minutes, period=IntervalSchedule.MINUTES)
    task = existing or PeriodicTask(name=task_name(survey), task=TASK)
    task.interval = interval
    task.args = json.dumps([survey.pk])
    task.enabled = True
    task.save()
    return task
