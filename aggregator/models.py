"""What the aggregator keeps per survey: the folded statistics and the published model versions.

* ``SurveyStatistics`` — one row per survey: the engine's additive statistics over every folded report — exactly the
  survey's ``survey_app.models.Report`` rows (JSON, ``protocol.stats_to_dict``), and how many reports that is. Only
  ``aggregator.services`` writes it (``fold_new_reports``, ``merge_partials``), under a row lock, in the same
  transaction that deletes the folded reports from the inbox (``PendingReport``) and moves them into ``Report``, so
  each report is counted exactly once.
* ``PartialStatistics`` — the statistics of one shard: a set of inbox rows (their ids), folded by one worker in its
  own transaction and merged into ``SurveyStatistics`` by the drain that moves exactly those rows
  (``aggregator.sharding``, ``services.merge_partials``). Nothing in it orders reports: no id range, no time.
* ``ModelVersion`` — an immutable, numbered Naive Bayes model (``NaiveBayesModel.to_dict()``) estimated from the
  statistics alone, with the privacy figures (ε, PSE) of the protocol that produced its reports.
"""
from __future__ import annotations

from django.db import models

from survey_app.models import Survey


class SurveyStatistics(models.Model):
    """The survey's folded statistics, by day (``aggregator.services``): the *closed* days' sums (``stats``,
    ``validation``, ``plausibility``, the counts: every report of a day up to ``closed_through``) — the only
    statistics a model version is estimated from — and the *open* days' sums (``open_days``), which a fold adds to
    and which join the closed sums once their UTC day has ended (``services.close_days``). So every published figure
    changes at most once a day, by whole days (docs/threat-model.md, "Model history")."""

    survey = models.OneToOneField(Survey, related_name="statistics", on_delete=models.CASCADE)
    stats = models.JSONField(null=True, blank=True,
                             help_text="Additive statistics of the closed days' reports (engine format).")
    validation = models.JSONField(
        null=True, blank=True,
        help_text="Additive statistics of the folded validation reports (engine format: per-version counts for LDP, "
                  "a record histogram for MRR).",
    )
    validation_count = models.PositiveBigIntegerField(default=0)
    plausibility = models.JSONField(
        null=True, blank=True,
        help_text="Additive per-report statistics of the training reports for the plausibility checks "
                  "(privacy.plausibility; LDP only).",
    )
    report_count = models.PositiveBigIntegerField(default=0)
    closed_through = models.DateField(
        null=True, blank=True,
        help_text="The last closed day (UTC): the closed sums hold every report of that day and before.")
    open_days = models.JSONField(
        default=dict, blank=True,
        help_text="{ISO day: {stats, validation, plausibility, report_count, validation_count}} of the days after "
                  "closed_through whose reports were folded: not yet in any model.")

    class Meta:
        verbose_name_plural = "survey statistics"

    def __str__(self) -> str:
        return (f"statistics of {self.survey_id}: {self.report_count} training, "
                f"{self.validation_count} validation reports")

    @property
    def open_report_count(self) -> int:
        """Training reports folded on days not yet closed."""
        return sum(day["report_count"] for day in self.open_days.values())

    @property
    def open_validation_count(self) -> int:
        return sum(day["validation_count"] for day in self.open_days.values())


class PartialStatistics(models.Model):
    """The additive statistics of one shard: the inbox rows (``PendingReport``) whose ids ``pending`` lists.

    Written once, in the shard's own transaction, by ``aggregator.sharding.fold_shard``; consumed (and deleted) by the
    next drain (``aggregator.services.merge_partials`` / ``fold_new_reports``), which adds it only if every row it
    covers is still in the inbox and no other partial of that drain took one of them, and then moves exactly those
    rows into ``Report`` — otherwise (its rows were folded another way) it is dropped. The ids are the inbox's random
    keys, gone with the rows: nothing here orders reports (no id range, no creation time)."""

    survey = models.ForeignKey(Survey, related_name="partial_statistics", on_delete=models.CASCADE)
    pending = models.JSONField(help_text="Ids of the inbox rows (PendingReport) it covers, as strings.")
    stats = models.JSONField(help_text="Additive statistics of the shard's training reports (engine format).")
    validation = models.JSONField(help_text="Additive statistics of the shard's validation reports (engine format).")
    plausibility = models.JSONField(null=True, blank=True, help_text="The shard's plausibility statistics (LDP only).")
    report_count = models.PositiveBigIntegerField(default=0)
    validation_count = models.PositiveBigIntegerField(default=0)
    day = models.DateField(null=True, help_text="The day (UTC) its reports were received: one day per partial.")
    worker = models.CharField(max_length=200, blank=True, help_text="Host name of the Celery worker that folded it.")

    class Meta:
        verbose_name_plural = "partial statistics"

    def __str__(self) -> str:
        return (f"partial statistics of {self.survey_id}: {self.report_count} training, "
                f"{self.validation_count} validation reports")


class ImmutableError(RuntimeError):
    pass


class ModelVersion(models.Model):
    survey = models.ForeignKey(Survey, related_name="model_versions", on_delete=models.CASCADE)
    version = models.PositiveIntegerField()
    model = models.JSONField(help_text="NaiveBayesModel.to_dict()")
    report_count = models.PositiveBigIntegerField()
    through_day = models.DateField(
        null=True, blank=True,
        help_text="The last day (UTC) whose reports it includes: every report received up to the end of that day.")
    privacy = models.JSONField(help_text="The protocol's ε per question / per respondent (and PSE for MRR).")
    metrics = models.JSONField(
        default=dict, blank=True,
        help_text="Accuracy estimate (MRR: on the validation records folded at publication), raw estimates outside "
                  "[0, 1] and jumps from the previous version.",
    )
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


class Job(models.Model):
    """A long task started from the web (retrain now, the planner): its state and progress, polled by the page.

    Workers write it (``aggregator.jobs``); the page reads ``/dashboard/jobs/<id>/`` until ``state`` is final."""

    class Kind(models.TextChoices):
        RETRAIN = "retrain", "Retrain"
        PLANNER = "planner", "Planner"

    class State(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=12, choices=Kind.choices)
    survey = models.ForeignKey(Survey, null=True, blank=True, related_name="jobs", on_delete=models.CASCADE)
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    progress = models.FloatField(default=0.0, help_text="Fraction done, 0 to 1.")
    message = models.CharField(max_length=300, blank=True)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey("auth.User", null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind} job {self.pk} ({self.state}, {self.progress:.0%})"

    @property
    def finished(self) -> bool:
        return self.state in (self.State.DONE, self.State.FAILED)

    def as_dict(self) -> dict:
        return {"id": self.pk, "kind": self.kind, "state": self.state, "progress": self.progress,
                "message": self.message, "result": self.result, "finished": self.finished}
