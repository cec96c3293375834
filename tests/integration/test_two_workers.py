"""Scale-out: two worker processes fold disjoint shards of one survey in parallel; merged, their partial statistics
equal a fold from scratch (slow: real processes)."""
import re

import pytest
from celery import group

from aggregator import sharding, tasks
from aggregator.models import ModelVersion, PartialStatistics
from tests.factories import add_respondents, days_pass, make_survey

from .helpers import from_scratch, stored
from .processes import celery_client

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SHARDING = {"COINFLIP_SHARD_THRESHOLD": "2000", "COINFLIP_SHARD_SIZE": "1000"}


def shards_folded_by(worker) -> int:
    return len(re.findall(r"Task aggregator\.tasks\.fold_shard\[[^]]+\] succeeded", worker.log()))


def test_two_workers_fold_shards_in_parallel_and_the_merge_is_exact(database_url, redis_url, start_worker):
    survey = make_survey(mode="mrr", validation_share=0.2)  # validation reports are sharded and merged too
    add_respondents(survey, 12_000)
    days_pass(survey)  # models include closed days only: these reports' day has ended
    workers = [start_worker(name, database_url, redis_url, **SHARDING) for name in ("w1", "w2")]
    shards = sharding.plan_shards(survey, shard_size=1000, threshold=0)
    assert len(shards) == 12
    with celery_client(redis_url) as client:
        # 1. The shards alone: each worker stores partial statistics stamped with its name.
        fold = group(client.signature(tasks.fold_shard.name, args=(survey.id, s.low, s.high)) for s in shards)
        assert fold.apply_async().get(timeout=60) == [None] * 12  # no counts in the workers' logs
        partials = list(PartialStatistics.objects.filter(survey=survey))
        # One partial per shard, covering exactly its inbox rows.
        assert sorted(sorted(p.pending) for p in partials) == sorted(
            sorted(str(i) for i in s.rows(survey).values_list("id", flat=True)) for s in shards)
        assert {p.worker.split("@")[0] for p in partials} == {"w1", "w2"}  # both took part
        assert sum(p.report_count + p.validation_count for p in partials) == 12_000
        assert client.send_task(tasks.merge_and_publish.name, args=[survey.id]).get(timeout=60) == 1
        assert stored(survey) == from_scratch(survey) and not PartialStatistics.objects.exists()
        first = stored(survey)["report_count"]

        # 2. The whole pipeline: retrain_survey sees a large backlog and becomes a chord over both workers.
        add_respondents(survey, 6_000, seed=1)
        days_pass(survey)
        before = [shards_folded_by(w) for w in workers]
        assert client.send_task(tasks.retrain_survey.name, args=[survey.id]).get(timeout=60) == 2
        after = [shards_folded_by(w) for w in workers]
    assert sum(after) - sum(before) == 6  # 6,000 new reports in shards of 1,000
    assert all(a > b for a, b in zip(after, before, strict=True))  # both workers folded some
    assert stored(survey) == from_scratch(survey) and not PartialStatistics.objects.exists()
    versions = ModelVersion.objects.filter(survey=survey).order_by("version")
    assert list(versions.values_list("report_count", flat=True)) == [first, stored(survey)["report_count"]]
