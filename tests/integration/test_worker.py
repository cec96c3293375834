"""A real Celery worker process behind a real Redis broker runs ``retrain_survey`` (slow: real processes)."""
import pytest

from aggregator import tasks
from aggregator.models import ModelVersion, PartialStatistics
from tests.factories import add_reports, days_pass, make_survey

from .helpers import from_scratch, stored
from .processes import celery_client

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_worker_process_folds_and_publishes(database_url, redis_url, start_worker):
    survey = make_survey(mode="mrr")
    add_reports(survey, 800)
    days_pass(survey)  # models include closed days only: these reports' day has ended
    start_worker("w1", database_url, redis_url)
    with celery_client(redis_url) as client:
        assert client.send_task(tasks.retrain_survey.name, args=[survey.id]).get(timeout=60) == 1
        assert client.send_task(tasks.retrain_survey.name, args=[survey.id]).get(timeout=60) is None  # nothing new
        add_reports(survey, 200, seed=1)
        assert client.send_task(tasks.retrain_survey.name, args=[survey.id]).get(timeout=60) is None  # today open
        days_pass(survey)
        assert client.send_task(tasks.retrain_survey.name, args=[survey.id]).get(timeout=60) == 2
    assert stored(survey) == from_scratch(survey)
    versions = ModelVersion.objects.filter(survey=survey).order_by("version")
    assert list(versions.values_list("version", "report_count")) == [(1, 800), (2, 1000)]
    assert not PartialStatistics.objects.exists()
