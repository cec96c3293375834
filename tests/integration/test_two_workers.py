"""Scale-out: two worker processes fold disjoint shards of one survey in parallel; merged, their partial statistics
equal a fold from scratch; two web processes and two workers on one database keep the counts exact (slow: real
processes)."""
import re
import time

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
    """The shards ``worker`` took: its "received" lines (a drain task logs no success line: its time would give the
    drain's duration away; the group's results say each one succeeded)."""
    return len(re.findall(r"Task aggregator\.tasks\.fold_shard\[[^]]+\] received", worker.log()))


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


def test_two_web_processes_and_two_workers_on_one_database_keep_the_counts_exact(database_url, redis_url,
                                                                                   start_worker, processes, tmp_path):
    """The scale-out of docs/operations.md in small: two gunicorn processes (as two web containers) take report POSTs
    while two Celery workers drain the same survey's inbox over and over (every fold racing the inserts, each worker
    taking whichever task comes), all on one PostgreSQL. Then every 201 is one stored report, and the statistics are
    exactly a fold from scratch of what is stored: nothing lost, doubled or folded twice."""
    import json
    import threading

    import numpy as np

    from survey_app.protocol import get_protocol

    from .processes import Gunicorn, post_json, process_env

    survey = make_survey(validation_share=0.0)
    add_respondents(survey, 200)
    webs = []
    for name in ("web1", "web2"):
        web = Gunicorn(process_env(database_url, redis_url), tmp_path / f"{name}.log", workers=1, threads=4)
        processes.append(web)
        webs.append(web.start(f"/api/surveys/{survey.slug}/protocol/"))
    workers = [start_worker(name, database_url, redis_url) for name in ("w1", "w2")]
    protocol, rng = get_protocol(survey), np.random.default_rng(3)
    bodies = [json.dumps({"report": protocol.encode(np.array([[i % 3, 30.0 + i % 50]]), np.array([i % 2]), rng)[0]})
              .encode() for i in range(400)]
    statuses: list[int] = []

    def client(k: int):
        for i in range(k, len(bodies), 4):  # clients 0, 2 post to web1, clients 1, 3 to web2
            statuses.append(post_json(f"{webs[k % 2].url}/api/surveys/{survey.slug}/reports/", bodies[i]))

    threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
    with celery_client(redis_url) as app:
        for thread in threads:
            thread.start()
        folds = []
        while any(thread.is_alive() for thread in threads):
            folds.append(app.send_task(tasks.fold_survey.name, args=[survey.id]))
            time.sleep(0.2)
        for thread in threads:
            thread.join()
        for fold in folds:
            fold.get(timeout=120)
        app.send_task(tasks.fold_survey.name, args=[survey.id]).get(timeout=120)
    assert statuses == [201] * len(bodies)
    # Both workers took folds (their "received" lines; a drain task logs no success line), and every fold's result
    # came back above.
    assert all(re.search(r"Task aggregator\.tasks\.fold_survey\[[^]]+\] received", w.log()) for w in workers)
    scratch = from_scratch(survey)
    assert scratch["report_count"] == 200 + len(bodies)  # stored: the seeded and every 201, once
    assert stored(survey) == scratch  # folded: each exactly once, the inbox drained
