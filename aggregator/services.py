"""Folding reports into statistics and publishing model versions (the math lives in ``aggregator.privacy``).

Exactly-once folding: ``fold_new_reports`` locks the survey's ``SurveyStatistics`` row (SELECT … FOR UPDATE), reads
the reports after the watermark in id order, adds their statistics to the stored ones and advances the watermark —
all in one transaction. A worker killed (or failing) midway rolls everything back: nothing is lost or counted twice;
the row lock makes concurrent folds of one survey run one after the other. Cost is proportional to the new reports.

Report ids come from a sequence when the INSERT runs, but become visible when its transaction commits, so a report
with a smaller id could appear after the watermark has passed it (and never be folded). The fold therefore covers
ids up to a *safe bound* only (``safe_bound``; the argument is in ``aggregator.sharding``): on PostgreSQL, the
largest id read under a momentary SHARE lock on the report table, which waits for the inserts in flight to commit.
The lock is taken in a savepoint rolled back right after the lookup (PostgreSQL releases a lock taken after a
savepoint when the savepoint is rolled back), so report POSTs wait milliseconds, not for the whole fold (with a
300,000-report backlog, an INSERT waited 2.4 s when the lock lasted the fold, 15 ms with the momentary lock).
SQLite serialises writers anyway.

Shards (``aggregator.sharding``): several workers may fold disjoint id ranges of the new reports into
``PartialStatistics`` rows; ``merge_partials`` adds them to the stored statistics only in order, each starting right
after the watermark, and deletes them in the transaction that advances the watermark past them — so a partial is
merged at most once, and one left behind the watermark (its reports folded another way) is simply dropped.
``fold_new_reports`` merges the ready partials first, then folds the rest.

Validation reports (``{"validation": …}``, the validation share) are folded in the same pass into their own additive
statistics (``SurveyStatistics.validation``); ``report_count`` counts training reports, ``validation_count`` the
others. Publishing stores, with each version, its accuracy estimate where the statistics allow one (MRR: on the
validation records folded so far; LDP: validation respondents evaluate versions after they are published, so
``accuracy_by_version`` reads their counts live) and the plausibility findings of ``privacy.monitoring``.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models import Max

from aggregator.privacy import monitoring, plausibility
from aggregator.privacy.plausibility import PlausibilityStats
from aggregator.privacy.jsonable import json_safe
from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from survey_app.models import Report, Survey
from survey_app.protocol import get_protocol

from .models import ModelVersion, PartialStatistics, SurveyStatistics

logger = logging.getLogger(__name__)


def _locked_statistics(survey: Survey) -> SurveyStatistics:
    """The survey's statistics row, created if needed and locked until the transaction ends (call inside atomic)."""
    SurveyStatistics.objects.get_or_create(survey=survey)
    return SurveyStatistics.objects.select_for_update().get(survey=survey)


def safe_bound(survey: Survey, after: int) -> int | None:
    """The largest id of the survey's reports after ``after``, read when every smaller report id that will ever
    exist is visible (module docstring); ``None`` when there is none.

    On PostgreSQL the SHARE lock on the report table is taken in a savepoint and released by rolling it back as soon
    as the id is read. Nothing to wait for on SQLite, which serialises writers."""
    with transaction.atomic():
        savepoint = transaction.savepoint()
        try:
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute(f"LOCK TABLE {connection.ops.quote_name(Report._meta.db_table)} IN SHARE MODE")
            return Report.objects.filter(survey=survey, id__gt=after).aggregate(last=Max("id"))["last"]
        finally:
            transaction.savepoint_rollback(savepoint)  # releases the lock at once


@dataclass
class Folded:
    """Running additive statistics of a fold: training ``stats``, ``validation`` statistics, the last report id
    covered and how many reports of each kind were added."""

    stats: Any
    validation: Any
    last_id: int
    training: int = 0
    validating: int = 0
    plausibility: Any = None  # privacy.plausibility statistics (LDP), None for MRR

    @classmethod
    def empty(cls, protocol, last_id: int) -> "Folded":
        return cls(protocol.zero_stats(), protocol.zero_validation(), last_id,
                   plausibility=plausibility.zero_stats(protocol))

    @property
    def count(self) -> int:
        return self.training + self.validating

    @classmethod
    def of_row(cls, protocol, row) -> "Folded":
        """Start from what a ``SurveyStatistics`` row holds (zero statistics for a new row)."""
        stats = protocol.stats_from_dict(row.stats) if row.stats is not None else protocol.zero_stats()
        validation = protocol.validation_from_dict(row.validation) if row.validation is not None else protocol.zero_validation()
        return cls(stats, validation, row.watermark, plausibility=_plausibility_of_row(protocol, row))

    def add_batch(self, protocol, batch: list[tuple[int, Any]]) -> None:
        """Fold ``(id, payload)`` pairs in id order (training and validation reports apart)."""
        training, validating = protocol.split([payload for _, payload in batch])
        if training:  # parsed once, for the statistics and the per-report plausibility checks
            reports = protocol.parse(training)
            self.stats = self.stats + protocol.aggregate(reports)
            if self.plausibility is not None:
                self.plausibility = self.plausibility + plausibility.report_checks(protocol, reports)
        self.validation = self.validation + protocol.fold_validation(validating)
        self.last_id = batch[-1][0]
        self.training += len(training)
        self.validating += len(validating)

    def add_partial(self, protocol, partial: PartialStatistics) -> None:
        """Add a shard's statistics (exact: the engine's statistics are additive, fold(A) + fold(B) = fold(A ∪ B))."""
        self.stats = self.stats + protocol.stats_from_dict(partial.stats)
        self.validation = self.validation + protocol.validation_from_dict(partial.validation)
        if self.plausibility is not None and partial.plausibility is not None:
            self.plausibility = self.plausibility + PlausibilityStats.from_dict(partial.plausibility)
        self.last_id = partial.last_id
        self.training += partial.report_count
        self.validating += partial.validation_count


def _plausibility_of_row(protocol, row):
    """The row's plausibility statistics; computed once from the folded training reports for rows that predate them."""
    if row.plausibility is not None:
        return PlausibilityStats.from_dict(row.plausibility)
    if row.report_count == 0 or not protocol.checked_oracles():
        return plausibility.zero_stats(protocol)
    payloads = Report.objects.filter(survey_id=row.survey_id, id__lte=row.watermark).values_list("payload", flat=True)
    training, _ = protocol.split(list(payloads))
    return plausibility.protocol_checks(protocol, training)


def fold_reports(protocol, reports, folded: Folded, batch_size: int = 5000, progress=None, total: int = 0) -> Folded:
    """Fold the reports of the queryset ``reports`` with id > ``folded.last_id``, in id order and in batches of
    ``batch_size`` (keyset pagination), into ``folded``; ``progress(done, total)`` after each batch."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    while True:
        batch = list(reports.filter(id__gt=folded.last_id).order_by("id").values_list("id", "payload")[:batch_size])
        if not batch:
            return folded
        folded.add_batch(protocol, batch)
        if progress:
            progress(folded.count, total)


def _merge_ready_partials(protocol, survey: Survey, folded: Folded) -> None:
    """Add the partial statistics that continue ``folded`` without a gap, each starting at ``folded.last_id`` + 1
    (``_store`` then deletes them). Call under the statistics row lock."""
    for partial in PartialStatistics.objects.filter(survey=survey, first_id__gt=folded.last_id).order_by("first_id"):
        if partial.first_id != folded.last_id + 1:
            break
        folded.add_partial(protocol, partial)


def _store(row: SurveyStatistics, protocol, folded: Folded) -> None:
    """Write ``folded`` to the locked row and delete every partial at or behind the new watermark: merged ones, and
    any whose reports were folded another way (a shard that finished after the watermark passed it)."""
    PartialStatistics.objects.filter(survey_id=row.survey_id, first_id__lte=folded.last_id).delete()
    row.stats = json_safe(protocol.stats_to_dict(folded.stats))
    row.validation = json_safe(protocol.validation_to_dict(folded.validation))
    row.plausibility = json_safe(folded.plausibility.to_dict()) if folded.plausibility is not None else None
    row.watermark = folded.last_id
    row.report_count += folded.training
    row.validation_count += folded.validating
    row.save()


def fold_new_reports(survey: Survey, batch_size: int = 5000, progress=None) -> int:
    """Fold every report after the watermark into the stored statistics; returns how many were folded.

    Ready partial statistics of shards are merged first (``merge_partials``), then the reports up to the safe bound
    are folded. ``progress(done, total)``, if given, is called after each batch (``total`` counted once)."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    protocol = get_protocol(survey)
    with transaction.atomic():
        row = _locked_statistics(survey)
        folded = Folded.of_row(protocol, row)
        _merge_ready_partials(protocol, survey, folded)
        bound = safe_bound(survey, folded.last_id)
        if bound is not None:
            reports = Report.objects.filter(survey=survey, id__lte=bound)
            total = folded.count + reports.filter(id__gt=folded.last_id).count() if progress else 0
            fold_reports(protocol, reports, folded, batch_size, progress, total)
        if folded.last_id != row.watermark or row.stats is None:
            _store(row, protocol, folded)
    return folded.count


def merge_partials(survey: Survey) -> int:
    """Merge the shards' partial statistics that continue the watermark into the stored statistics, in one
    transaction under the row lock; returns how many reports they add (0 while the next shard is missing)."""
    protocol = get_protocol(survey)
    with transaction.atomic():
        row = _locked_statistics(survey)
        folded = Folded.of_row(protocol, row)
        _merge_ready_partials(protocol, survey, folded)
        if folded.last_id != row.watermark:
            _store(row, protocol, folded)
    return folded.count


def latest_version(survey: Survey) -> ModelVersion | None:
    return ModelVersion.objects.filter(survey=survey).order_by("-version").first()


def publish_model(survey: Survey) -> ModelVersion | None:
    """Estimate a model from the stored statistics and store it as the next version.

    ``None`` (nothing published) when no report is folded yet, nothing changed since the latest version, or the
    reports do not yet allow an estimate (e.g. an input of a one-report survey has no report yet: the engine raises
    ``ValueError``); the periodic task then simply tries again later."""
    protocol = get_protocol(survey)
    with transaction.atomic():
        row = _locked_statistics(survey)  # the lock also serialises concurrent publishes
        if row.report_count == 0 or row.stats is None:
            return None
        latest = latest_version(survey)
        # Accuracy computed at publication (MRR) is on the validation records folded so far, so new validation records
        # make a new version; accuracy read live per version (LDP, ``accuracy_by_version``): only training counts.
        unchanged_validation = (not protocol.accuracy_at_publication or latest is None
                                or latest.metrics.get("validation_count", 0) == row.validation_count)
        if latest is not None and latest.report_count == row.report_count and unchanged_validation:
            return None
        try:
            model = protocol.estimate(protocol.stats_from_dict(row.stats))
        except ValueError as exc:
            logger.info("survey %s: no model yet (%s)", survey.slug, exc)
            return None
        version = (latest.version if latest else 0) + 1
        checks = PlausibilityStats.from_dict(row.plausibility) if row.plausibility is not None else None
        metrics = {"validation_count": row.validation_count, "out_of_range": monitoring.out_of_range(model),
                   "plausibility": plausibility.findings(protocol, checks),
                   "jumps": monitoring.jumps(NaiveBayesModel.from_dict(latest.model), model) if latest else []}
        if protocol.accuracy_at_publication and row.validation is not None:
            accuracy = protocol.accuracy(model, protocol.validation_from_dict(row.validation), version)
            if accuracy is not None:
                metrics["accuracy"] = accuracy.to_dict()
        return ModelVersion.objects.create(
            survey=survey,
            version=version,
            model=json_safe(model.to_dict()),
            report_count=row.report_count,
            privacy=json_safe(protocol.model_privacy(model)),
            metrics=json_safe(metrics),
        )


def accuracy_by_version(survey: Survey) -> dict[int, dict]:
    """{version: accuracy estimate dict} for every version that has one: stored at publication
    (``protocol.accuracy_at_publication``: MRR), or computed now from the validation counts of the respondents who
    evaluated that version (LDP)."""
    versions = list(ModelVersion.objects.filter(survey=survey).order_by("version"))
    protocol = get_protocol(survey)
    if protocol.accuracy_at_publication:
        return {v.version: v.metrics["accuracy"] for v in versions if v.metrics.get("accuracy")}
    row = SurveyStatistics.objects.filter(survey=survey).first()
    if row is None or not row.validation:
        return {}
    validation = protocol.validation_from_dict(row.validation)
    out = {}
    for v in versions:
        accuracy = protocol.accuracy(None, validation, v.version)
        if accuracy is not None:
            out[v.version] = accuracy.to_dict()
    return out


def latest_accuracy(survey: Survey) -> tuple[int, dict] | None:
    """(version, accuracy dict) of the newest version with an accuracy estimate, or ``None``."""
    by_version = accuracy_by_version(survey)
    if not by_version:
        return None
    version = max(by_version)
    return version, by_version[version]


def retrain(survey: Survey, progress=None) -> ModelVersion | None:
    """Fold the new reports, then publish a version if anything changed.

    ``progress(fraction, message)``, if given, hears about the fold (90 % of the work) and the estimate."""
    fold = (lambda done, total: progress(0.9 * done / max(total, 1), f"Folded {done} of {total} new reports")) if progress else None
    fold_new_reports(survey, progress=fold)
    if progress:
        progress(0.9, "Estimating the model")
    return publish_model(survey)
