"""Celery tasks: thin wrappers that load a survey by id and call ``aggregator.services`` (or ``aggregator.sharding``).

``retrain_survey`` shards a large backlog (``sharding.plan_shards``): it replaces itself with a chord of
``fold_shard`` tasks — any number of workers fold them in parallel — whose body ``merge_and_publish`` merges the
partial statistics and publishes; the caller's result is the body's (the new version). Chords need a result
backend (Redis); with none (the embedded default) or a small backlog, the single-transaction fold runs instead.
Every task here is safe to run twice (a fold is exactly-once, a publication happens only when something changed, a
job already done is not run again), so all are acknowledged late and requeued if their worker process dies; a worker
killed outright has its tasks redelivered after the broker's visibility timeout, sized to the task time limit
(``coinflip/settings.py``, docs/operations.md "Recovery bounds"). ``reap_stale_jobs`` ends jobs whose worker died.
"""
from __future__ import annotations

from celery import chord, shared_task
from celery.backends.base import DisabledBackend
from celery.result import allow_join_result

from survey_app.models import Survey

from . import jobs, planning, services, sharding
from .models import Job


@shared_task(acks_late=True, reject_on_worker_lost=True)
def fold_survey(survey_id: int) -> None:
    """Drain a survey's inbox into its statistics. Returns nothing: the worker logs a task's result with its time,
    and a count per drain window would place a quiet day's reports within it."""
    services.fold_new_reports(Survey.objects.get(pk=survey_id))


def _version_number(version) -> int | None:
    return version.version if version else None


def chords_available(app) -> bool:
    """Whether a chord can run: eagerly, or with a result backend to count its finished tasks."""
    return bool(app.conf.task_always_eager) or not isinstance(app.backend, DisabledBackend)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True)
def retrain_survey(self, survey_id: int) -> int | None:
    """Fold and publish; returns the new version number (``None`` when nothing changed).

    From ``COINFLIP_SHARD_THRESHOLD`` new reports on (and with a result backend), the fold is sharded over the
    workers: this task is replaced by ``chord(fold_shard…)(merge_and_publish)``, which returns the same."""
    survey = Survey.objects.get(pk=survey_id)
    if not self.request.called_directly and chords_available(self.app):
        services.merge_partials(survey)  # what a previous, interrupted chord left ready
        shards = sharding.plan_shards(survey)
        if len(shards) > 1:
            header = [fold_shard.si(survey_id, s.low, s.high) for s in shards]
            with allow_join_result():  # eagerly (tests), replacing runs the chord here and waits for it
                return self.replace(chord(header, merge_and_publish.si(survey_id)))
    return _version_number(services.retrain(survey))


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True)
def fold_shard(self, survey_id: int, low: str | None, high: str | None) -> None:
    """Fold one shard (a range of random inbox keys) into ``PartialStatistics`` rows stamped with this worker's name.
    Returns nothing (the worker logs a task's result with its time: ``fold_survey``)."""
    shard = sharding.Shard(low, high)
    sharding.fold_shard(Survey.objects.get(pk=survey_id), shard, worker=self.request.hostname or "")


@shared_task(acks_late=True, reject_on_worker_lost=True)
def merge_and_publish(survey_id: int) -> int | None:
    """The chord's body: merge the partial statistics, fold what arrived meanwhile, publish; the new version number."""
    return _version_number(services.retrain(Survey.objects.get(pk=survey_id)))


@shared_task(ignore_result=True)
def settle_closed_surveys() -> None:
    """Drain and close the days of surveys that no longer take reports but still hold unsettled rows
    (``services.unsettled``): a closed survey has no schedule of its own. Run every 10 minutes by beat."""
    for survey in Survey.objects.exclude(status=Survey.Status.OPEN).order_by("id"):
        if services.unsettled(survey):
            services.retrain(survey)


@shared_task(ignore_result=True, acks_late=True, reject_on_worker_lost=True)
def retrain_job(job_id: int) -> None:
    """"Retrain now" from the dashboard: ``services.retrain`` with progress written to the ``Job`` (``jobs.run``: a
    heartbeat, failure on any error or the time limit; safe to rerun, so acknowledged late).

    Its outcome lives in the ``Job`` row, so no Celery result is kept: sending it then needs only the broker, and
    with Redis down ``jobs.start`` fails at once instead of first retrying the result backend for ~20 s."""
    def work(reporter: jobs.Reporter) -> None:
        reporter.update(0.0, "Folding new reports")
        why: list[str] = []
        version = services.retrain(Job.objects.select_related("survey").get(pk=job_id).survey, progress=reporter.update,
                                   skipped=why.append)
        if version is None:
            reason = why[-1] if why else "Nothing new: the current model stands."
            reporter.done({"version": None, "reason": reason}, reason)
        else:
            reporter.done({"version": version.version},
                          f"Published version {version.version} ({version.report_count} reports).")

    jobs.run(job_id, work, "Retraining failed")


@shared_task(ignore_result=True, acks_late=True, reject_on_worker_lost=True)
def planner_job(job_id: int) -> None:
    """The planner from the dashboard (``aggregator.planning.run_job``): its result and progress live in the ``Job``."""
    planning.run_job(job_id)


@shared_task(ignore_result=True)
def reap_stale_jobs() -> int:
    """Mark failed the running jobs whose worker died (``jobs.reap_stale``); run every minute by beat."""
    return jobs.reap_stale()
