"""Reading a designer's CSV upload into a table of text cells, every refusal one sentence in the page's language.

The bytes are decoded as UTF-8 (a byte order mark allowed; UTF-16 with its mark), else as Windows-1252, what
spreadsheets on Windows save as "CSV"; the delimiter (comma, semicolon, tab) is sniffed from the first lines; cells
and column names are stripped of surrounding spaces, and an empty cell is missing. Nothing is guessed: an empty or
duplicated column name, a row with another number of cells than the header, and a column that names rows rather than
answers them (``identifier_column``) are refused, naming the column or row.
"""
from __future__ import annotations

import csv
import io

import pandas as pd
from django.utils.translation import gettext

__all__ = ["DELIMITERS", "MAX_CHOICES", "decode", "identifier_column", "read_upload"]

#: The delimiters tried, in the order preferred when the first lines allow several.
DELIMITERS = ",;\t"
#: A text column with more distinct answers than this is no multiple-choice question.
MAX_CHOICES = 100
#: Below this many rows a column of distinct values may well be answers (a small pilot).
IDENTIFIER_MIN_ROWS = 20
#: How much of the text the delimiter is sniffed from.
SNIFF_CHARACTERS = 64 * 1024


def _raw(source) -> bytes:
    """The bytes of a path or of an (uploaded) file object."""
    if hasattr(source, "read"):
        if hasattr(source, "seek"):
            source.seek(0)
        data = source.read()
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)
    with open(source, "rb") as handle:
        return handle.read()


def decode(raw: bytes) -> str:
    """The text of a CSV file: UTF-8 (with or without a byte order mark), UTF-16 with its mark, else Windows-1252;
    ``ValueError`` for a file that is no text (a spreadsheet, an archive)."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16")
    if b"\x00" in raw[:SNIFF_CHARACTERS] or raw.startswith(b"PK\x03\x04"):
        raise ValueError(gettext("This file is not a CSV text file (a spreadsheet or another binary file?): in your "
                                 "spreadsheet, save it as “CSV UTF-8” and upload that file."))
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return raw.decode("cp1252")
    except UnicodeDecodeError:
        raise ValueError(gettext("This file's text is neither UTF-8 nor Windows-1252: save it as “CSV UTF-8” and "
                                 "upload it again.")) from None


def _dialect(text: str) -> type[csv.Dialect] | csv.Dialect:
    """The sniffed dialect of ``text`` among ``DELIMITERS`` (``csv.Sniffer``); plain commas when nothing fits."""
    sample = text[:SNIFF_CHARACTERS]
    if len(text) > SNIFF_CHARACTERS:
        sample = sample.rpartition("\n")[0] or sample  # whole lines only
    try:
        return csv.Sniffer().sniff(sample, delimiters=DELIMITERS)
    except csv.Error:
        return csv.excel


def _rows(text: str) -> list[tuple[int, list[str]]]:
    """The non-blank rows of ``text``, each (its line in the file, its stripped cells); ``ValueError`` on broken
    quoting."""
    reader = csv.reader(io.StringIO(text, newline=""), _dialect(text))
    rows = []
    try:
        for row in reader:
            cells = [cell.strip() for cell in row]
            if any(cells):
                rows.append((reader.line_num, cells))
    except csv.Error:
        raise ValueError(gettext("The quoting of line %(line)d is broken: a cell with a delimiter or a line break in "
                                 "it must be in double quotes.") % {"line": reader.line_num}) from None
    return rows


def _check_header(header: list[str]) -> None:
    if len(header) < 2:
        raise ValueError(gettext(
            "Only one column was found, headed “%(header)s”: a table needs a column per question, separated by "
            "commas, semicolons or tabs, with the class column last.") % {"header": header[0] if header else ""})
    for position, name in enumerate(header, start=1):
        if not name:
            raise ValueError(gettext("Column %(position)d has no name in the header row: name every column (its name "
                                     "becomes the question's name).") % {"position": position})
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise ValueError(gettext("Two columns are named “%(name)s”: each column needs its own name (its name "
                                     "becomes the question's name).") % {"name": name})
        seen.add(name)


def identifier_column(frame: pd.DataFrame, class_column: str) -> tuple[str, int] | None:
    """The first column (other than the class) that names its rows rather than answering a question, with its
    number of distinct values, or ``None``: a text column with more than ``MAX_CHOICES`` distinct values or a
    distinct value in every row, or a column of distinct whole numbers in increasing order (a row number), once the
    table has ``IDENTIFIER_MIN_ROWS`` rows. Distinct measurements (not whole, or not in order) stay a number question.
    """
    n = frame.shape[0]
    for name in frame.columns:
        if name == class_column:
            continue
        values = frame[name].dropna()
        distinct = int(values.nunique())
        numbers = pd.to_numeric(values, errors="coerce")
        if numbers.isna().any():  # text
            if distinct > MAX_CHOICES or (n >= IDENTIFIER_MIN_ROWS and distinct == n):
                return str(name), distinct
        elif n >= IDENTIFIER_MIN_ROWS and distinct == n == len(values) \
                and bool((numbers == numbers.round()).all()) and bool(numbers.is_monotonic_increasing):
            return str(name), distinct
    return None


def read_upload(source, *, class_column: str | None = None) -> pd.DataFrame:
    """The table of a CSV upload (a path or a file object) as text cells, ``NaN`` for an empty one, checked as the
    module docstring says; ``ValueError`` with one sentence in the page's language otherwise.

    Parameters
    ----------
    source : path or file object
        The CSV file.
    class_column : str, optional
        The class column's name (default: the last column).
    """
    raw = _raw(source)
    if not raw.strip():
        raise ValueError(gettext("The file is empty."))
    rows = _rows(decode(raw))
    if not rows:
        raise ValueError(gettext("The file is empty."))
    header, body = rows[0][1], rows[1:]
    _check_header(header)
    if not body:
        raise ValueError(gettext("The table has a header row but no rows of answers."))
    for number, row in body:
        if len(row) != len(header):
            raise ValueError(gettext(
                "Row %(row)d has %(cells)d cells where the header has %(columns)d: check that the row uses the "
                "same delimiter, and that a cell containing the delimiter is in double quotes.")
                % {"row": number, "cells": len(row), "columns": len(header)})
    frame = pd.DataFrame([row for _, row in body], columns=header, dtype=object)
    frame = frame.mask(frame == "")  # an empty cell is missing, as ``survey_app.tables.read_csv`` reads it
    target = class_column or header[-1]
    if target not in header:
        raise ValueError(gettext("There is no column named “%(column)s”; the columns are %(columns)s.")
                         % {"column": target, "columns": ", ".join(header)})
    if frame[target].isna().any():
        raise ValueError(gettext("The class column “%(column)s” has empty cells: every row needs its class.")
                         % {"column": target})
    found = identifier_column(frame, target)
    if found is not None:
        name, count = found
        raise ValueError(gettext(
            "The column “%(column)s” has %(count)d different values, like an identifier: as a question it would "
            "offer as many answers. Leave the column out of the file.") % {"column": name, "count": count})
    return frame
