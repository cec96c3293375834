"""Every stored report of a survey as streamed CSV (``report_rows``).

**Reports CSV** (``report_rows``): one row per stored report — ``id``, ``received_on`` (the coarse date),
``kind`` (``training`` or ``validation``) and ``payload`` (the randomized report as JSON, exactly as the browser sent
it). That is all a report holds: no respondent identifier, token, IP address, user agent or precise time is ever
stored (``survey_app.models.Report``), so none can be exported.
"""
from __future__ import annotations

import csv
import json
from datetime import date
from typing import Any, Iterable, Iterator
from uuid import UUID

from aggregator.privacy.protocol import SurveyProtocol

CSV_COLUMNS = ("id", "received_on", "kind", "payload")


class _Echo:
    """A file-like object whose ``write`` returns the line: ``csv.writer`` then yields rows for streaming."""

    def write(self, value: str) -> str:
        return value


def report_kind(payload: Any) -> str:
    """``"validation"`` for a validation-share report (``{"validation": …}``), else ``"training"``."""
    return "validation" if SurveyProtocol.is_validation(payload) else "training"


def report_rows(reports: Iterable[tuple[UUID, date, Any]]) -> Iterator[str]:
    """CSV lines (header first) for ``(id, received_on, payload)`` tuples, one report each, as they come."""
    writer = csv.writer(_Echo())
    yield writer.writerow(CSV_COLUMNS)
    for pk, received_on, payload in reports:
        yield writer.writerow([pk, received_on.isoformat(), report_kind(payload),
                               json.dumps(payload, separators=(",", ":"), ensure_ascii=False)])
