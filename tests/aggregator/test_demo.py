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
        # before today (issue 11): the demo's simulated history publishes version 1 yesterday, before the second wave.
        assert survey.reports.filter(payload__has_key="validation").exists()
        # every question carries information (mushroom's one-valued veil-type is left out), and the PSE headline
        # is not that of a single-answer question
        assert not survey.questions.filter(name="veil-type").exists()
        assert all(len(q.labels()) >= 2 for q in survey.questions.exclude(kind="numeric"))
        if survey.mode == "mrr":
            from aggregator.dashboard.charts import privacy_summary

            summary = privacy_summary(ModelVersion.objects.filter(survey=survey).latest("version").privacy)
            assert summary["pse_before"] > 0 and summary["pse_before_group"]
        versions = ModelVersion.objects.filter(survey=survey).order_by("version")
        assert [v.through_day for v in versions] == [survey.reports.order_by("received_on").first().received_on,
                                                     survey.reports.order_by("received_on").last().received_on]


def test_demo_titles_are_plain_words():
    """Respondents read the titles (issue 12 item 6): no ε, θ or acronyms — the settings are on the dashboard."""
    from aggregator.management.commands.demo import DEMOS

    for _, title, _ in DEMOS:
        for jargon in ("LDP", "MRR", "OUE", "ε", "θ", "unrelated question"):
            assert jargon not in title


def test_demo_texts_read_right_in_english_and_german():
    """Every demo has a description in English as in German; no respondent reads the data's "ibrous" artefact; the
    select-all question's "bruises" is a feature in German ("Druckstellen"), the yes/no question's a yes ("ja")."""
    from survey_app.models import Choice

    call_command("demo", "--respondents", "200")
    for survey in Survey.objects.filter(slug__in=("demo-ldp", "demo-mrr")):
        assert survey.description and survey.translations["de"]["description"]
        assert not Choice.objects.filter(question__survey=survey, label="ibrous").exists()
        assert Choice.objects.filter(question__survey=survey, label="fibrous").count() >= 2
    mrr = Survey.objects.get(slug="demo-mrr")
    feature = Choice.objects.get(question__survey=mrr, question__name="features", label="bruises")
    assert feature.translations["de"] == "Druckstellen"
    ldp = Survey.objects.get(slug="demo-ldp")
    answer = Choice.objects.get(question__survey=ldp, question__name="bruises", label="bruises")
    assert answer.translations["de"] == "ja"
