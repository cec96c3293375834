"""Jobs cannot hang (issue 14 item 3): the heartbeat keeps a live job fresh, the reaper fails a silent one, a
redelivered task of a finished job does nothing, every failure ends the job with its reason, and the recovery bounds
in settings are ordered (soft limit < hard limit < broker visibility timeout)."""
import time
from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from aggregator import jobs
from aggregator.models import Job


def _job(state=Job.State.RUNNING, silent_for: float = 0.0) -> Job:
    job = Job.objects.create(kind=Job.Kind.RETRAIN, state=state)
    Job.objects.filter(pk=job.pk).update(updated_at=timezone.now() - timedelta(seconds=silent_for))
    return job


@pytest.mark.django_db
def test_the_reaper_fails_running_jobs_silent_beyond_the_bound_and_nothing_else(settings):
    settings.COINFLIP_JOB_STALE_SECONDS = 60
    lost = _job(silent_for=61)
    alive = _job(silent_for=30)
    pending = _job(Job.State.PENDING, silent_for=3600)  # waits for a worker: not lost
    done = _job(Job.State.DONE, silent_for=3600)
    assert jobs.reap_stale() == 1
    states = dict(Job.objects.values_list("pk", "state"))
    assert states == {lost.pk: "failed", alive.pk: "running", pending.pk: "pending", done.pk: "done"}
    lost.refresh_from_db()
    assert lost.message == "The worker running this job stopped (no sign of life for 60 s). Start it again."


@pytest.mark.django_db
def test_reporter_writes_refresh_updated_at(settings):
    settings.COINFLIP_JOB_STALE_SECONDS = 60
    job = _job(silent_for=3600)
    jobs.Reporter(job.pk).update(0.5, "half")
    assert jobs.reap_stale() == 0


@pytest.mark.django_db(transaction=True)  # the heartbeat thread has its own connection: it must see committed rows
def test_the_heartbeat_keeps_a_silent_but_live_job_from_being_reaped(settings):
    settings.COINFLIP_JOB_STALE_SECONDS = 0.4  # beats every 0.1 s
    job = _job(Job.State.PENDING)
    reaped = []

    def work(reporter):
        reporter.update(0.1, "working quietly")  # then no progress for 4× the stale bound
        deadline = time.monotonic() + 1.6
        while time.monotonic() < deadline:
            reaped.append(jobs.reap_stale())
            time.sleep(0.05)
        reporter.done({"ok": True})

    jobs.run(job.pk, work, "failed")
    job.refresh_from_db()
    assert job.state == "done" and sum(reaped) == 0


@pytest.mark.django_db(transaction=True)
def test_without_a_heartbeat_the_same_job_is_reaped(settings):
    settings.COINFLIP_JOB_STALE_SECONDS = 0.4
    _job()
    time.sleep(0.5)
    assert jobs.reap_stale() == 1  # the control of the test above: its bound does bite


@pytest.mark.django_db
def test_a_redelivered_task_of_a_done_job_does_nothing():
    job = _job(Job.State.DONE)
    jobs.run(job.pk, lambda reporter: pytest.fail("must not run"), "failed")
    job.refresh_from_db()
    assert job.state == "done"


@pytest.mark.django_db
def test_a_reaped_job_runs_again_when_its_task_is_redelivered():
    job = _job(Job.State.FAILED)
    jobs.run(job.pk, lambda reporter: reporter.done({"v": 1}, "Published"), "failed")
    job.refresh_from_db()
    assert (job.state, job.result) == ("done", {"v": 1})


@pytest.mark.django_db
@pytest.mark.parametrize("error, message", [
    (RuntimeError("disk full"), "Retraining failed: disk full"),
    (SoftTimeLimitExceeded(), f"Retraining failed: it ran out of time ({settings.CELERY_TASK_SOFT_TIME_LIMIT} s)."),
])
def test_any_failure_ends_the_job_with_its_reason(error, message):
    job = _job(Job.State.PENDING)

    def work(reporter):
        raise error

    with pytest.raises(type(error)):
        jobs.run(job.pk, work, "Retraining failed")
    job.refresh_from_db()
    assert (job.state, job.message) == ("failed", message)


@pytest.mark.django_db
def test_polling_a_lost_job_ends_it_at_once(client, settings):
    settings.COINFLIP_JOB_STALE_SECONDS = 60
    user = User.objects.create_superuser("boss", password="pw")
    client.force_login(user)
    job = Job.objects.create(kind=Job.Kind.PLANNER, state=Job.State.RUNNING, created_by=user)
    Job.objects.filter(pk=job.pk).update(updated_at=timezone.now() - timedelta(seconds=61))
    body = client.get(f"/dashboard/jobs/{job.pk}/").json()
    assert body["state"] == "failed" and body["finished"] and "stopped" in body["message"]


def test_recovery_bounds_are_ordered():
    assert (0 < settings.CELERY_TASK_SOFT_TIME_LIMIT < settings.CELERY_TASK_TIME_LIMIT
            < settings.COINFLIP_VISIBILITY_TIMEOUT)
    assert settings.CELERY_BEAT_SCHEDULE["reap stale jobs"]["task"] == "aggregator.tasks.reap_stale_jobs"
