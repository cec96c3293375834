"""The frequency tables as an Excel workbook with a summary sheet (``frequencies_xlsx``, ``frequency_summary``)."""
from __future__ import annotations

import io
import re
from typing import Any, Iterable, Mapping, Sequence

from .frequencies import FREQUENCY_COLUMNS, spreadsheet_safe

#: Excel sheet names: at most 31 characters, none of these, not "History", unique ignoring case.
_SHEET_FORBIDDEN = re.compile(r"[\[\]:*?/\\\000-\037]")
_SHEET_MAX = 31


def sheet_title(name: str, used: set[str]) -> str:
    base = _SHEET_FORBIDDEN.sub("_", name).strip().strip("'")[:_SHEET_MAX] or "Question"
    title, n = base, 1
    while title.casefold() in used:
        n += 1
        suffix = f" ({n})"
        title = base[:_SHEET_MAX - len(suffix)] + suffix
    used.add(title.casefold())
    return title


def frequencies_xlsx(rows: Iterable[Mapping], summary: Sequence[tuple[str, Any]]) -> bytes:
    """An .xlsx workbook: a "Summary" sheet (``summary``'s (label, value) pairs, one a row), then one sheet per
    question — the class question (P(c)) first, then the model attributes in order — with the ``FREQUENCY_COLUMNS``
    header and that question's rows of ``frequency_rows``: the very cells of the CSV, numbers as numbers."""
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Summary"
    for label, value in summary:
        sheet.append([spreadsheet_safe(label), spreadsheet_safe(value)])
    sheet.column_dimensions["A"].width = 28
    sheet.column_dimensions["B"].width = 90
    used = {"summary", "history"}
    by_question: dict[str, list] = {}
    for row in rows:
        by_question.setdefault(row["question"], []).append(row)
    for question, question_rows in by_question.items():
        sheet = workbook.create_sheet(sheet_title(question, used))
        sheet.append(list(FREQUENCY_COLUMNS))
        for row in question_rows:
            sheet.append([spreadsheet_safe(row[key]) for key in FREQUENCY_COLUMNS])
        sheet.freeze_panes = "A2"
        for column, width in zip("ABCDEFGH", (16, 36, 10, 18, 14, 22, 22, 12), strict=True):
            sheet.column_dimensions[column].width = width
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def frequency_summary(card: dict) -> list[tuple[str, Any]]:
    """The workbook's "Summary" sheet from a ``model_card``: what the model is, its privacy and accuracy, and how to
    read the other sheets."""
    out: list[tuple[str, Any]] = [("Coinflip model version", f"{card['survey_title']} ({card['slug']}), "
                                                             f"version {card['version']}")]
    out += card["data"]
    out.append(("Mechanism", f"{card['mechanism']['name']} — "
                             + ", ".join(f"{k} = {v}" for k, v in card["mechanism"]["settings"])))
    out += [("ε per respondent", card["privacy"]["epsilon"])]
    if card["privacy"]["pse"]:
        out.append(("PSE before / after mining", card["privacy"]["pse"]))
    out.append(("Accuracy", card["accuracy"]["text"] if card["accuracy"] else card["accuracy_missing"]))
    out.append(("Warnings", str(len(card["warnings"]))))
    out.append(("Standard errors", card["interval_sentence"]))
    out.append(("Columns", "question, question_text: the question; parameter: P(c) (class prior), P(a | c) (share of "
                           "answer a among people of class c), or mean / sd (Gaussian models, in the question's "
                           "units); answer, class; estimate: the value the model uses; standard_error and "
                           "standard_error_kind: delta (delta method), bound (a conservative upper bound), raw (SE "
                           "of the unbiased estimate before post-processing); empty: none."))
    return out
