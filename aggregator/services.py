"""Folding reports into statistics and publishing model versions (the math lives in ``aggregator.privacy``).

Exactly-once folding: ``fold_new_reports`` locks the survey's ``SurveyStatistics`` row (SELECT … FOR UPDATE), reads
the reports after the watermark in id order, adds their statistics to the stored ones and advances the watermark —
all in one transaction. A worker killed (or failing) midway rolls everything back: nothing is lost or counted twice;
the row lock makes concurrent folds of one survey run one after the other. Cost is proportional to the new reports.

Report ids come from a sequence when the INSERT runs, but become visible when its transaction commits, so a report
with a smaller id could appear after the watermark has passed it (and never be folded). On PostgreSQL the fold first
takes a SHARE lock on the report table: it waits for in-flight inserts to commit and holds new ones back until the
fold commits, so every id up to the largest one read is visible (report POSTs wait for the fold, typically < 1 s).
SQLite serialises writers anyway.
"""
from __future__ import annotations

import logging

from django.db import connection, transaction

from aggregator.privacy.jsonable import json_safe
from survey_app.models import Report, Survey
from survey_app.protocol import get_protocol

from .models import ModelVersion, SurveyStatistics

logger = logging.getLogger(__name__)


def _locked_statistics(survey: Survey) -> SurveyStatistics:
    """The survey's statistics row, created if needed and locked until the transaction ends (call inside atomic)."""
    SurveyStatistics.objects.get_or_create(survey=survey)
    return SurveyStatistics.objects.select_for_update().get(survey=survey)


def fold_new_reports(survey: Survey, batch_size: int = 5000) -> int:
    """Fold every report after the watermark into the stored statistics; returns how many were folded."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    protocol = get_protocol(survey)
    with transaction.atomic():
        row = _locked_statistics(survey)
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {connection.ops.quote_name(Report._meta.db_table)} IN SHARE MODE")
        stats = protocol.stats_from_dict(row.stats) if row.stats is not None else protocol.zero_stats()
        watermark, folded = row.watermark, 0
        while True:
            batch = list(
                Report.objects.filter(survey=survey, id__gt=watermark).order_by("id")
                .values_list("id", "payload")[:batch_size]
            )
            if not batch:
                break
            stats = stats + protocol.fold([payload for _, payload in batch])
            watermark = batch[-1][0]
            folded += len(batch)
        if folded or row.stats is None:
            row.stats = json_safe(protocol.stats_to_dict(stats))
            row.watermark = watermark
            row.report_count += folded
            row.save()
    return folded


def latest_version(survey: Survey) -> ModelVersion | None:
    return ModelVersion.objects.filter(survey=survey).order_by("-version").first()


def publish_model(survey: Survey) -> ModelVersion | None:
    """Estimate a model from the stored statistics and store it as the next version.

    ``None`` (nothing published) when no report is folded yet, the report count equals the latest version's, or the
    reports do not yet allow an estimate (e.g. an input of a one-report survey has no report yet: the engine raises
    ``ValueError``); the periodic task then simply tries again later."""
    protocol = get_protocol(survey)
    with transaction.atomic():
        row = _locked_statistics(survey)  # the lock also serialises concurrent publishes
        if row.report_count == 0 or row.stats is None:
            return None
        latest = latest_version(survey)
        if latest is not None and latest.report_count == row.report_count:
            return None
        try:
            model = protocol.estimate(protocol.stats_from_dict(row.stats))
        except ValueError as exc:
            logger.info("survey %s: no model yet (%s)", survey.slug, exc)
            return None
        return ModelVersion.objects.create(
            survey=survey,
            version=(latest.version if latest else 0) + 1,
            model=json_safe(model.to_dict()),
            report_count=row.report_count,
            privacy=json_safe(protocol.privacy()),
        )


def retrain(survey: Survey) -> ModelVersion | None:
    """Fold the new reports, then publish a version if anything changed."""
    fold_new_reports(survey)
    return publish_model(survey)
