"""Jobs with progress (``aggregator.models.Job``): create one, enqueue its Celery task, report progress from the worker.

``start(kind, task, …)`` stores a pending job and sends ``task.delay(job_id)``; if the broker cannot be reached the job
is marked failed at once with a readable message (the caller shows it) rather than left pending forever.
``Reporter(job_id)`` is what a running task uses: ``update(progress, message)`` writes at most every
``MIN_INTERVAL`` seconds (and always at 0 and 1), ``done(result)`` and ``failed(message)`` finish the job.

Jobs cannot hang (docs/operations.md, "Recovery bounds"): ``run(job_id, work)`` runs a job's work under a heartbeat —
a thread that touches the job's ``updated_at`` every ``heartbeat_seconds()`` while the worker process lives — and ends
it failed with the reason on any error, the soft time limit included. A worker killed outright stops its heartbeat;
``reap_stale()`` (a periodic task, and every poll of the job's page) then marks its running jobs failed once they have
been silent for ``stale_seconds()``; if the broker later redelivers its task (late acknowledgement), it runs again.
"""
from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from datetime import timedelta

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import connection
from django.utils import timezone
from kombu.exceptions import OperationalError

from .models import Job

logger = logging.getLogger(__name__)
MIN_INTERVAL = 0.5
#: What a reaped job says (the page shows it).
STALE_MESSAGE = "The worker running this job stopped (no sign of life for {seconds:g} s). Start it again."


def stale_seconds() -> float:
    """Silence after which a running job counts as lost (``COINFLIP_JOB_STALE_SECONDS``)."""
    return float(settings.COINFLIP_JOB_STALE_SECONDS)


def heartbeat_seconds() -> float:
    """How often a running job shows it is alive: a quarter of the stale bound."""
    return stale_seconds() / 4


def start(kind: str, task, *, survey=None, params: dict | None = None, user=None) -> Job:
    job = Job.objects.create(kind=kind, survey=survey, params=params or {},
                             created_by=user if user is not None and user.is_authenticated else None)
    try:
        task.delay(job.pk)
    except OperationalError as exc:
        logger.warning("cannot enqueue %s job %s: %s", kind, job.pk, exc)
        Job.objects.filter(pk=job.pk).update(state=Job.State.FAILED,
                                             message="The task queue is unreachable; try again later.")
        job.refresh_from_db()
    return job


class Reporter:
    def __init__(self, job_id: int):
        self.job_id = job_id
        self._last = 0.0

    def _write(self, **fields):
        Job.objects.filter(pk=self.job_id).update(updated_at=timezone.now(), **fields)  # update() skips auto_now

    def update(self, progress: float, message: str = "") -> None:
        now = time.monotonic()
        if progress in (0.0, 1.0) or now - self._last >= MIN_INTERVAL:
            self._last = now
            self._write(state=Job.State.RUNNING, progress=max(0.0, min(1.0, progress)), message=message[:300])

    def done(self, result=None, message: str = "Done") -> None:
        self._write(state=Job.State.DONE, progress=1.0, message=message[:300], result=result)

    def failed(self, message: str) -> None:
        self._write(state=Job.State.FAILED, message=message[:300])


@contextmanager
def heartbeat(job_id: int, every: float | None = None):
    """Touch the running job's ``updated_at`` every ``every`` seconds (default ``heartbeat_seconds()``) until the
    block ends; the thread dies with the worker process, which is what lets ``reap_stale`` see a lost job."""
    every = heartbeat_seconds() if every is None else every
    stop = threading.Event()

    def beat():
        try:
            while not stop.wait(every):
                Job.objects.filter(pk=job_id, state__in=(Job.State.PENDING, Job.State.RUNNING)).update(
                    updated_at=timezone.now())
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=beat, name=f"job-{job_id}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def run(job_id: int, work, failure: str) -> None:
    """Run ``work(reporter)`` for job ``job_id`` under a heartbeat. A job already done is left alone; one the reaper
    failed runs again when its task is redelivered (its worker died before acknowledging it). Any exception — the
    soft time limit included — ends the job failed with ``failure`` and the reason, then propagates (the worker logs
    it)."""
    if Job.objects.filter(pk=job_id, state=Job.State.DONE).exists():
        logger.info("job %s already done; redelivered task skipped", job_id)
        return
    reporter = Reporter(job_id)
    reporter.update(0.0, "Starting")
    try:
        with heartbeat(job_id):
            work(reporter)
    except SoftTimeLimitExceeded:
        reporter.failed(f"{failure}: it ran out of time ({settings.CELERY_TASK_SOFT_TIME_LIMIT} s).")
        raise
    except Exception as exc:
        reporter.failed(f"{failure}: {exc}")
        raise


def reap_stale(job: Job | None = None) -> int:
    """Mark failed every running job (or just ``job``, if running) silent for longer than ``stale_seconds()``: its
    worker died, since a live one beats every ``heartbeat_seconds()``. Pending jobs wait for a worker and are left
    alone. Returns how many were reaped."""
    seconds = stale_seconds()
    stale = Job.objects.filter(state=Job.State.RUNNING, updated_at__lt=timezone.now() - timedelta(seconds=seconds))
    if job is not None:
        stale = stale.filter(pk=job.pk)
    reaped = stale.update(state=Job.State.FAILED, message=STALE_MESSAGE.format(seconds=seconds))
    if reaped:
        logger.warning("reaped %d job(s) whose worker stopped", reaped)
    return reaped
