"""`manage.py demo` (run by `make run`) creates the demo surveys once and publishes their models."""
import pytest
from django.core.management import call_command

from aggregator.models import ModelVersion
from survey_app.models import Survey

pytestmark = pytest.mark.django_db


def test_demo_is_idempotent():
    call_command("demo", "--respondents", "400")
    call_command("demo", "--respondents", "400")
    for slug in ("demo-ldp", "demo-mrr"):
        survey = Survey.objects.get(slug=slug)
        assert survey.status == "open" and survey.reports.count() == 400
        # Two waves: version 1 from the first, version 2 once the second (with its validation share) is folded.
        assert ModelVersion.objects.filter(survey=survey).count() == 2
        # MRR validation records need no model; LDP validation respondents evaluate the newest version published
        # before today (issue 11), and on the demo's first day there is none: they train instead.
        validating = survey.reports.filter(payload__has_key="validation").exists()
        assert validating == (slug == "demo-mrr")
