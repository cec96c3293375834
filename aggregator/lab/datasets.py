"""The lab's data sets: the bundled CSV files (``DATASETS_DIR``) read as ``survey_app.tables`` reads any table, their
named preprocessings, and stratified splits.

Named variants: ``load_dataset("adult-median")`` is ``adult.csv`` with a preprocessing applied after loading
(``VARIANTS``): ``median`` — every numeric attribute split at its median into two categories, seed 004's "split the
value of each attribute from the median point" (§5.1); ``midrange`` — split at the midpoint of its range
((min + max) / 2, i.e. 2 equal-width bins), the other reading of that sentence. The lab's default stays the plain file,
whose numeric columns the discrete methods cut into 4 equal-width bins (``methods.DEFAULT_BINS``).

Tables a package ships (``PACKAGE_TABLES``, keys ``sklearn-<name>``): scikit-learn's bundled sets, read
from the files inside the installed package (``sklearn.datasets.load_*``, which never downloads): ``breast_cancer``
(569 rows, 30 numeric, 2 classes), ``wine`` (178, 13 numeric, 3), ``iris`` (150, 4 numeric, 3), ``digits`` (1,797,
64 numeric pixel intensities 0–16, 10 classes), ``digits17`` (the same pixels as categorical answers with 17 values),
and ``diabetes`` (442 rows; its regression target cut at its quartiles into 4 classes; 9 numeric questions and sex as a
categorical one: a mixed table).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from survey_app.tables import Table, load_table

from ..privacy.continuous.discretize import ewd_attribute, ewd_codes
from ..privacy.schema import Categorical, Numeric

__all__ = ["load_dataset", "discretize_table", "binarize_at_median", "binarize_at_midrange", "train_test_split",
           "DATASETS_DIR", "VARIANTS", "PACKAGE_TABLES", "package_table"]

DATASETS_DIR = Path(__file__).resolve().parents[2] / "data" / "datasets"


def discretize_table(table: Table, bins: int = 4) -> Table:
    """Every numeric attribute replaced by its equal-width bins over the public bounds (SPEC §5a)."""
    X = table.X.copy()
    attributes = list(table.attributes)
    for i in table.numeric_indices:
        attr = cast(Numeric, attributes[i])
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


def _sklearn_frame(name: str) -> pd.DataFrame:
    """One of scikit-learn's bundled classification sets as a frame of strings, the class last."""
    from sklearn import datasets as bundled

    data = getattr(bundled, f"load_{name}")()
    features = [str(f) for f in data.feature_names]
    df = pd.DataFrame(data.data, columns=features).astype(str)
    df["class"] = [str(data.target_names[t]) for t in data.target]
    return df


def _sklearn_diabetes() -> pd.DataFrame:
    """scikit-learn's diabetes (unscaled), the disease-progression target cut at its quartiles into 4 classes."""
    from sklearn import datasets as bundled

    data = bundled.load_diabetes(scaled=False)
    df = pd.DataFrame(data.data, columns=list(data.feature_names)).astype(str)
    df["sex"] = np.where(data.data[:, list(data.feature_names).index("sex")] == 1.0, "1", "2")
    quartile = np.searchsorted(np.quantile(data.target, [0.25, 0.5, 0.75]), data.target, side="right")
    df["class"] = [f"q{q + 1}" for q in quartile]
    return df


def _sklearn(name: str, categorical: bool = False):
    def load() -> Table:
        df = _sklearn_frame(name)
        features = [c for c in df.columns if c != "class"]
        if categorical:
            df[features] = df[features].apply(lambda col: col.str.replace(r"\.0$", "", regex=True))
        return load_table(df, numeric=[] if categorical else features)

    return load


#: Tables shipped inside installed packages, by key (module docstring); nothing is downloaded.
PACKAGE_TABLES = {
    "sklearn-breast_cancer": _sklearn("breast_cancer"),
    "sklearn-wine": _sklearn("wine"),
    "sklearn-iris": _sklearn("iris"),
    "sklearn-digits": _sklearn("digits"),
    "sklearn-digits17": _sklearn("digits", categorical=True),
    "sklearn-diabetes": lambda: load_table(_sklearn_diabetes(),
                                           numeric=["age", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"]),
}


def package_table(name: str) -> Table:
    """A table of ``PACKAGE_TABLES`` by key."""
    try:
        return PACKAGE_TABLES[name]()
    except KeyError:
        raise FileNotFoundError(f"no package table {name!r}; choose one of {', '.join(PACKAGE_TABLES)}") from None


def load_dataset(name: str, directory: Path = DATASETS_DIR) -> Table:
    """A bundled data set by key: ``name`` is a file of ``directory`` without ``.csv`` (``"adult"``), or such a name,
    a hyphen and a ``VARIANTS`` key (``"adult-median"``: ``adult.csv`` binarized at the medians)."""
    path = Path(directory) / f"{name}.csv"
    if path.exists():
        return load_table(path)
    if name in PACKAGE_TABLES:
        return package_table(name)
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
