"""Sharded folding in process (``aggregator.sharding``, ``services.merge_partials``): planning, exactly-once merging,
the safe bound against a late-committing insert, the chord run eagerly, and the 503 answer to a database outage.

The real worker processes are in the other (slow) modules of this folder."""
import random
import socket
import threading
import time
from itertools import pairwise

import numpy as np
import pytest
from django.db import connection, transaction
from rest_framework.test import APIClient

from aggregator import services, sharding, tasks
from aggregator.models import ModelVersion, PartialStatistics, SurveyStatistics
from survey_app.models import Report
from survey_app.protocol import get_protocol
from tests.aggregator.helpers import in_thread
from tests.factories import add_reports, add_respondents, make_survey

from .helpers import from_scratch, stored

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("mode", ["ldp", "mrr"])
def test_shards_folded_in_any_order_merge_to_the_fold_from_scratch(mode):
    survey = make_survey(mode=mode, validation_share=0.2)
    add_respondents(survey, 700)
    services.fold_new_reports(survey)
    add_respondents(survey, 1000, seed=1)
    before = SurveyStatistics.objects.get(survey=survey).watermark
    shards = sharding.plan_shards(survey, shard_size=300, threshold=0)
    # The ranges tile the id line from the watermark + 1 to the last report, 300 reports each (the last fewer).
    assert shards[0].first_id == before + 1
    assert all(a.last_id + 1 == b.first_id for a, b in pairwise(shards))
    assert shards[-1].last_id == Report.objects.latest("id").id
    sizes = [Report.objects.filter(survey=survey, id__range=(s.first_id, s.last_id)).count() for s in shards]
    assert sizes == [300, 300, 300, 100]
    order = list(shards)
    random.Random(3).shuffle(order)
    for shard in order:
        assert sharding.fold_shard(survey, shard, worker="w@test") == Report.objects.filter(
            survey=survey, id__range=(shard.first_id, shard.last_id)).count()
    assert sharding.fold_shard(survey, order[0]) == 0  # a shard folded twice is stored once
    assert PartialStatistics.objects.filter(survey=survey).count() == 4
    assert services.merge_partials(survey) == 1000
    assert stored(survey) == from_scratch(survey)
    assert not PartialStatistics.objects.filter(survey=survey).exists()
    assert services.merge_partials(survey) == 0  # nothing left to merge twice
    assert sharding.fold_shard(survey, shards[1]) == 0  # nor to fold again once merged


def test_merge_stops_at_a_missing_shard_and_resumes_when_it_arrives():
    survey = make_survey()
    add_reports(survey, 900)
    first, second, third = sharding.plan_shards(survey, shard_size=300, threshold=0)
    sharding.fold_shard(survey, first)
    sharding.fold_shard(survey, third)
    assert services.merge_partials(survey) == 300
    row = SurveyStatistics.objects.get(survey=survey)
    assert row.watermark == first.last_id and row.report_count == 300
    assert list(PartialStatistics.objects.values_list("first_id", flat=True)) == [third.first_id]  # waits, intact
    # Planning again (e.g. the next retrain after the worker folding ``second`` died) finds the same cuts.
    assert sharding.plan_shards(survey, shard_size=300, threshold=0) == [second, third]
    sharding.fold_shard(survey, second)
    assert services.merge_partials(survey) == 600
    assert stored(survey) == from_scratch(survey)


def test_a_full_fold_passes_unmerged_partials_and_drops_them():
    survey = make_survey(mode="mrr")
    add_reports(survey, 600)
    shards = sharding.plan_shards(survey, shard_size=200, threshold=0)
    sharding.fold_shard(survey, shards[1])  # the shard before it is missing: this partial cannot be merged yet
    assert services.fold_new_reports(survey) == 600  # folds everything itself …
    assert stored(survey) == from_scratch(survey)
    assert not PartialStatistics.objects.exists()  # … and the partial behind the watermark is gone, never merged
    sharding.fold_shard(survey, shards[2])  # a straggler finishing late is stored …
    services.merge_partials(survey)  # … and dropped by the next merge, never added
    assert stored(survey) == from_scratch(survey) and not PartialStatistics.objects.exists()


def test_below_the_threshold_nothing_is_sharded():
    survey = make_survey()
    add_reports(survey, 50)
    assert sharding.plan_shards(survey, shard_size=10, threshold=51) == []
    assert len(sharding.plan_shards(survey, shard_size=10, threshold=50)) == 5


def test_the_plan_waits_for_a_report_whose_smaller_id_commits_late():
    """Report A draws its id first but commits after report B: the safe bound must not let a shard end past A unseen."""
    survey = make_survey()
    payloads = [r.payload for r in add_reports(survey, 2)]
    Report.objects.all().delete()
    inserted, release, planned = threading.Event(), threading.Event(), {}

    def slow_insert():
        with transaction.atomic():
            Report.objects.create(survey=survey, payload=payloads[0])  # smaller id, not committed yet …
            inserted.set()
            release.wait(10)

    slow = in_thread(slow_insert)
    assert inserted.wait(10)
    late = Report.objects.create(survey=survey, payload=payloads[1])  # larger id, committed at once
    planner = in_thread(lambda: planned.setdefault("shards", sharding.plan_shards(survey, shard_size=1, threshold=0)))
    time.sleep(0.5)
    assert "shards" not in planned  # the planner waits for the insert in flight
    release.set()  # … commits now
    slow.join(10)
    planner.join(10)
    shards = planned["shards"]
    assert shards[-1].last_id == late.id and len(shards) == 2
    for shard in shards:
        sharding.fold_shard(survey, shard)
    assert services.merge_partials(survey) == 2


def test_retrain_survey_shards_through_an_eager_chord(settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.COINFLIP_SHARD_THRESHOLD = 100
    settings.COINFLIP_SHARD_SIZE = 150
    survey = make_survey(mode="mrr", validation_share=0.2)
    add_respondents(survey, 600)
    folded_shards, fold_shard = [], sharding.fold_shard

    def counted(survey, shard, **kwargs):
        folded_shards.append(shard)
        return fold_shard(survey, shard, **kwargs)

    monkeypatch.setattr(sharding, "fold_shard", counted)
    assert tasks.retrain_survey.delay(survey.id).get() == 1
    assert len(folded_shards) == 4
    assert stored(survey) == from_scratch(survey)
    assert ModelVersion.objects.get(survey=survey).report_count == stored(survey)["report_count"]
    add_respondents(survey, 50, seed=2)  # below the threshold: the single-transaction fold
    assert tasks.retrain_survey.delay(survey.id).get() == 2
    assert len(folded_shards) == 4 and stored(survey) == from_scratch(survey)


@pytest.mark.parametrize("path, content_type", [("/api/surveys/health/reports/", "application/json"),
                                                 ("/s/health/", "text/html")])
def test_an_unreachable_database_answers_503_with_retry_after(monkeypatch, path, content_type):
    make_survey()
    other = get_protocol(make_survey(slug="other"))
    report = other.encode(np.array([[1, 40.0]]), np.array([1]), np.random.default_rng(0))[0]
    with socket.socket() as probe:  # a port nobody listens on: connecting is refused, as when PostgreSQL is down
        probe.bind(("127.0.0.1", 0))
        dead_port = probe.getsockname()[1]
    connection.close()
    monkeypatch.setitem(connection.settings_dict, "PORT", dead_port)
    client = APIClient()
    response = client.post(path, {"report": report}, format="json") if path.startswith("/api/") else client.get(path)
    monkeypatch.undo()
    connection.close()
    assert response.status_code == 503
    assert response["Retry-After"].isdigit() and response["Content-Type"].startswith(content_type)
    assert "try again" in response.content.decode()
    assert not Report.objects.exists()
