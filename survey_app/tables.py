"""Loading tables (CSV) into the engine's schema: attributes, integer codes and numeric values.

CSV files are read as ``data/datasets/README.md`` prescribes — every cell as text, only the empty field missing
(pandas' default NA list would turn real labels such as ``None`` into NaN). A column is numeric when it is named
in ``numeric`` or, by default, when every non-missing value parses as a number and it has more than
``NUMERIC_MIN_DISTINCT`` distinct numeric values ("1" and "1.0" count once; "inf" does not parse as a finite number,
so such a column stays categorical). A numeric attribute's public bounds are the observed minimum and maximum (a
constant column gets [x, x + 1], since bounds need low < high). Missing values (``missing=``): "category" (default)
makes them the extra category ``MISSING`` ("?") of a categorical attribute (a numeric column with missing values is an
error); "drop" removes every row with a missing value; "error" raises ``ValueError``.

The product's import (``survey_app.services``) and the lab (``aggregator.lab.datasets``) read tables here.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from aggregator.privacy.schema import Attribute, Categorical, Numeric

__all__ = ["Table", "load_table", "option_name", "parse_ordered", "read_csv", "MULTI_SEPARATOR", "MISSING",
           "MISSING_POLICIES"]

MISSING = "?"
#: Separates the choices that apply in a cell of a select-all column ("bruises;crowded gills"; empty: none applies).
MULTI_SEPARATOR = ";"
MISSING_POLICIES = ("category", "drop", "error")
NUMERIC_MIN_DISTINCT = 10


@dataclass(frozen=True, eq=False)
class Table:
    """A data set in engine form: ``X`` (n, m) floats (codes for categorical columns), ``y`` class codes."""

    class_attribute: Categorical
    attributes: tuple[Attribute, ...]
    X: np.ndarray
    y: np.ndarray
    columns: tuple[str, ...] = field(default=())
    #: Select-all columns, (column, its choices in order): each choice is the no/yes attribute ``option_name``.
    multi: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())
    #: Ordered columns (an ordered scale): their values are in the order given, not sorted.
    ordered: tuple[str, ...] = field(default=())

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    @property
    def numeric_indices(self) -> list[int]:
        return [i for i, a in enumerate(self.attributes) if isinstance(a, Numeric)]

    def subset(self, rows) -> "Table":
        return replace(self, X=self.X[rows], y=self.y[rows])

    def majority_accuracy(self) -> float:
        return float(np.bincount(self.y, minlength=self.class_attribute.size).max() / max(self.n, 1))


def option_name(column: str, index: int) -> str:
    """The no/yes attribute of choice ``index`` (from 0) of select-all column ``column``: the name a survey gives the
    feature (``survey_app.models.option_feature``)."""
    return f"{column}__{index}"


def _multi_columns(df: pd.DataFrame, multi, class_column: str, separator: str) -> dict[str, tuple[str, ...]]:
    """{column: its choices in order} of the select-all columns ``multi``: a list of columns (choices: those that
    occur, sorted) or a mapping to their choices (in that order; any other choice in a cell is an error)."""
    if multi is None:
        return {}
    given = dict(multi) if isinstance(multi, Mapping) else {c: None for c in ([multi] if isinstance(multi, str)
                                                                              else multi)}
    out = {}
    for column, options in given.items():
        if column not in df.columns:
            raise ValueError(f"select-all column {column!r} is not in the table")
        if column == class_column:
            raise ValueError(f"the class column {column!r} cannot be a select-all column")
        cells = [[part.strip() for part in str(v).split(separator) if part.strip()] for v in df[column].dropna()]
        seen = sorted({part for parts in cells for part in parts}, key=_sort_key)
        if options is None:
            options = seen
        unknown = sorted(set(seen) - set(options))
        if unknown:
            raise ValueError(f"select-all column {column!r} holds {', '.join(map(repr, unknown))}, not among its "
                             f"choices {', '.join(options)}")
        if len(options) < 2:
            raise ValueError(f"select-all column {column!r} needs at least 2 choices")
        out[column] = tuple(options)
    return out


def parse_ordered(items: Sequence[str] | None) -> dict[str, list[str]]:
    """Ordered columns as a command line gives them, ``COLUMN=first,second,…`` each, as ``load_table``'s ``ordered``."""
    out = {}
    for item in items or ():
        column, sep, values = item.partition("=")
        order = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not column or len(order) < 2:
            raise ValueError(f"an ordered column is COLUMN=first,second,… with 2 values or more, not {item!r}")
        out[column] = order
    return out


def read_csv(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])


def _is_numeric(col: pd.Series) -> bool:
    values = col.dropna()
    if values.empty:
        return False
    parsed = pd.to_numeric(values, errors="coerce")
    # Finite numbers only; distinct *numbers*: "1" and "1.0" are one value.
    return bool(np.isfinite(parsed.to_numpy(dtype=np.float64)).all()) and parsed.nunique() > NUMERIC_MIN_DISTINCT


def _sort_key(label: str):
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)


def load_table(
    path_or_frame,
    *,
    class_column: str | None = None,
    numeric: Sequence[str] | None = None,
    missing: str = "category",
    multi: Mapping[str, Sequence[str] | None] | Sequence[str] | None = None,
    ordered: Mapping[str, Sequence[str]] | None = None,
    separator: str = MULTI_SEPARATOR,
) -> Table:
    """Read a CSV (or take a DataFrame of strings) into a ``Table``; the class is the last column by default.

    Categorical labels are sorted (numerically when they parse as numbers), ``MISSING`` last when present; the class
    values are the labels that occur. Numeric attributes get the observed minimum and maximum as bounds.

    Question types: a column of ``multi`` is "select all that apply" — a cell lists the choices that
    apply, separated by ``separator`` (";"), an empty cell none — and becomes one no/yes attribute per choice,
    ``option_name(column, i)``, as a survey's select-all question becomes one no/yes feature per choice. A column of
    ``ordered`` (an ordered scale) keeps the values in the order given ({column: values}); a value outside it is an
    error, a missing one is ``MISSING`` as usual.
    """
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing must be one of {', '.join(MISSING_POLICIES)}, got {missing!r}")
    df = path_or_frame if isinstance(path_or_frame, pd.DataFrame) else read_csv(path_or_frame)
    if df.shape[0] == 0:
        raise ValueError("the table has no rows")
    if df.shape[1] < 2:
        raise ValueError("a table needs at least one attribute column and a class column")
    class_column = class_column or df.columns[-1]
    if class_column not in df.columns:
        raise ValueError(f"no column named {class_column!r}; columns: {', '.join(df.columns)}")
    if df[class_column].isna().any():
        raise ValueError(f"the class column {class_column!r} has missing values")
    # An empty cell of a select-all column is an answer (no choice applies), never missing.
    multi_names = set() if multi is None else {multi} if isinstance(multi, str) else set(multi)
    answered = [c for c in df.columns if c not in multi_names]
    if missing == "error" and df[answered].isna().any().any():
        bad = [c for c in answered if df[c].isna().any()]
        raise ValueError(f"missing values in column(s) {', '.join(bad)} (missing='error')")
    if missing == "drop":
        df = df.dropna(subset=answered).reset_index(drop=True)
        if df.shape[0] == 0:
            raise ValueError("no row is complete (missing='drop')")
    if isinstance(numeric, str):
        numeric = [numeric]
    numeric_columns: set[str] = (
        {c for c in df.columns if c != class_column and _is_numeric(df[c])} if numeric is None else set(numeric))
    unknown = numeric_columns - set(df.columns)
    if unknown:
        raise ValueError(f"numeric columns not in the table: {', '.join(sorted(unknown))}")
    if class_column in numeric_columns:
        raise ValueError(f"the class column {class_column!r} cannot be numeric")
    multi_columns = _multi_columns(df, multi, class_column, separator)
    ordered = {c: tuple(v) for c, v in (ordered or {}).items()}
    for column in ordered:
        if column not in df.columns or column in numeric_columns or column in multi_columns:
            raise ValueError(f"ordered column {column!r} must be a categorical column of the table")
        outside = sorted(set(df[column].dropna()) - set(ordered[column]))
        if outside:
            raise ValueError(f"ordered column {column!r} holds {', '.join(map(repr, outside))}, not among its values "
                             f"{', '.join(ordered[column])}")
    numeric_columns -= set(multi_columns)
    class_values = tuple(sorted(df[class_column].unique(), key=_sort_key))
    class_attribute = Categorical(class_column, class_values)
    attributes: list[Attribute] = []
    columns: list[np.ndarray] = []
    for name in df.columns:
        if name == class_column:
            continue
        col = df[name]
        if name in multi_columns:
            applies = [{part.strip() for part in str(v).split(separator)} if isinstance(v, str) else set()
                       for v in col]
            for k, option in enumerate(multi_columns[name]):
                attributes.append(Categorical(option_name(name, k), ("no", "yes")))
                columns.append(np.array([option in cell for cell in applies], dtype=np.float64))
        elif name in numeric_columns:
            values = pd.to_numeric(col, errors="coerce")
            if values.isna().any():
                raise ValueError(f"numeric column {name!r} has missing or non-numeric values")
            low, high = float(values.min()), float(values.max())
            if low == high:
                high = low + 1.0
            attributes.append(Numeric(name, low, high))
            columns.append(values.to_numpy(dtype=np.float64))
        else:
            labels = list(ordered[name]) if name in ordered else sorted(col.dropna().unique(), key=_sort_key)
            if col.isna().any():
                labels.append(MISSING)
            attr = Categorical(name, tuple(labels))
            lookup = {v: i for i, v in enumerate(attr.values)}
            attributes.append(attr)
            columns.append(col.fillna(MISSING).map(lookup).to_numpy(dtype=np.float64))
    y_lookup = {v: i for i, v in enumerate(class_values)}
    y = df[class_column].map(y_lookup).to_numpy(dtype=np.int64)
    X = np.column_stack(columns) if columns else np.empty((len(df), 0))
    return Table(class_attribute, tuple(attributes), X, y, tuple(a.name for a in attributes),
                 multi=tuple(multi_columns.items()), ordered=tuple(ordered))
