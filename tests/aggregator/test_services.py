"""Folding exactly once, publishing only on change, immutable numbered versions, and the Celery tasks (eagerly)."""
import numpy as np
import pytest

from aggregator import services, tasks
from aggregator.models import ImmutableError, ModelVersion, SurveyStatistics
from aggregator.privacy.bits import pack
from aggregator.privacy.jsonable import json_safe
from aggregator.privacy.oracles.wire import to_wire
from survey_app.models import Report
from survey_app.protocol import get_protocol
from tests.factories import add_reports, make_survey

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
    original, calls = protocol.aggregate, []

    def fold_then_die(reports):
        calls.append(reports.n)
        stats = original(reports)  # the reports are read and folded …
        if len(calls) == 2:
            raise RuntimeError("worker killed")  # … then the worker dies before committing
        return stats

    monkeypatch.setattr(protocol, "aggregate", fold_then_die)
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
    from tests.factories import simulated_reports

    survey = make_survey(slug="few")
    for report in simulated_reports(survey, n=2):
        Report.objects.create(survey=survey, payload=report)
    assert services.retrain(survey) is None


def test_validation_reports_fold_apart_and_estimate_each_version():
    """LDP: validation reports never enter the training statistics; they count per evaluated version, and the accuracy
    of a version is read from them (the estimator itself is tested in tests/engine/test_validation.py)."""
    survey = make_survey(mode="ldp", encoding="oue")
    add_reports(survey, 400)
    services.retrain(survey)
    training = stored(survey).stats
    fo_reports = [{"validation": {"version": 1, "report": bit}} for bit in [1] * 70 + [0] * 30]
    Report.objects.bulk_create([Report(survey=survey, payload=p) for p in fo_reports])
    assert services.fold_new_reports(survey) == 100
    row = stored(survey)
    assert row.stats == training and row.report_count == 400 and row.validation_count == 100
    assert row.validation == {"1": {"n": 100, "support": [30, 70], "dtype": "i"}}
    estimate = services.accuracy_by_version(survey)[1]
    assert estimate["reports"] == 100 and estimate["low"] <= estimate["estimate"] <= estimate["high"]
    # LDP: validation reports alone publish nothing (browsers would evaluate an identical version).
    assert services.publish_model(survey) is None
    assert services.latest_accuracy(survey) == (1, estimate)


def test_mrr_versions_store_their_accuracy_on_the_validation_records():
    survey = make_survey(mode="mrr")
    protocol = get_protocol(survey)
    reports = add_reports(survey, 2000)
    Report.objects.bulk_create([Report(survey=survey, payload={"validation": r.payload}) for r in reports[:300]])
    version = services.retrain(survey)
    assert version.report_count == 2000 and version.metrics["validation_count"] == 300
    accuracy = version.metrics["accuracy"]
    assert accuracy["method"] == "mrr-randomized-test-records" and accuracy["reports"] == 300
    assert services.accuracy_by_version(survey) == {1: accuracy}
    assert set(version.privacy["pse_before_mining"]) == {a.name for a in protocol.scheme.attributes}
    assert version.metrics["out_of_range"] is not None and version.metrics["jumps"] == []


def test_retrain_job_reports_progress_and_its_result(settings):
    from aggregator import jobs

    settings.CELERY_TASK_ALWAYS_EAGER = True
    survey = make_survey(mode="mrr")
    add_reports(survey, 500)
    seen = []
    job = jobs.start("retrain", tasks.retrain_job, survey=survey)
    job.refresh_from_db()
    assert (job.state, job.progress, job.result) == ("done", 1.0, {"version": 1})
    assert "Published version 1" in job.message
    services.retrain(survey, progress=lambda fraction, message: seen.append(fraction))
    assert seen == [0.9]  # nothing new to fold: only the estimate step
    add_reports(survey, 50)
    job = jobs.start("retrain", tasks.retrain_job, survey=survey)
    job.refresh_from_db()
    assert job.result == {"version": 2}


def test_a_job_whose_broker_is_unreachable_fails_with_a_message(monkeypatch):
    from kombu.exceptions import OperationalError

    from aggregator import jobs

    survey = make_survey(mode="mrr")
    monkeypatch.setattr(tasks.retrain_job, "delay", lambda *a: (_ for _ in ()).throw(OperationalError("down")))
    job = jobs.start("retrain", tasks.retrain_job, survey=survey)
    assert job.state == "failed" and "unreachable" in job.message


def test_plausibility_statistics_fold_with_the_reports_and_flag_fake_users():
    """The per-report checks' sums are folded (and merged from shards) like the statistics; fake users who all send
    the same all-ones OUE report are flagged in the published metrics (privacy/plausibility.py states the tests)."""
    from aggregator.privacy import plausibility
    from aggregator.privacy.plausibility import PlausibilityStats

    survey = make_survey(mode="ldp", encoding="oue")
    add_reports(survey, 3000)
    services.fold_new_reports(survey, batch_size=700)
    protocol = get_protocol(survey)
    training, _ = protocol.split([r.payload for r in Report.objects.filter(survey=survey)])
    assert PlausibilityStats.from_dict(stored(survey).plausibility) == plausibility.protocol_checks(protocol, training)
    honest = services.publish_model(survey)
    assert not any(f["warning"] for f in honest.metrics["plausibility"])
    # 300 fake users: input 1 (smoker × sick), every bit set — far more ones per report than any honest browser sends.
    oracle = protocol.nb.oracles[1]
    all_ones = to_wire(oracle, pack(np.ones((1, oracle.domain), dtype=np.uint8)))[0]
    fake = {"input": 1, "report": all_ones}
    protocol.parse_one(fake)  # a well-formed report: only its statistics give it away
    Report.objects.bulk_create([Report(survey=survey, payload=fake) for _ in range(300)])
    poisoned = services.retrain(survey)
    flagged = [f for f in poisoned.metrics["plausibility"] if f["warning"]]
    assert any(f["parameter"].startswith("smoker × sick") for f in flagged), poisoned.metrics["plausibility"]
