"""A study's calendar: drafts open at their date, open surveys close at theirs or at their quota (Celery beat runs
``services.apply_calendars`` every minute)."""
import datetime

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from survey_app.models import Survey
from survey_app.services import apply_calendars, clone_survey
from tests.factories import add_reports, make_survey

pytestmark = pytest.mark.django_db

NOW = timezone.make_aware(datetime.datetime(2026, 3, 2, 9, 0))
HOUR = datetime.timedelta(hours=1)


def test_a_draft_opens_at_its_date_and_closes_at_its_end():
    survey = make_survey(status="draft", opens_at=NOW, closes_at=NOW + 24 * HOUR)
    assert apply_calendars(NOW - HOUR).opened == []
    assert apply_calendars(NOW).opened == ["health"]
    survey.refresh_from_db()
    assert survey.status == "open"
    assert apply_calendars(NOW + 23 * HOUR).closed == []
    assert apply_calendars(NOW + 24 * HOUR).closed == ["health"]
    survey.refresh_from_db()
    assert survey.status == "closed"
    assert apply_calendars(NOW + 48 * HOUR) == type(apply_calendars(NOW))([], [], [])  # closed stays closed


def test_a_draft_whose_window_has_passed_or_that_cannot_run_does_not_open():
    make_survey(slug="late", status="draft", opens_at=NOW - 2 * HOUR, closes_at=NOW - HOUR)
    broken = Survey.objects.create(title="x", slug="broken", mode="ldp", epsilon=1.0, opens_at=NOW)  # no questions
    run = apply_calendars(NOW)
    assert run.opened == [] and [slug for slug, _ in run.not_opened] == ["broken"]
    assert "class" in run.not_opened[0][1]
    broken.refresh_from_db()
    assert broken.status == "draft" and Survey.objects.get(slug="late").status == "draft"


def test_an_open_survey_closes_once_its_reports_reach_the_quota():
    survey = make_survey(quota=30)
    add_reports(survey, 29)
    assert apply_calendars(NOW).closed == []
    add_reports(survey, 1, seed=1)
    assert apply_calendars(NOW).closed == ["health"]
    survey.refresh_from_db()
    assert survey.status == "closed"


def test_dates_are_checked_and_a_clone_keeps_no_dates():
    survey = make_survey(status="draft", opens_at=NOW, closes_at=NOW)
    with pytest.raises(ValidationError) as error:
        survey.full_clean()
    assert "closes_at" in error.value.message_dict
    survey.closes_at = NOW + HOUR
    survey.quota = 0
    with pytest.raises(ValidationError) as error:
        survey.full_clean()
    assert "quota" in error.value.message_dict
    copy = clone_survey(survey)
    assert copy.opens_at is None and copy.closes_at is None


def test_beat_runs_the_calendars_every_minute(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["survey calendars"]
    assert entry == {"task": "survey_app.tasks.apply_survey_calendars", "schedule": 60.0}
    from survey_app.tasks import apply_survey_calendars

    assert apply_survey_calendars.name == entry["task"]
