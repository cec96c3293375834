"""Shared helpers of the bad-input tests: what a request could have written, to compare before and after."""
from __future__ import annotations

from aggregator.models import ModelVersion
from survey_app.models import InvitationToken, Report


def stored_state() -> tuple:
    """Everything a report or predict request could write: the reports (count and newest id), the ids of used
    invitation tokens, and the number of published model versions."""
    newest = Report.objects.order_by("-id").values_list("id", flat=True).first()
    used = tuple(InvitationToken.objects.filter(used=True).order_by("id").values_list("id", flat=True))
    return Report.objects.count(), newest, used, ModelVersion.objects.count()
