"""Folding against concurrent writers and folders (PostgreSQL, real transactions in threads)."""
import threading
import time

import pytest
from django.db import transaction

from aggregator import services
from aggregator.models import SurveyStatistics
from aggregator.privacy.jsonable import json_safe
from survey_app.models import Report
from survey_app.protocol import get_protocol
from tests.factories import add_reports, make_survey

from .helpers import in_thread

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_report_committed_after_a_larger_id_is_not_skipped():
    """Report A gets its id first but commits after report B; a fold in between must not move past A unseen."""
    survey = make_survey()
    payloads = [r.payload for r in add_reports(survey, 2)]
    Report.objects.all().delete()
    inserted, release = threading.Event(), threading.Event()

    def slow_insert():
        with transaction.atomic():
            Report.objects.create(survey=survey, payload=payloads[0])  # smaller id, still uncommitted …
            inserted.set()
            release.wait(10)

    slow = in_thread(slow_insert)
    assert inserted.wait(10)
    Report.objects.create(survey=survey, payload=payloads[1])  # larger id, committed at once
    result = {}
    folder = in_thread(lambda: result.setdefault("folded", services.fold_new_reports(survey)))
    time.sleep(0.5)
    release.set()  # … commits now, while the fold waits for it
    slow.join(10)
    folder.join(10)
    services.fold_new_reports(survey)
    assert SurveyStatistics.objects.get(survey=survey).report_count == 2
    assert result["folded"] == 2


def test_concurrent_folds_count_each_report_once():
    survey = make_survey()
    add_reports(survey, 400)
    counts = []
    threads = [in_thread(lambda: counts.append(services.fold_new_reports(survey, batch_size=50))) for _ in range(4)]
    for t in threads:
        t.join(30)
    assert sorted(counts) == [0, 0, 0, 400]
    protocol = get_protocol(survey)
    direct = protocol.stats_to_dict(protocol.fold([r.payload for r in Report.objects.filter(survey=survey)]))
    row = SurveyStatistics.objects.get(survey=survey)
    assert row.report_count == 400 and row.stats == json_safe(direct)
