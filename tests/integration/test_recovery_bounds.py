"""Recovery bounds (issue 14 item 3; docs/operations.md): a worker SIGKILLed mid-job or mid-shard does not leave a job
"running" forever nor a chord waiting for kombu's default hour. With the bounds shortened for the test
(``COINFLIP_TASK_TIME_LIMIT`` = 10 s, so Redis redelivers an unacknowledged task after the 20-s visibility timeout;
``COINFLIP_JOB_STALE_SECONDS`` = 3 s), the job is failed by the reaper within the stale bound, then — once a worker is
back and the visibility timeout has passed — its redelivered task runs again and publishes, and a killed shard is
redelivered so that its chord completes and publishes without any new retrain being sent (slow: real processes)."""
import time

import pytest

from aggregator import jobs, tasks
from aggregator.models import Job, ModelVersion
from tests.factories import add_reports, days_pass, make_survey

from .helpers import from_scratch, stored
from .processes import celery_client, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BOUNDS = {"COINFLIP_TASK_TIME_LIMIT": "10", "COINFLIP_JOB_STALE_SECONDS": "3"}
VISIBILITY = 20  # COINFLIP_TASK_TIME_LIMIT + max(10, limit // 10): coinflip/settings.py
SLACK = 25  # RestoreUnacked checks every 5 s (coinflip/celery.py); worker start-up; the fold itself


def test_a_job_whose_worker_is_killed_fails_within_the_stale_bound_then_reruns_and_publishes(
        database_url, redis_url, start_worker, tmp_path, settings):
    settings.COINFLIP_JOB_STALE_SECONDS = 3
    survey = make_survey()
    add_reports(survey, 600)
    days_pass(survey)  # models include closed days only: these reports' day has ended
    job = Job.objects.create(kind=Job.Kind.RETRAIN, survey=survey)
    marker = tmp_path / "paused"
    hooked = start_worker("hooked", database_url, redis_url, hooked=True, COINFLIP_TEST_PAUSE="fold",
                          COINFLIP_TEST_MARKER=str(marker), **BOUNDS)
    with celery_client(redis_url) as client:
        client.send_task(tasks.retrain_job.name, args=[job.pk])
        wait_for(lambda: marker.exists() or Job.objects.get(pk=job.pk).state in (Job.State.DONE, Job.State.FAILED),
                 60, "the worker to pause inside the fold")
        assert marker.exists(), f"the job ended without pausing: {Job.objects.get(pk=job.pk).message}"
        hooked.kill()
        killed = time.monotonic()

        def reaped():
            jobs.reap_stale()
            return Job.objects.get(pk=job.pk).state == Job.State.FAILED
        wait_for(reaped, 3 + 5, "the reaper to fail the job")
        assert time.monotonic() - killed <= 3 + 5
        assert "stopped" in Job.objects.get(pk=job.pk).message

        start_worker("plain", database_url, redis_url, **BOUNDS)
        wait_for(lambda: Job.objects.get(pk=job.pk).state == Job.State.DONE, VISIBILITY + SLACK,
                 "the redelivered job to finish")
    assert time.monotonic() - killed <= VISIBILITY + SLACK
    assert list(ModelVersion.objects.filter(survey=survey).values_list("version", "report_count")) == [(1, 600)]
    assert stored(survey) == from_scratch(survey)


def test_a_shard_whose_worker_is_killed_is_redelivered_and_its_chord_publishes(
        database_url, redis_url, start_worker, tmp_path):
    survey = make_survey()
    add_reports(survey, 1500)
    days_pass(survey)
    sharded = {"COINFLIP_SHARD_THRESHOLD": "1000", "COINFLIP_SHARD_SIZE": "500", **BOUNDS}  # 3 shards
    marker = tmp_path / "paused"
    hooked = start_worker("hooked", database_url, redis_url, hooked=True, COINFLIP_TEST_PAUSE="fold",
                          COINFLIP_TEST_MARKER=str(marker), **sharded)
    with celery_client(redis_url) as client:
        client.send_task(tasks.retrain_survey.name, args=[survey.id])
        wait_for(marker.exists, 60, "the worker to pause inside a shard's fold")
        hooked.kill()
        killed = time.monotonic()
        start_worker("plain", database_url, redis_url, **sharded)  # nothing else is sent: the chord must finish
        wait_for(lambda: ModelVersion.objects.filter(survey=survey).exists(), VISIBILITY + SLACK,
                 "the chord to publish after the killed shard's redelivery")
    assert time.monotonic() - killed <= VISIBILITY + SLACK
    assert list(ModelVersion.objects.filter(survey=survey).values_list("version", "report_count")) == [(1, 1500)]
    assert stored(survey) == from_scratch(survey)
