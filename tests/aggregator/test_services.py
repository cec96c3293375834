"""Folding exactly once, publishing only on change, immutable numbered versions, and the Celery tasks (eagerly)."""
import pytest

from aggregator import services, tasks
from aggregator.models import ImmutableError, ModelVersion, SurveyStatistics
from aggregator.privacy.jsonable import json_safe
from survey_app.models import Report
from survey_app.protocol import get_protocol

from .helpers import add_reports, make_survey

pytestmark = pytest.mark.django_db

MODES = [("ldp", "oue"), ("ldp", "olh"), ("mrr", "oue")]


def stored(survey) -> SurveyStatistics:
    return SurveyStatistics.objects.get(survey=survey)


@pytest.mark.parametrize("mode, encoding", MODES)
def test_fold_equals_direct_fold_and_twice_changes_nothing(mode, encoding):
    survey = make_survey(mode=mode, encoding=encoding)
    add_reports(survey, 300)
    assert services.fold_new_reports(survey, batch_size=64) == 300
    protocol = get_protocol(survey)
    direct = protocol.stats_to_dict(protocol.fold([r.payload for r in Report.objects.filter(survey=survey)]))
    first = stored(survey)
    assert first.stats == json_safe(direct)
    assert first.report_count == 300
    assert first.watermark == Report.objects.filter(survey=survey).latest("id").id
    assert services.fold_new_reports(survey) == 0
    again = stored(survey)
    assert (again.stats, again.watermark, again.report_count) == (first.stats, first.watermark, first.report_count)


@pytest.mark.parametrize("mode, encoding", MODES)
def test_fold_in_two_steps_equals_fold_at_once(mode, encoding):
    a, b = make_survey(slug="a", mode=mode, encoding=encoding), make_survey(slug="b", mode=mode, encoding=encoding)
    for survey in (a, b):
        add_reports(survey, 150, seed=1)
    assert services.fold_new_reports(a) == 150
    for survey in (a, b):
        add_reports(survey, 250, seed=2)
    assert services.fold_new_reports(a, batch_size=100) == 250
    assert services.fold_new_reports(b) == 400
    assert stored(a).stats == stored(b).stats
    assert stored(a).report_count == stored(b).report_count == 400


def test_fold_failing_midway_changes_nothing(monkeypatch):
    survey = make_survey()
    add_reports(survey, 100)
    services.fold_new_reports(survey)
    before = stored(survey)
    add_reports(survey, 100, seed=5)
    protocol = get_protocol(survey)
    original, calls = protocol.fold, []

    def fold_then_die(payloads):
        calls.append(len(payloads))
        stats = original(payloads)  # the reports are read and folded …
        if len(calls) == 2:
            raise RuntimeError("worker killed")  # … then the worker dies before committing
        return stats

    monkeypatch.setattr(protocol, "fold", fold_then_die)
    with pytest.raises(RuntimeError):
        services.fold_new_reports(survey, batch_size=40)
    assert calls == [40, 40]
    after = stored(survey)
    assert (after.stats, after.watermark, after.report_count) == (before.stats, before.watermark, before.report_count)
    monkeypatch.undo()
    assert services.fold_new_reports(survey) == 100
    assert stored(survey).report_count == 200


def test_publish_skips_when_nothing_changed_and_versions_increase():
    survey = make_survey()
    assert services.retrain(survey) is None  # no reports: nothing to publish
    add_reports(survey, 200)
    assert services.publish_model(survey) is None  # not folded yet: the stored statistics are empty
    v1 = services.retrain(survey)
    assert (v1.version, v1.report_count) == (1, 200)
    assert services.retrain(survey) is None
    assert services.publish_model(survey) is None
    add_reports(survey, 50, seed=3)
    v2 = services.retrain(survey)
    assert (v2.version, v2.report_count) == (2, 250)
    assert ModelVersion.objects.filter(survey=survey).count() == 2
    assert v2.privacy["epsilon_per_respondent"] == pytest.approx(1.0)
    assert v2.model["class_attribute"]["name"] == "sick"
    assert v2.model["metadata"]  # the engine's metadata travels with the model


def test_model_versions_are_immutable():
    survey = make_survey()
    add_reports(survey, 50)
    version = services.retrain(survey)
    version.report_count = 1
    with pytest.raises(ImmutableError):
        version.save()
    assert ModelVersion.objects.get(pk=version.pk).report_count == 50


def test_versions_are_numbered_per_survey():
    a, b = make_survey(slug="a"), make_survey(slug="b")
    add_reports(a, 30)
    add_reports(b, 30)
    assert services.retrain(a).version == 1
    assert services.retrain(b).version == 1


def test_tasks_run_the_services():
    survey = make_survey()
    closed = make_survey(slug="closed", status="closed")
    add_reports(survey, 80)
    add_reports(closed, 80)
    assert tasks.fold_survey(survey.id) == 80
    assert tasks.retrain_survey(survey.id) == 1
    assert tasks.retrain_survey(survey.id) is None
    add_reports(survey, 20, seed=9)
    assert tasks.retrain_open_surveys() == {"health": 2}
    assert not ModelVersion.objects.filter(survey=closed).exists()  # closed surveys are not retrained on schedule


def test_publish_waits_while_an_input_has_no_report():
    """Two reports of a one-report LDP survey cannot cover all its inputs: no model, no crash, no version."""
    from survey_app.models import Report
    from tests.survey.test_api import make_survey, simulated_reports

    survey = make_survey(slug="few")
    for report in simulated_reports(survey, n=2):
        Report.objects.create(survey=survey, payload=report)
    assert services.retrain(survey) is None
