"""Defects a new user meets first (issue 12 item 1), outside the browser: the planner's page after a run on a bundled
data set, "Retrain now" saying why no model was published, and ``/favicon.ico``."""
import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from aggregator import services, tasks
from aggregator.models import Job
from tests.factories import PLANNER_FORM, add_reports, after_midnight, make_survey, pass_days

pytestmark = pytest.mark.django_db


def test_the_planner_page_lists_a_finished_run_on_a_bundled_data_set(client, settings):
    """``job.params`` of a bundled data set has no ``filename``: the list of recent runs must not fail on it."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    client.force_login(User.objects.create_user("plan", password="pw", is_staff=True))
    assert client.post(reverse("dashboard:planner"), PLANNER_FORM).status_code == 302
    response = client.get(reverse("dashboard:planner"))
    assert response.status_code == 200
    assert "Your recent runs" in response.content.decode() and "— vote, oue, mrr: Done" in response.content.decode()


def _retrain_job(survey) -> Job:
    job = Job.objects.create(kind=Job.Kind.RETRAIN, survey=survey)
    tasks.retrain_job(job.pk)  # as the worker runs it
    job.refresh_from_db()
    assert job.state == Job.State.DONE
    return job


def test_retrain_now_on_a_new_survey_says_why_no_model_was_published(monkeypatch):
    """One report trains only some inputs (LDP: each respondent reports one input): the engine refuses to estimate,
    and the job says so instead of "the current model stands"; before its day ends, the job says that."""
    survey = make_survey(slug="fresh")
    job = _retrain_job(survey)
    assert job.result == {"version": None, "reason": "No model yet: no report has been received."}
    assert job.message == job.result["reason"]
    add_reports(survey, 1)
    job = _retrain_job(survey)
    assert job.message == ("No model yet. Reports of days not yet ended join the model once their day (UTC) has "
                           "ended, so that no model reveals more about a report than its day.")
    pass_days(monkeypatch, 1)
    job = _retrain_job(survey)
    assert job.result["version"] is None and "current model stands" not in job.message
    assert job.message.startswith("No model published: the reports so far do not allow an estimate (")
    assert job.result["reason"] == job.message and "report" in job.message  # the engine's own words


def test_retrain_now_with_nothing_new_keeps_the_published_version():
    survey = make_survey(slug="trained")
    add_reports(survey, 300)
    assert services.retrain(survey, now=after_midnight()).version == 1
    job = _retrain_job(survey)
    assert job.message == "Nothing new since version 1: the current model stands."
    assert job.result == {"version": None, "reason": job.message}


def test_the_favicon_is_served(client):
    response = client.get("/favicon.ico")
    assert response.status_code in (301, 302)
    assert response["Location"].startswith(settings_static_url()) and response["Location"].endswith(".ico")


def settings_static_url() -> str:
    from django.conf import settings

    return "/" + settings.STATIC_URL.lstrip("/")
