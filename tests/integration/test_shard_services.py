"""Sharded folding in process (``aggregator.sharding``, ``services.merge_partials``): planning by random key ranges,
exactly-once merging of partials that list their inbox rows, dropping the partials whose rows were folded another way,
the chord run eagerly, and the 503 answer to a database outage.

The real worker processes are in the other (slow) modules of this folder."""
import json
import random
import socket
import threading
import uuid
from collections import Counter
from itertools import pairwise

import numpy as np
import pytest
from django.db import connection, transaction
from rest_framework.test import APIClient

from aggregator import services, sharding, tasks
from aggregator.models import ModelVersion, PartialStatistics
from survey_app.models import PendingReport, Report
from survey_app.protocol import get_protocol
from tests.aggregator.helpers import in_thread
from tests.factories import add_reports, add_respondents, days_pass, make_survey

from .helpers import from_scratch, stored

pytestmark = pytest.mark.django_db(transaction=True)


def stored_payloads(survey) -> Counter:
    """Every stored report of the survey (``Report`` and the inbox) as a multiset of JSON texts."""
    rows = [*Report.objects.filter(survey=survey).values_list("payload", flat=True),
            *PendingReport.objects.filter(survey=survey).values_list("payload", flat=True)]
    return Counter(json.dumps(p, sort_keys=True) for p in rows)


@pytest.mark.parametrize("mode", ["ldp", "mrr"])
def test_shards_folded_in_any_order_merge_to_the_fold_from_scratch(mode):
    survey = make_survey(mode=mode, validation_share=0.2)
    add_respondents(survey, 700)
    services.fold_new_reports(survey)
    add_respondents(survey, 1000, seed=1)
    sent = stored_payloads(survey)
    shards = sharding.plan_shards(survey, shard_size=300, threshold=0)
    # Key ranges tiling the whole key space (open at both ends), 300 pending rows each (the last fewer).
    assert shards[0].low is None and shards[-1].high is None
    assert all(a.high == b.low for a, b in pairwise(shards))
    assert [s.rows(survey).count() for s in shards] == [300, 300, 300, 100]
    order = list(shards)
    random.Random(3).shuffle(order)
    for shard in order:
        assert sharding.fold_shard(survey, shard, worker="w@test") == shard.rows(survey).count()
    assert sharding.fold_shard(survey, order[0]) == 0  # a shard folded twice is stored once
    assert PartialStatistics.objects.filter(survey=survey).count() == 4
    assert services.merge_partials(survey) == 1000
    assert stored(survey) == from_scratch(survey)
    assert not PendingReport.objects.filter(survey=survey).exists() and stored_payloads(survey) == sent
    assert not PartialStatistics.objects.filter(survey=survey).exists()
    assert services.merge_partials(survey) == 0  # nothing left to merge twice
    assert sharding.fold_shard(survey, shards[1]) == 0  # nor to fold again once merged


def test_partial_statistics_store_no_range_and_no_time():
    """A partial lists the (random) inbox keys it covers, in key order; no id range or creation time is kept."""
    survey = make_survey()
    add_reports(survey, 50)
    sharding.fold_shard(survey, sharding.Shard(None, None))
    partial = PartialStatistics.objects.get(survey=survey)
    fields = {f.name for f in PartialStatistics._meta.get_fields()}
    assert fields == {"id", "survey", "pending", "stats", "validation", "plausibility", "report_count",
                      "validation_count", "day", "worker"}  # the day its reports were received: no finer time
    assert sorted(partial.pending) == partial.pending
    assert set(partial.pending) == {str(i) for i in PendingReport.objects.values_list("id", flat=True)}


def test_merge_takes_the_shards_that_are_ready_and_the_rest_stays_pending():
    survey = make_survey()
    add_reports(survey, 900)
    first, second, third = sharding.plan_shards(survey, shard_size=300, threshold=0)
    sharding.fold_shard(survey, first)
    sharding.fold_shard(survey, third)
    assert services.merge_partials(survey) == 600
    assert stored(survey)["report_count"] == 600 and not PartialStatistics.objects.exists()
    assert PendingReport.objects.filter(survey=survey).count() == 300  # the missing shard's rows wait in the inbox
    assert stored(survey) == from_scratch(survey, folded_only=True)
    # Planning again (e.g. the next retrain after the worker folding ``second`` died) covers what is left.
    again = sharding.plan_shards(survey, shard_size=300, threshold=0)
    assert len(again) == 1 and sharding.fold_shard(survey, again[0]) == 300
    assert services.merge_partials(survey) == 300
    assert stored(survey) == from_scratch(survey) and not PendingReport.objects.exists()


def test_a_full_fold_merges_ready_partials_and_a_straggler_whose_rows_are_gone_is_dropped():
    survey = make_survey(mode="mrr")
    add_reports(survey, 600)
    shards = sharding.plan_shards(survey, shard_size=200, threshold=0)
    sharding.fold_shard(survey, shards[1])
    assert services.fold_new_reports(survey) == 600  # merges the partial, folds the rest itself …
    assert stored(survey) == from_scratch(survey)
    assert not PartialStatistics.objects.exists()
    # A shard folded from rows read before that drain deleted them commits late: its rows are gone, so it is dropped.
    gone = [str(uuid.uuid4()) for _ in range(200)]  # the ids of inbox rows that no longer exist
    ghost = PartialStatistics.objects.create(survey=survey, pending=gone, stats={}, validation={}, report_count=200)
    services.merge_partials(survey)
    assert stored(survey) == from_scratch(survey) and not PartialStatistics.objects.filter(pk=ghost.pk).exists()


def test_a_partial_racing_a_drain_is_dropped_and_its_rows_fold_once(monkeypatch):
    """``fold_shard`` reads its rows, then a drain folds and moves them, then the shard stores its partial: the next
    merge finds the rows gone and drops it — nothing counted twice. Rows of a partial that are still pending but shared
    with a partial merged first are folded directly."""
    survey = make_survey()
    add_reports(survey, 300)
    protocol = get_protocol(survey)  # cached: the drain's fold gets this very object, patched ``aggregate`` included
    aggregate, started, drained = protocol.aggregate, threading.Event(), threading.Event()

    def aggregate_then_wait_for_the_drain(reports):
        stats = aggregate(reports)
        if not started.is_set():  # once, in the shard's fold: the drain's own fold must not start another drain
            started.set()
            # Its own connection: it would block (and fail here) if the shard's read-only fold held a lock or a
            # transaction; otherwise it ends at once.
            in_thread(lambda: (services.fold_new_reports(survey), drained.set())).join(30)
            assert drained.is_set(), "the drain waited for the shard's fold"
        return stats

    monkeypatch.setattr(protocol, "aggregate", aggregate_then_wait_for_the_drain)
    monkeypatch.setattr(sharding, "get_protocol", lambda survey: protocol)
    assert sharding.fold_shard(survey, sharding.Shard(None, None)) == 300  # stored after its rows were drained
    monkeypatch.undo()
    add_reports(survey, 100, seed=1)
    assert services.fold_new_reports(survey) == 100  # the stale partial is dropped, the new rows folded
    assert stored(survey) == from_scratch(survey) and stored(survey)["report_count"] == 400
    assert not PartialStatistics.objects.exists()
    # Two partials sharing rows (one shard folded twice at the same moment): one is merged, the other dropped.
    add_reports(survey, 100, seed=2)
    sharding.fold_shard(survey, sharding.Shard(None, None))
    twin = PartialStatistics.objects.get()
    twin.pk = None
    twin.save()
    assert services.merge_partials(survey) == 100
    assert stored(survey) == from_scratch(survey) and stored(survey)["report_count"] == 500
    assert not PartialStatistics.objects.exists()


def test_below_the_threshold_nothing_is_sharded():
    survey = make_survey()
    add_reports(survey, 50)
    assert sharding.plan_shards(survey, shard_size=10, threshold=51) == []
    assert len(sharding.plan_shards(survey, shard_size=10, threshold=50)) == 5


def test_a_shard_never_takes_a_report_committed_after_it_read_the_inbox():
    """A report inserted (not yet committed) while a shard folds is not in its partial: it stays pending."""
    survey = make_survey()
    payloads = [r.payload for r in add_reports(survey, 2)]
    PendingReport.objects.all().delete()
    PendingReport.objects.create(survey=survey, payload=payloads[0])
    inserted, release = threading.Event(), threading.Event()

    def slow_insert():
        with transaction.atomic():
            PendingReport.objects.create(survey=survey, payload=payloads[1])
            inserted.set()
            release.wait(10)

    slow = in_thread(slow_insert)
    assert inserted.wait(10)
    assert sharding.fold_shard(survey, sharding.Shard(None, None)) == 1
    release.set()
    slow.join(10)
    assert services.merge_partials(survey) == 1
    assert PendingReport.objects.filter(survey=survey).count() == 1
    assert services.fold_new_reports(survey) == 1
    assert stored(survey) == from_scratch(survey) and stored(survey)["report_count"] == 2


def test_retrain_survey_shards_through_an_eager_chord(settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.COINFLIP_SHARD_THRESHOLD = 100
    settings.COINFLIP_SHARD_SIZE = 150
    survey = make_survey(mode="mrr", validation_share=0.2)
    add_respondents(survey, 600)
    days_pass(survey)  # models include closed days only: these reports' day has ended
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
    days_pass(survey)
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
    assert not Report.objects.exists() and not PendingReport.objects.exists()
