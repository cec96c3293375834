"""Jobs with progress (``aggregator.models.Job``): create one, enqueue its Celery task, report progress from the worker.

``start(kind, task, …)`` stores a pending job and sends ``task.delay(job_id)``; if the broker cannot be reached the job
is marked failed at once with a readable message (the caller shows it) rather than left pending forever.
``Reporter(job_id)`` is what a running task uses: ``update(progress, message)`` writes at most every
``MIN_INTERVAL`` seconds (and always at 0 and 1), ``done(result)`` and ``failed(message)`` finish the job.
"""
from __future__ import annotations

import logging
import time

from kombu.exceptions import OperationalError

from .models import Job

logger = logging.getLogger(__name__)
MIN_INTERVAL = 0.5


def start(kind: str, task, *, survey=None, params: dict | None = None, user=None) -> Job:
    job = Job.objects.create(kind=kind, survey=survey, params=params or {},
                             created_by=user if user is not None and user.is_authenticated else None)
    try:
        task.delay(job.pk)
    except OperationalError as exc:
        logger.warning("cannot enqueue %s job %s: %s", kind, job.pk, exc)
        Job.objects.filter(pk=job.pk).update(state=Job.State.FAILED, message="The task queue is unreachable; try again later.")
        job.refresh_from_db()
    return job


class Reporter:
    def __init__(self, job_id: int):
        self.job_id = job_id
        self._last = 0.0

    def _write(self, **fields):
        Job.objects.filter(pk=self.job_id).update(**fields)

    def update(self, progress: float, message: str = "") -> None:
        now = time.monotonic()
        if progress in (0.0, 1.0) or now - self._last >= MIN_INTERVAL:
            self._last = now
            self._write(state=Job.State.RUNNING, progress=max(0.0, min(1.0, progress)), message=message[:300])

    def done(self, result=None, message: str = "Done") -> None:
        self._write(state=Job.State.DONE, progress=1.0, message=message[:300], result=result)

    def failed(self, message: str) -> None:
        self._write(state=Job.State.FAILED, message=message[:300])
