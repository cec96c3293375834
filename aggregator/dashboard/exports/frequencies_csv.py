"""The frequency tables as CSV text (``frequencies_csv``)."""
from __future__ import annotations

import csv
import io
from typing import Iterable, Mapping

from .frequencies import FREQUENCY_COLUMNS, spreadsheet_safe


def _csv_cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)  # every digit: the CSV holds the model's numbers exactly
    return spreadsheet_safe(str(value))


def frequencies_csv(rows: Iterable[Mapping]) -> str:
    """``frequency_rows`` as CSV text: a header (``FREQUENCY_COLUMNS``), then one line per parameter; numbers in
    full precision, empty cells where there is no value, text made formula-safe (``spreadsheet_safe``)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(FREQUENCY_COLUMNS)
    for row in rows:
        writer.writerow([_csv_cell(row[key]) for key in FREQUENCY_COLUMNS])
    return buffer.getvalue()
