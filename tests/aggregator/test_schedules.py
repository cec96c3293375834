"""One periodic retraining task per open survey, at the designer's interval, disabled when the survey closes."""
import json

import pytest
from django_celery_beat.models import PeriodicTask

from survey_app.models import Survey

pytestmark = pytest.mark.django_db


def test_schedule_follows_the_survey():
    survey = Survey.objects.create(title="t", slug="t", mode="ldp", epsilon=1.0, retrain_minutes=15)
    assert not PeriodicTask.objects.filter(enabled=True).exists()  # drafts are not retrained
    survey.status = "open"
    survey.save()
    task = PeriodicTask.objects.get(enabled=True)
    assert task.task == "aggregator.tasks.retrain_survey" and json.loads(task.args) == [survey.pk]
    assert task.interval.every == 15 and task.interval.period == "minutes"
    survey.retrain_minutes = 5
    survey.save()
    assert PeriodicTask.objects.get(pk=task.pk).interval.every == 5
    survey.status = "closed"
    survey.save()
    assert not PeriodicTask.objects.get(pk=task.pk).enabled
    assert PeriodicTask.objects.count() == 1
