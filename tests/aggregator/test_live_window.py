"""The live window (docs/threat-model.md): how long a report or a redemption stays in arrival order.

* every inbox is drained, and its redemptions rewritten, at least every ``COINFLIP_DRAIN_MINUTES`` (≤ 10) whatever the
  survey's ``retrain_minutes`` (which paces publishing only);
* after a drain, VACUUM leaves no dead row version of the drained tables (``pgstattuple``'s exact count);
* Celery's worker logs no success line (with a duration, a result or a time) for a drain task.
"""
import datetime
import logging

import pytest
from celery.app import trace
from django.conf import settings
from django.db import connection

from aggregator import schedules, services, tasks
from aggregator.models import ModelVersion
from survey_app import inbox
from survey_app.models import InvitationToken, PendingReport, Report, SpentCredential, Survey
from survey_app.outcomes import Submission
from survey_app.protocol import get_protocol
from survey_app.reports import submit_report
from tests.factories import health_answers, make_survey, redeem_credential

WEEK = 7 * 24 * 60
CAP = datetime.timedelta(minutes=10)


def _token_reports(survey, n: int, seed: int = 1) -> None:
    import numpy as np

    rng = np.random.default_rng(seed)
    X = health_answers(rng, n)
    for report in get_protocol(survey).encode(X, (X[:, 0] == 2).astype(np.int64), rng):
        assert submit_report(survey.slug, Submission(report, credential=redeem_credential(survey))).stored


def test_the_drain_is_scheduled_at_most_every_ten_minutes_whatever_the_retrain_setting():
    entry = settings.CELERY_BEAT_SCHEDULE["drain inboxes"]
    assert entry["task"] == tasks.drain_inboxes.name
    assert datetime.timedelta(seconds=entry["schedule"]) <= CAP
    assert 1 <= settings.COINFLIP_DRAIN_MINUTES <= 10
    # A report arriving at any moment waits for the next run of the fixed-interval schedule: at most one interval.
    interval = datetime.timedelta(seconds=entry["schedule"])
    runs = [i * interval for i in range(200)]
    for arrival in (datetime.timedelta(seconds=s) for s in range(0, 100 * 600, 37)):
        assert min(r for r in runs if r >= arrival) - arrival <= CAP


@pytest.mark.django_db
def test_a_survey_retrained_weekly_is_drained_by_the_capped_schedule_without_publishing():
    survey = make_survey(access="tokens", retrain_minutes=WEEK)
    assert schedules.sync_schedule(survey).interval.every == WEEK  # publishing keeps its own pace
    _token_reports(survey, 12)
    generate_and_redeem = redeem_credential(survey)  # a redemption whose report is not sent (yet)
    assert generate_and_redeem and inbox.unsettled(survey)
    tasks.drain_inboxes()
    assert not PendingReport.objects.filter(survey=survey).exists()
    assert Report.objects.filter(survey=survey).count() == 12
    if connection.vendor == "postgresql":
        assert not SpentCredential.objects.filter(survey=survey, fresh=True).exists()
        assert not InvitationToken.objects.filter(survey=survey, fresh=True).exists()
    assert not inbox.unsettled(survey)
    assert not ModelVersion.objects.filter(survey=survey).exists()


def _dead(tables) -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
        out = {}
        for table in tables:
            cursor.execute("SELECT dead_tuple_count FROM pgstattuple(%s)", [table])
            out[table] = cursor.fetchone()[0]
        return out


@pytest.mark.skipif(connection.vendor != "postgresql", reason="VACUUM and dead tuples are PostgreSQL's")
@pytest.mark.django_db(transaction=True)  # VACUUM runs outside any transaction
def test_after_a_drain_no_dead_row_version_of_the_drained_tables_is_left():
    tables = [m._meta.db_table for m in (PendingReport, Report, SpentCredential, InvitationToken)]
    survey = make_survey(access="tokens", retrain_minutes=WEEK)
    _token_reports(survey, 10)
    services.fold_new_reports(survey)
    _token_reports(survey, 5, seed=3)
    services.fold_new_reports(survey)  # the second drain of the day rewrites the first one's reports
    before = _dead(tables)
    assert all(before[t] > 0 for t in tables), before  # the control: the drain's deletes and rewrites left them
    inbox.vacuum()
    assert _dead(tables) == dict.fromkeys(tables, 0)
    _token_reports(survey, 15, seed=2)
    tasks.drain_inboxes()  # the scheduled drain: fold, rewrite, VACUUM
    assert _dead(tables) == dict.fromkeys(tables, 0)
    assert not Survey.objects.get(pk=survey.pk).pending_reports.exists()


def test_vacuum_refuses_to_run_inside_a_transaction(db):
    if connection.vendor != "postgresql":
        pytest.skip("a no-op elsewhere")
    with pytest.raises(RuntimeError, match="outside any transaction"):
        inbox.vacuum()  # the test's own transaction


def test_a_drain_task_leaves_no_success_line_with_its_duration_or_result(caplog):
    """What Celery's worker logs when a task succeeds (``celery.app.trace.LOG_SUCCESS`` with its documented
    arguments), through the project's logging configuration: nothing for a drain task (tests/security/
    test_embedded_logs.py runs a real worker)."""
    caplog.set_level(logging.INFO, logger="celery.app.trace")
    logger = logging.getLogger("celery.app.trace")
    for name in (tasks.drain_inboxes.name, tasks.fold_survey.name, tasks.retrain_survey.name):
        logger.info(trace.LOG_SUCCESS, {"id": "4f1c", "name": name, "return_value": "17", "runtime": 0.53,
                                        "args": "", "kwargs": ""})
    logger.info(trace.LOG_SUCCESS, {"id": "9a2b", "name": "other.task", "return_value": "None", "runtime": 0.25,
                                    "args": "", "kwargs": ""})
    lines = [r.getMessage() for r in caplog.records if r.name == "celery.app.trace"]
    assert lines == ["Task other.task[9a2b] succeeded in 0.25s: None"]  # other tasks: as Celery writes them
