"""Shared helpers of the bad-input tests: what a request could have written, to compare before and after."""
from __future__ import annotations

from django.apps import apps

from aggregator.models import ModelVersion
from survey_app.models import InvitationToken


def report_models() -> list:
    """The models a report POST may write: the inbox ``PendingReport`` (issue 11) where it exists, and ``Report``."""
    return [apps.get_model("survey_app", name) for name in ("PendingReport", "Report")
            if name.lower() in apps.get_app_config("survey_app").models]


def stored_reports() -> int:
    """Report rows in every table a report POST may write (``report_models``)."""
    return sum(model.objects.count() for model in report_models())


def stored_state() -> tuple:
    """Everything a report, redemption or predict request could write: the number of stored reports (first: tests
    read it), the ids of used invitation tokens, spent credentials and published model versions."""
    used = tuple(InvitationToken.objects.filter(used=True).order_by("id").values_list("id", flat=True))
    spent = (apps.get_model("survey_app", "SpentCredential").objects.count()
             if "spentcredential" in apps.get_app_config("survey_app").models else 0)
    return stored_reports(), used, spent, ModelVersion.objects.count()
