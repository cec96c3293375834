"""What survey_app may read of the aggregator's tables: the published model versions (survey_app never queries
``aggregator.models`` itself; tests/test_architecture.py holds the contract).

Validation respondents evaluate the newest version published before the current UTC day began
(``validation_version_number``), so the version a validation report names tells no more than its day.
"""
from __future__ import annotations

import datetime

from .models import ModelVersion


def _before(survey_id: int, midnight: datetime.datetime):
    return ModelVersion.objects.filter(survey_id=survey_id, created_at__lt=midnight).order_by("-version")


def validation_version_number(survey, midnight: datetime.datetime) -> int | None:
    """The number of the newest version of ``survey`` published before ``midnight`` (``None`` if none)."""
    return _before(survey.pk, midnight).values_list("version", flat=True).first()


def validation_version_metrics(survey, midnight: datetime.datetime) -> dict | None:
    """The stored metrics of that version (``validation_version_number``), or ``None`` if there is none."""
    return _before(survey.pk, midnight).values_list("metrics", flat=True).first()


def version_exists(survey, version: int) -> bool:
    """Whether ``survey`` has published version number ``version``."""
    return ModelVersion.objects.filter(survey_id=survey.pk, version=version).exists()
