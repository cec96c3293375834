"""Folding exactly once (draining the inbox into ``Report``), publishing only on change, immutable numbered versions,
the version validation respondents evaluate, and the Celery tasks (eagerly)."""
import datetime
import json
import uuid
from collections import Counter

import numpy as np
import pytest
from django.db import connection

from aggregator import services, tasks
from aggregator.models import ImmutableError, ModelVersion, SurveyStatistics
from aggregator.privacy.bits import pack
from aggregator.privacy.jsonable import json_safe
from aggregator.privacy.oracles.wire import to_wire
from survey_app.models import PendingReport, Report
from survey_app.protocol import get_protocol
from tests.factories import add_reports, after_midnight, days_pass, make_survey, pass_days

pytestmark = pytest.mark.django_db

MODES = [("ldp", "oue"), ("ldp", "olh"), ("mrr", "oue")]


def stored(survey) -> SurveyStatistics:
    """The survey's statistics row with every folded day closed (in memory only): all the folded reports' sums."""
    row = SurveyStatistics.objects.get(survey=survey)
    services.close_days(get_protocol(survey), row, now=after_midnight(30))
    return row


def payloads(model, survey, **filters) -> Counter:
    """The multiset of a table's payloads for ``survey`` (as JSON text: hashable)."""
    rows = model.objects.filter(survey=survey, **filters).values_list("payload", flat=True)
    return Counter(json.dumps(p, sort_keys=True) for p in rows)


def report_ids(survey, **filters) -> set:
    return set(Report.objects.filter(survey=survey, **filters).values_list("id", flat=True))


@pytest.mark.parametrize("mode, encoding", MODES)
def test_fold_equals_direct_fold_and_twice_changes_nothing(mode, encoding):
    survey = make_survey(mode=mode, encoding=encoding)
    add_reports(survey, 300)
    sent = payloads(PendingReport, survey)
    assert services.fold_new_reports(survey, batch_size=64) == 300
    # Drained: the inbox is empty, every report is in Report exactly once, and the statistics are its fold.
    assert not PendingReport.objects.filter(survey=survey).exists() and payloads(Report, survey) == sent
    protocol = get_protocol(survey)
    direct = protocol.stats_to_dict(protocol.fold([r.payload for r in Report.objects.filter(survey=survey)]))
    first = stored(survey)
    assert first.stats == json_safe(direct)
    assert first.report_count == 300
    ids = report_ids(survey)
    assert services.fold_new_reports(survey) == 0
    again = stored(survey)
    assert (again.stats, again.report_count) == (first.stats, first.report_count)
    assert report_ids(survey) == ids  # nothing to drain: nothing rewritten


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
    assert payloads(Report, a) == payloads(Report, b)


def test_fold_failing_midway_changes_nothing(monkeypatch):
    survey = make_survey()
    add_reports(survey, 100)
    services.fold_new_reports(survey)
    before, ids = stored(survey), report_ids(survey)
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
    assert (after.stats, after.report_count) == (before.stats, before.report_count)
    assert PendingReport.objects.filter(survey=survey).count() == 100 and report_ids(survey) == ids  # rolled back
    monkeypatch.undo()
    assert services.fold_new_reports(survey) == 100
    assert stored(survey).report_count == 200


def test_publish_skips_when_nothing_changed_and_versions_increase():
    survey = make_survey()
    assert services.retrain(survey) is None  # no reports: nothing to publish
    add_reports(survey, 200)
    assert services.publish_model(survey) is None  # not folded yet: no statistics
    said = []
    assert services.retrain(survey, skipped=said.append) is None  # folded, but today (UTC) has not ended
    assert "Reports of days not yet ended join the model once their day (UTC) has ended" in said[0]
    v1 = services.retrain(survey, now=after_midnight())
    assert (v1.version, v1.report_count, v1.through_day) == (1, 200, after_midnight().date() - datetime.timedelta(1))
    assert services.retrain(survey, now=after_midnight()) is None
    assert services.publish_model(survey, now=after_midnight()) is None
    add_reports(survey, 50, seed=3)
    assert services.retrain(survey, now=after_midnight()) is None  # today is closed: these wait for the next day
    v2 = services.retrain(survey, now=after_midnight(2))
    assert (v2.version, v2.report_count) == (2, 250)
    assert ModelVersion.objects.filter(survey=survey).count() == 2
    assert v2.privacy["epsilon_per_respondent"] == pytest.approx(1.0)
    assert v2.model["class_attribute"]["name"] == "sick"
    assert v2.model["metadata"]  # the engine's metadata travels with the model


def test_model_versions_are_immutable():
    survey = make_survey()
    add_reports(survey, 50)
    version = services.retrain(survey, now=after_midnight())
    version.report_count = 1
    with pytest.raises(ImmutableError):
        version.save()
    assert ModelVersion.objects.get(pk=version.pk).report_count == 50


def test_versions_are_numbered_per_survey():
    a, b = make_survey(slug="a"), make_survey(slug="b")
    add_reports(a, 30)
    add_reports(b, 30)
    assert services.retrain(a, now=after_midnight()).version == 1
    assert services.retrain(b, now=after_midnight()).version == 1


def test_tasks_run_the_services(monkeypatch):
    survey = make_survey()
    closed = make_survey(slug="closed", status="closed")
    add_reports(survey, 80)
    add_reports(closed, 80)
    days_pass(survey)  # received two days ago: the worker's clock may close that day
    assert tasks.fold_survey(survey.id) is None  # no count: the worker would log it with its time
    assert stored(survey).report_count == 80
    assert tasks.retrain_survey(survey.id) == 1
    assert tasks.retrain_survey(survey.id) is None
    add_reports(survey, 20, seed=9)
    assert tasks.retrain_survey(survey.id) is None  # today's reports wait for the day's end
    pass_days(monkeypatch, 1)
    assert tasks.retrain_survey(survey.id) == 2
    assert not ModelVersion.objects.filter(survey=closed).exists()  # closed surveys are not retrained on schedule


def test_publish_waits_while_an_input_has_no_report():
    """Two reports of a one-report LDP survey cannot cover all its inputs: no model, no crash, no version."""
    from tests.factories import simulated_reports

    survey = make_survey(slug="few")
    for report in simulated_reports(survey, n=2):
        PendingReport.objects.create(survey=survey, payload=report)
    assert services.retrain(survey) is None


def test_validation_reports_fold_apart_and_estimate_each_version():
    """LDP: validation reports never enter the training statistics; they count per evaluated version, and the accuracy
    of a version is read from them (the estimator itself is tested in tests/engine/test_validation.py)."""
    survey = make_survey(mode="ldp", encoding="oue")
    add_reports(survey, 400)
    services.retrain(survey, now=after_midnight())
    training = stored(survey).stats
    fo_reports = [{"validation": {"version": 1, "report": bit}} for bit in [1] * 70 + [0] * 30]
    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=p) for p in fo_reports])
    assert services.fold_new_reports(survey) == 100
    row = stored(survey)
    assert row.stats == training and row.report_count == 400 and row.validation_count == 100
    assert row.validation == {"1": {"n": 100, "support": [30, 70], "dtype": "i"}}
    # LDP: validation reports alone publish nothing (browsers would evaluate an identical version); they join the
    # accuracy once their day has ended.
    assert services.accuracy_by_version(survey) == {}
    assert services.publish_model(survey, now=after_midnight(2)) is None
    estimate = services.accuracy_by_version(survey)[1]
    assert estimate["reports"] == 100 and estimate["low"] <= estimate["estimate"] <= estimate["high"]
    assert services.latest_accuracy(survey) == (1, estimate)


def test_mrr_versions_store_their_accuracy_on_the_validation_records():
    survey = make_survey(mode="mrr")
    protocol = get_protocol(survey)
    reports = add_reports(survey, 2000)
    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload={"validation": r.payload})
                                       for r in reports[:300]])
    version = services.retrain(survey, now=after_midnight())
    assert version.report_count == 2000 and version.metrics["validation_count"] == 300
    accuracy = version.metrics["accuracy"]
    assert accuracy["method"] == "mrr-randomized-test-records" and accuracy["reports"] == 300
    assert services.accuracy_by_version(survey) == {1: accuracy}
    assert set(version.privacy["pse_before_mining"]) == {a.name for a in protocol.scheme.attributes}
    assert version.metrics["out_of_range"] is not None and version.metrics["jumps"] == []


def test_retrain_job_reports_progress_and_its_result(settings, monkeypatch):
    from aggregator import jobs

    settings.CELERY_TASK_ALWAYS_EAGER = True
    survey = make_survey(mode="mrr")
    add_reports(survey, 500)
    job = jobs.start("retrain", tasks.retrain_job, survey=survey)
    job.refresh_from_db()
    assert job.state == "done" and job.result["version"] is None
    assert "join the model once their day (UTC) has ended" in job.message
    pass_days(monkeypatch, 1)
    seen = []
    job = jobs.start("retrain", tasks.retrain_job, survey=survey)
    job.refresh_from_db()
    assert (job.state, job.progress, job.result) == ("done", 1.0, {"version": 1})
    assert "Published version 1" in job.message
    services.retrain(survey, progress=lambda fraction, message: seen.append(fraction))
    assert seen == [0.9]  # nothing new to fold: only the estimate step
    add_reports(survey, 50)
    pass_days(monkeypatch, 2)
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
    honest = services.publish_model(survey, now=after_midnight())
    assert not any(f["warning"] for f in honest.metrics["plausibility"])
    # 300 fake users: input 1 (smoker × sick), every bit set — far more ones per report than any honest browser sends.
    oracle = protocol.nb.oracles[1]
    all_ones = to_wire(oracle, pack(np.ones((1, oracle.domain), dtype=np.uint8)))[0]
    fake = {"input": 1, "report": all_ones}
    protocol.parse_one(fake)  # a well-formed report: only its statistics give it away
    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=fake) for _ in range(300)])
    poisoned = services.retrain(survey, now=after_midnight(2))
    flagged = [f for f in poisoned.metrics["plausibility"] if f["warning"]]
    assert any(f["parameter"].startswith("smoker × sick") for f in flagged), poisoned.metrics["plausibility"]


def _pending_on(survey, day: datetime.date, n: int, seed: int) -> None:
    add_reports(survey, n, seed=seed)
    PendingReport.objects.filter(survey=survey, received_on=datetime.date.today()).update(received_on=day)


@pytest.mark.parametrize("path", ["sql", "sql in chunks of 7", "python"])
def test_a_drain_rewrites_the_day_it_touches_under_fresh_keys_and_leaves_other_days(monkeypatch, path):
    """Each drain re-inserts the day's earlier reports with the new ones under fresh random keys (so no earlier batch
    survives as a group of keys or rows); reports of other days are left as they are. ``sql in chunks of 7``: the
    rewrite's INSERTs of ``REWRITE_CHUNK`` rows, here 7 (110 rows: 16 chunks, the last one short). ``python``: the
    ORM path of databases other than PostgreSQL (the embedded SQLite), run here on PostgreSQL."""
    if path == "python":
        monkeypatch.setattr(services, "_move_day_sql", services._move_day_python)
    if path == "sql in chunks of 7":
        monkeypatch.setattr(services, "REWRITE_CHUNK", 7)
        monkeypatch.setattr(services, "REWRITE_PAUSE", 0.0)
    survey, other = make_survey(), make_survey(slug="other")
    yesterday, today = datetime.date(2026, 3, 1), datetime.date(2026, 3, 2)
    _pending_on(survey, yesterday, 40, seed=1)
    _pending_on(other, today, 30, seed=4)
    assert services.fold_new_reports(survey) == 40
    old = report_ids(survey, received_on=yesterday)
    _pending_on(survey, today, 50, seed=2)
    assert services.fold_new_reports(survey) == 50
    first_batch = report_ids(survey, received_on=today)
    sent = payloads(Report, survey, received_on=today)
    _pending_on(survey, today, 60, seed=3)
    sent += payloads(PendingReport, survey)
    assert services.fold_new_reports(survey, batch_size=7) == 60
    assert report_ids(survey, received_on=yesterday) == old  # another day: untouched
    today_ids = report_ids(survey, received_on=today)
    assert len(today_ids) == 110 and not today_ids & first_batch  # the first batch's keys are gone
    assert payloads(Report, survey, received_on=today) == sent  # each report once, payload as sent
    assert all(isinstance(i, uuid.UUID) and i.version == 4 for i in today_ids)  # random keys
    assert PendingReport.objects.filter(survey=other).count() == 30 and not Report.objects.filter(survey=other)
    assert stored(survey).report_count == 150
    protocol = get_protocol(survey)
    direct = protocol.stats_to_dict(protocol.fold([r.payload for r in Report.objects.filter(survey=survey)]))
    assert stored(survey).stats == json_safe(direct)


@pytest.mark.parametrize("chunk", [500, 7])
def test_after_a_drain_the_day_is_one_transaction(monkeypatch, chunk):
    """PostgreSQL: every report row of the drained day carries the drain's transaction id (``xmin``), so no earlier
    drain's batch can be told apart by it (the adversarial test of issue 11 checks orders; this, the mechanism) —
    also when the rewrite inserts the day in several chunks (``REWRITE_CHUNK``)."""
    if connection.vendor != "postgresql":
        pytest.skip("xmin is PostgreSQL's")
    monkeypatch.setattr(services, "REWRITE_CHUNK", chunk)
    survey = make_survey()
    for seed in range(3):
        add_reports(survey, 20, seed=seed)
        services.fold_new_reports(survey)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(DISTINCT xmin::text), count(*) FROM {Report._meta.db_table} WHERE survey_id = %s",
                       [survey.pk])
        assert cursor.fetchone() == (1, 60)


def test_validation_respondents_evaluate_the_newest_version_published_before_today():
    survey = make_survey()
    add_reports(survey, 200)
    v1 = services.retrain(survey, now=after_midnight())
    add_reports(survey, 50, seed=1)
    v2 = services.retrain(survey, now=after_midnight(2))
    now = datetime.datetime(2026, 5, 10, 9, 30, tzinfo=datetime.UTC)
    ModelVersion.objects.filter(pk=v1.pk).update(created_at=now - datetime.timedelta(days=2))
    ModelVersion.objects.filter(pk=v2.pk).update(created_at=now.replace(hour=0, minute=0))  # today at 00:00 UTC
    assert services.validation_version(survey, now=now).version == 1
    assert services.validation_version(survey, now=now + datetime.timedelta(days=1)).version == 2
    assert services.validation_version(survey, now=now - datetime.timedelta(days=2)) is None
