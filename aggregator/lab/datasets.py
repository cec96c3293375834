"""Loading tables (CSV) into the engine's schema: attributes, integer codes and numeric values.

CSV files are read as ``data/datasets/README.md`` prescribes — every cell as text, only the empty field missing
(pandas' default NA list would turn real labels such as ``None`` into NaN). A column is numeric when it is named
in ``numeric`` or, by default, when every non-missing value parses as a number and it has more than
``NUMERIC_MIN_DISTINCT`` distinct numeric values ("1" and "1.0" count once; "inf" does not parse as a finite number,
so such a column stays categorical). A numeric attribute's public bounds are the observed minimum and maximum (a
constant column gets [x, x + 1], since bounds need low < high). Missing values (``missing=``): "category" (default)
makes them the extra category ``MISSING`` ("?") of a categorical attribute (a numeric column with missing values is an
error); "drop" removes every row with a missing value; "error" raises ``ValueError``.

Named variants (issue 13): ``load_dataset("adult-median")`` is ``adult.csv`` with a preprocessing applied after loading
(``VARIANTS``): ``median`` — every numeric attribute split at its median into two categories, seed 004's "split the
value of each attribute from the median point" (§5.1); ``midrange`` — split at the midpoint of its range
((min + max) / 2, i.e. 2 equal-width bins), the other reading of that sentence. The lab's default stays the plain file,
whose numeric columns the discrete methods cut into 4 equal-width bins (``methods.DEFAULT_BINS``).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from ..privacy.continuous.discretize import ewd_attribute, ewd_codes
from ..privacy.schema import Attribute, Categorical, Numeric

__all__ = ["Table", "load_table", "load_dataset", "read_csv", "discretize_table", "binarize_at_median",
           "binarize_at_midrange", "train_test_split", "MISSING", "MISSING_POLICIES", "DATASETS_DIR", "VARIANTS"]

MISSING = "?"
MISSING_POLICIES = ("category", "drop", "error")
NUMERIC_MIN_DISTINCT = 10
DATASETS_DIR = Path(__file__).resolve().parents[2] / "data" / "datasets"


@dataclass(frozen=True, eq=False)
class Table:
    """A data set in engine form: ``X`` (n, m) floats (codes for categorical columns), ``y`` class codes."""

    class_attribute: Categorical
    attributes: tuple[Attribute, ...]
    X: np.ndarray
    y: np.ndarray
    columns: tuple[str, ...] = field(default=())

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
) -> Table:
    """Read a CSV (or take a DataFrame of strings) into a ``Table``; the class is the last column by default.

    Categorical labels are sorted (numerically when they parse as numbers), ``MISSING`` last when present; the class
    values are the labels that occur. Numeric attributes get the observed minimum and maximum as bounds.
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
    if missing == "error" and df.isna().any().any():
        bad = [c for c in df.columns if df[c].isna().any()]
        raise ValueError(f"missing values in column(s) {', '.join(bad)} (missing='error')")
    if missing == "drop":
        df = df.dropna().reset_index(drop=True)
        if df.shape[0] == 0:
            raise ValueError("no row is complete (missing='drop')")
    if isinstance(numeric, str):
        numeric = [numeric]
    if numeric is None:
        numeric = {c for c in df.columns if c != class_column and _is_numeric(df[c])}
    numeric = set(numeric)
    unknown = numeric - set(df.columns)
    if unknown:
        raise ValueError(f"numeric columns not in the table: {', '.join(sorted(unknown))}")
    if class_column in numeric:
        raise ValueError(f"the class column {class_column!r} cannot be numeric")
    class_values = tuple(sorted(df[class_column].unique(), key=_sort_key))
    class_attribute = Categorical(class_column, class_values)
    attributes, columns = [], []
    for name in df.columns:
        if name == class_column:
            continue
        col = df[name]
        if name in numeric:
            values = pd.to_numeric(col, errors="coerce")
            if values.isna().any():
                raise ValueError(f"numeric column {name!r} has missing or non-numeric values")
            low, high = float(values.min()), float(values.max())
            if low == high:
                high = low + 1.0
            attributes.append(Numeric(name, low, high))
            columns.append(values.to_numpy(dtype=np.float64))
        else:
            labels = sorted(col.dropna().unique(), key=_sort_key)
            if col.isna().any():
                labels.append(MISSING)
            attr = Categorical(name, tuple(labels))
            lookup = {v: i for i, v in enumerate(attr.values)}
            attributes.append(attr)
            columns.append(col.fillna(MISSING).map(lookup).to_numpy(dtype=np.float64))
    y_lookup = {v: i for i, v in enumerate(class_values)}
    y = df[class_column].map(y_lookup).to_numpy(dtype=np.int64)
    X = np.column_stack(columns) if columns else np.empty((len(df), 0))
    return Table(class_attribute, tuple(attributes), X, y, tuple(a.name for a in attributes))


def discretize_table(table: Table, bins: int = 4) -> Table:
    """Every numeric attribute replaced by its equal-width bins over the public bounds (SPEC §5a)."""
    X = table.X.copy()
    attributes = list(table.attributes)
    for i in table.numeric_indices:
        attr = attributes[i]
        X[:, i] = ewd_codes(attr, X[:, i], bins)
        attributes[i] = ewd_attribute(attr, bins)
    return replace(table, attributes=tuple(attributes), X=X)


def _split_at(table: Table, cut) -> Table:
    """Every numeric attribute replaced by a two-valued categorical one: code 0 "<= c" (x ≤ c), code 1 "> c"."""
    X = table.X.copy()
    attributes = list(table.attributes)
    for i in table.numeric_indices:
        attr = attributes[i]
        c = float(cut(attr, X[:, i]))
        X[:, i] = (X[:, i] > c).astype(np.float64)
        attributes[i] = Categorical(attr.name, (f"<= {c:g}", f"> {c:g}"))
    return replace(table, attributes=tuple(attributes), X=X)


def binarize_at_median(table: Table) -> Table:
    """Seed 004's preprocessing (§5.1): every numeric attribute split at the median of its column in ``table`` (the
    whole file, before any split, as the paper) — values ≤ the median are one category, values above it the other.
    For a column whose median is its minimum (adult's ``capital_gain``, ``capital_loss``: median 0) that is
    "zero / above zero". Categorical attributes are left as they are."""
    return _split_at(table, lambda attr, x: np.median(x))


def binarize_at_midrange(table: Table) -> Table:
    """Every numeric attribute split at the midpoint of its public bounds, (low + high) / 2 — 2 equal-width bins."""
    return _split_at(table, lambda attr, x: (attr.low + attr.high) / 2)


#: Preprocessings a data set key may name after a hyphen: ``"adult-median"`` (``load_dataset``).
VARIANTS = {"median": binarize_at_median, "midrange": binarize_at_midrange}


def load_dataset(name: str, directory: Path = DATASETS_DIR) -> Table:
    """A bundled data set by key: ``name`` is a file of ``directory`` without ``.csv`` (``"adult"``), or such a name,
    a hyphen and a ``VARIANTS`` key (``"adult-median"``: ``adult.csv`` binarized at the medians)."""
    path = Path(directory) / f"{name}.csv"
    if path.exists():
        return load_table(path)
    base, _, variant = name.rpartition("-")
    if base and variant in VARIANTS and (Path(directory) / f"{base}.csv").exists():
        return VARIANTS[variant](load_table(Path(directory) / f"{base}.csv"))
    raise FileNotFoundError(f"no data set {name!r}: neither {path.name} in {directory} nor <file>-<variant> with a "
                            f"variant in {', '.join(VARIANTS)}")


def train_test_split(table: Table, test_size: float, rng: np.random.Generator) -> tuple[Table, Table]:
    """Stratified split: in every class, round(test_size · count) rows go to the test part."""
    if not 0 < test_size < 1:
        raise ValueError("test_size must lie in (0, 1)")
    test = []
    for c in range(table.class_attribute.size):
        rows = np.flatnonzero(table.y == c)
        rows = rows[rng.permutation(rows.size)]
        test.append(rows[: int(round(test_size * rows.size))])
    test_rows = np.sort(np.concatenate(test))
    mask = np.ones(table.n, dtype=bool)
    mask[test_rows] = False
    return table.subset(np.flatnonzero(mask)), table.subset(test_rows)
