"""What the aggregator keeps per survey: the folded statistics and the published model versions.

* ``SurveyStatistics`` — one row per survey: the engine's additive statistics over every report with
  ``id <= watermark`` (JSON, ``protocol.stats_to_dict``), and how many reports that is. Only
  ``aggregator.services.fold_new_reports`` writes it, under a row lock, in the same transaction that reads the
  reports, so each report is counted exactly once.
* ``ModelVersion`` — an immutable, numbered Naive Bayes model (``NaiveBayesModel.to_dict()``) estimated from the
  statistics alone, with the privacy figures (ε, PSE) of the protocol that produced its reports.
"""
from __future__ import annotations

from django.db import models

from survey_app.models import Survey


class SurveyStatistics(models.Model):
    survey = models.OneToOneField(Survey, related_name="statistics", on_delete=models.CASCADE)
    stats = models.JSONField(null=True, blank=True, help_text="Additive statistics of the folded reports (engine format).")
    watermark = models.BigIntegerField(default=0, help_text="Id of the last folded report: every report with id ≤ it is folded.")
    report_count = models.PositiveBigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "survey statistics"

    def __str__(self) -> str:
        return f"statistics of {self.survey_id}: {self.report_count} reports up to id {self.watermark}"


class ImmutableError(RuntimeError):
    pass


class ModelVersion(models.Model):
    survey = models.ForeignKey(Survey, related_name="model_versions", on_delete=models.CASCADE)
    version = models.PositiveIntegerField()
    model = models.JSONField(help_text="NaiveBayesModel.to_dict()")
    report_count = models.PositiveBigIntegerField()
    privacy = models.JSONField(help_text="The protocol's ε per question / per respondent (and PSE for MRR).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["survey", "-version"]
        constraints = [models.UniqueConstraint(fields=["survey", "version"], name="unique_model_version_per_survey")]

    def __str__(self) -> str:
        return f"{self.survey_id} v{self.version} ({self.report_count} reports)"

    def save(self, *args, **kwargs):
        """Insert only: a published version never changes."""
        if not self._state.adding:
            raise ImmutableError("a published model version cannot be changed; publish a new version instead")
        super().save(*args, **kwargs)
