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
        assert ModelVersion.objects.filter(survey=survey).count() == 1
