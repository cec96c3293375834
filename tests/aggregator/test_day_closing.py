"""Models by whole days (issue 11, "differencing the model history"): a model version is estimated from the closed
days' statistics only, so the difference of any two versions is the reports of whole days — never one drain's
window — and every published figure changes at most once a day.

The attack these tests make: a reader who keeps every version (and every answer of the model API) subtracts
consecutive versions. Before, each retrain published the reports of its ~10-minute window, so a window holding one
report published that report's randomized content with its time. Here, however many drains and publishes a day
sees, the versions' report sets are exactly "every report received up to the end of day D".
"""
import datetime

import pytest
from django.db import connection

from aggregator import services, sharding
from aggregator.models import ModelVersion, SurveyStatistics
from aggregator.privacy.jsonable import json_safe
from survey_app import inbox
from survey_app.models import PendingReport, Report, SpentCredential
from survey_app.protocol import get_protocol
from tests.factories import add_reports, after_midnight, make_survey, redeem_credential

pytestmark = pytest.mark.django_db

DAY = datetime.timedelta(days=1)


def _received(survey, day: datetime.date, n: int, seed: int) -> None:
    """``n`` reports arriving in the inbox on ``day``."""
    add_reports(survey, n, seed=seed)
    PendingReport.objects.filter(survey=survey).exclude(received_on__lt=day).update(received_on=day)


def _fold_of(survey, through: datetime.date) -> dict:
    """What a reader computes from the reports table: the statistics of every report received up to ``through``."""
    protocol = get_protocol(survey)
    payloads = Report.objects.filter(survey=survey, received_on__lte=through).values_list("payload", flat=True)
    training, _ = protocol.split(list(payloads))
    return json_safe(protocol.stats_to_dict(protocol.fold(training)))


def _at(day: datetime.date, hour: int, minute: int = 0) -> datetime.datetime:
    return datetime.datetime.combine(day, datetime.time(hour, minute), tzinfo=datetime.UTC)


def test_versions_differ_by_whole_days_however_many_drains_and_publishes_a_day_sees():
    survey = make_survey(mode="mrr")
    start = datetime.date(2026, 3, 1)
    stats_by_version = {}
    for d in range(3):
        day = start + d * DAY
        for w, hour in enumerate((9, 13, 17, 23)):  # four drains and publish attempts within the day
            _received(survey, day, 60 if w else 1, seed=10 * d + w)  # one wave of a single report
            version = services.retrain(survey, now=_at(day, hour, 59))
            # Within the day, only the day before may close: the model never changes mid-day after its first
            # publish of the day, and the previous day closes only after the grace past midnight.
            assert version is None or (w == 0 and version.through_day == day - DAY)
        stats_by_version.update({v.version: v for v in ModelVersion.objects.filter(survey=survey)})
    services.retrain(survey, now=_at(start + 3 * DAY, 0, 5))  # inside the grace: the last day is still open
    assert ModelVersion.objects.filter(survey=survey).count() == 2
    last = services.retrain(survey, now=_at(start + 3 * DAY, 0, 11))
    versions = list(ModelVersion.objects.filter(survey=survey).order_by("version"))
    assert [v.through_day for v in versions] == [start, start + DAY, start + 2 * DAY] and last == versions[-1]
    for v in versions:  # each version is the fold of whole days: the attack learns the days, nothing finer
        assert v.report_count == Report.objects.filter(survey=survey, received_on__lte=v.through_day).count()
        model = get_protocol(survey).estimate(get_protocol(survey).stats_from_dict(_fold_of(survey, v.through_day)))
        assert v.model == json_safe(model.to_dict())
    assert stats_by_version  # versions were kept along the way


def test_the_accuracy_figures_change_only_when_a_day_closes():
    """LDP validation counts are read live per version (``accuracy_by_version``): from the closed days only."""
    survey = make_survey(mode="ldp", encoding="oue")
    add_reports(survey, 400)
    services.retrain(survey, now=after_midnight())
    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload={"validation": {"version": 1,
                                                                                             "report": 1}})])
    services.fold_new_reports(survey)
    assert services.accuracy_by_version(survey) == {}  # one validation report, folded: not shown before its day ends
    services.publish_model(survey, now=after_midnight(2))
    assert services.accuracy_by_version(survey)[1]["reports"] == 1


def test_a_straggler_of_a_closed_day_joins_the_first_open_day_and_no_closed_day_changes():
    """A report whose transaction outlived the grace past midnight (impossible under the web tier's timeouts) is
    labelled with the first open day, in the statistics and in the reports table alike."""
    survey = make_survey(mode="mrr")
    day = datetime.date(2026, 3, 1)
    _received(survey, day, 50, seed=1)
    v1 = services.retrain(survey, now=_at(day + DAY, 1))
    late = day  # arrives now, dated the closed day
    _received(survey, late, 7, seed=2)
    assert services.retrain(survey, now=_at(day + DAY, 2)) is None
    row = SurveyStatistics.objects.get(survey=survey)
    assert list(row.open_days) == [(day + DAY).isoformat()] and row.open_report_count == 7
    assert Report.objects.filter(survey=survey, received_on=day).count() == 50
    assert Report.objects.filter(survey=survey, received_on=day + DAY).count() == 7
    v2 = services.retrain(survey, now=_at(day + 2 * DAY, 1))
    assert (v1.report_count, v2.report_count, v2.through_day) == (50, 57, day + DAY)


def test_shards_fold_one_day_per_partial_and_merge_into_that_day():
    survey = make_survey(mode="mrr")
    day = datetime.date(2026, 3, 1)
    _received(survey, day, 30, seed=1)
    _received(survey, day + DAY, 20, seed=2)
    (shard,) = sharding.plan_shards(survey, shard_size=100, threshold=1)
    assert sharding.fold_shard(survey, shard) == 50
    parts = {p.day: p.report_count for p in survey.partial_statistics.all()}
    assert parts == {day: 30, day + DAY: 20}
    assert services.merge_partials(survey) == 50
    row = SurveyStatistics.objects.get(survey=survey)
    assert {d: v["report_count"] for d, v in row.open_days.items()} == {day.isoformat(): 30,
                                                                       (day + DAY).isoformat(): 20}
    version = services.retrain(survey, now=_at(day + DAY, 12))
    assert (version.report_count, version.through_day) == (30, day)


def test_the_api_says_through_which_day_a_model_goes(client):
    survey = make_survey(mode="mrr")
    add_reports(survey, 100)
    when = after_midnight()
    services.retrain(survey, now=when)
    body = client.get(f"/api/surveys/{survey.slug}/model/").json()
    assert body["through_day"] == (when.date() - DAY).isoformat()


def test_the_dashboard_tells_why_todays_reports_are_not_in_the_model(client, django_user_model):
    survey = make_survey(mode="mrr")
    add_reports(survey, 40)
    services.retrain(survey)
    client.force_login(django_user_model.objects.create_user("staff", is_staff=True, is_superuser=True))
    page = client.get(f"/dashboard/surveys/{survey.slug}/").content.decode()
    assert "Waiting for their day to end" in page and "40 training" in page


@pytest.mark.skipif(connection.vendor != "postgresql", reason="xmin and ctid are PostgreSQL's")
@pytest.mark.django_db(transaction=True)  # real transactions: their ids are what a reader sees in xmin
@pytest.mark.parametrize("chunk", [500, 7])
def test_a_drain_rewrites_the_credentials_spent_since_the_last_one(monkeypatch, chunk):
    """The spent credentials' system columns say when each report's transaction ran; the drain rewrites them, so
    after it they share the drain's transaction (tokens ↔ credential digests by adjacent ``xmin`` no longer work) —
    also when it inserts them back in several chunks (``REWRITE_CHUNK``)."""
    monkeypatch.setattr(inbox, "REWRITE_CHUNK", chunk)
    survey = make_survey(access="tokens")
    reports = iter(get_protocol(survey).encode(*_health(20)))
    from survey_app.outcomes import Submission
    from survey_app.reports import submit_report

    for _ in range(20):
        assert submit_report(survey.slug, Submission(next(reports), credential=redeem_credential(survey))).stored
    with connection.cursor() as cursor:
        table = SpentCredential._meta.db_table
        cursor.execute(f"SELECT count(DISTINCT xmin::text) FROM {table} WHERE survey_id = %s", [survey.pk])
        assert cursor.fetchone()[0] == 20
        services.fold_new_reports(survey)
        cursor.execute(f"SELECT count(DISTINCT xmin::text), count(*), bool_or(fresh) FROM {table} "
                       "WHERE survey_id = %s", [survey.pk])
        assert cursor.fetchone() == (1, 20, False)


def test_a_closed_survey_is_settled_its_inbox_drained_and_its_last_day_published(monkeypatch):
    """A closed survey has no schedule of its own; ``settle_closed_surveys`` (beat, every 10 minutes) drains what
    arrived before it closed — so nothing stays in the inbox or the spent credentials' fresh rows, linkable — and
    publishes its last day once that day has ended."""
    from aggregator import tasks
    from survey_app.models import Survey
    from tests.factories import pass_days

    survey = make_survey(mode="mrr", access="tokens")
    from survey_app.outcomes import Submission
    from survey_app.reports import submit_report

    for report in get_protocol(survey).encode(*_health(30)):
        assert submit_report(survey.slug, Submission(report, credential=redeem_credential(survey))).stored
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    survey.refresh_from_db()
    assert services.unsettled(survey)
    tasks.settle_closed_surveys()
    assert not PendingReport.objects.filter(survey=survey).exists()
    assert not SpentCredential.objects.filter(survey=survey, fresh=True).exists()
    assert services.unsettled(survey) and not ModelVersion.objects.filter(survey=survey).exists()  # today is open
    pass_days(monkeypatch, 1)
    tasks.settle_closed_surveys()
    assert not services.unsettled(survey)
    assert ModelVersion.objects.get(survey=survey).report_count == 30


def test_no_version_is_published_in_a_days_last_minutes():
    """A version created at 23:59:59 might commit after midnight; validation respondents of the next day would then
    split between two versions. The last five minutes publish nothing; the next retrain after midnight does."""
    survey = make_survey(mode="mrr")
    day = datetime.date(2026, 3, 1)
    _received(survey, day, 50, seed=1)
    said = []
    assert services.retrain(survey, now=_at(day + DAY, 23, 56), skipped=said.append) is None
    assert "waits until after midnight" in said[0]
    assert services.retrain(survey, now=_at(day + 2 * DAY, 0, 11)).through_day == day + DAY


def _health(n):
    import numpy as np

    from tests.factories import health_answers

    rng = np.random.default_rng(5)
    X = health_answers(rng, n)
    return X, (X[:, 0] == 2).astype(np.int64), rng
