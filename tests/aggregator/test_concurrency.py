"""Draining against concurrent writers and folders (PostgreSQL, real transactions in threads)."""
import threading
import time

import pytest
from django.db import transaction

from aggregator import services
from aggregator.privacy.jsonable import json_safe
from survey_app.models import PendingReport, Report
from survey_app.protocol import get_protocol
from tests.factories import add_reports, folded, make_survey, simulated_reports

from .helpers import in_thread

pytestmark = pytest.mark.django_db(transaction=True)


def folded_from_scratch(survey) -> dict:
    protocol = get_protocol(survey)
    return json_safe(protocol.stats_to_dict(protocol.fold([r.payload for r in Report.objects.filter(survey=survey)])))


def test_a_report_committing_during_a_drain_stays_pending_and_is_folded_next_time():
    """A report inserted but not committed when the drain reads the inbox is not seen, so not deleted: the drain does
    not wait for it (no table lock), and the next drain folds it."""
    survey = make_survey()
    first, late = simulated_reports(survey, n=2)
    PendingReport.objects.create(survey=survey, payload=first)
    inserted, release = threading.Event(), threading.Event()

    def slow_insert():
        with transaction.atomic():
            PendingReport.objects.create(survey=survey, payload=late)  # not committed yet …
            inserted.set()
            release.wait(10)

    slow = in_thread(slow_insert)
    assert inserted.wait(10)
    assert services.fold_new_reports(survey) == 1  # … does not block the drain
    release.set()
    slow.join(10)
    assert list(PendingReport.objects.values_list("payload", flat=True)) == [late]
    assert services.fold_new_reports(survey) == 1
    assert folded(survey).report_count == 2
    assert sorted(map(str, Report.objects.values_list("payload", flat=True))) == sorted(map(str, [first, late]))


def test_reports_committed_between_a_drains_batches_are_folded_once(monkeypatch):
    """Reports committed by another connection while a drain is between batches: those the drain's later batches
    read are folded and moved, the others stay pending; after the next drain each is folded exactly once."""
    survey = make_survey()
    add_reports(survey, 200)
    extra = simulated_reports(survey, n=60, seed=7)
    protocol = get_protocol(survey)
    aggregate, calls = protocol.aggregate, []

    def aggregate_and_insert(reports):
        calls.append(reports.n)
        if len(calls) == 1:  # another connection inserts and commits while the drain is mid-way
            thread = in_thread(lambda: PendingReport.objects.bulk_create(
                [PendingReport(survey=survey, payload=p) for p in extra]))
            thread.join(10)
        return aggregate(reports)

    monkeypatch.setattr(protocol, "aggregate", aggregate_and_insert)
    monkeypatch.setattr(services, "get_protocol", lambda survey: protocol)
    first = services.fold_new_reports(survey, batch_size=25)
    assert 200 <= first <= 260
    assert PendingReport.objects.filter(survey=survey).count() == 260 - first  # not read: not deleted
    assert services.fold_new_reports(survey) == 260 - first
    row = folded(survey)
    assert row.report_count == 260 == Report.objects.filter(survey=survey).count()
    assert row.stats == folded_from_scratch(survey)


def test_concurrent_folds_count_each_report_once():
    survey = make_survey()
    add_reports(survey, 400)
    counts = []
    threads = [in_thread(lambda: counts.append(services.fold_new_reports(survey, batch_size=50))) for _ in range(4)]
    for t in threads:
        t.join(30)
    assert sorted(counts) == [0, 0, 0, 400]
    row = folded(survey)
    assert row.report_count == 400 == Report.objects.filter(survey=survey).count()
    assert row.stats == folded_from_scratch(survey) and not PendingReport.objects.exists()


def test_a_drain_does_not_make_report_posts_wait(monkeypatch):
    """A drain holds only the statistics row lock: an insert into the inbox during a drain commits at once (a blocked
    insert would wait for the whole drain: the join's 10-s timeout)."""
    survey = make_survey()
    add_reports(survey, 300)
    late = simulated_reports(survey, n=1, seed=3)[0]
    protocol = get_protocol(survey)
    aggregate, waited = protocol.aggregate, []

    def aggregate_after_an_insert(reports):
        if not waited:
            start = time.monotonic()
            in_thread(lambda: PendingReport.objects.create(survey=survey, payload=late)).join(10)
            waited.append(time.monotonic() - start)
        return aggregate(reports)

    monkeypatch.setattr(protocol, "aggregate", aggregate_after_an_insert)
    monkeypatch.setattr(services, "get_protocol", lambda survey: protocol)
    services.fold_new_reports(survey, batch_size=100)
    assert waited[0] < 2.0
    assert PendingReport.objects.filter(survey=survey, payload=late).exists() or Report.objects.filter(
        survey=survey, payload=late).exists()
