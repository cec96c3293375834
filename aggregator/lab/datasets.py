"""The lab's data sets: the bundled CSV files (``DATASETS_DIR``) read as ``survey_app.tables`` reads any table, their
named preprocessings, and stratified splits.

Named variants: ``load_dataset("adult-median")`` is ``adult.csv`` with a preprocessing applied after loading
(``VARIANTS``): ``median`` — every numeric attribute split at its median into two categories, seed 004's "split the
value of each attribute from the median point" (§5.1); ``midrange`` — split at the midpoint of its range
((min + max) / 2, i.e. 2 equal-width bins), the other reading of that sentence. The lab's default stays the plain file,
whose numeric columns the discrete methods cut into 4 equal-width bins (``methods.DEFAULT_BINS``).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import cast

import numpy as np

from survey_app.tables import Table, load_table

from ..privacy.continuous.discretize import ewd_attribute, ewd_codes
from ..privacy.schema import Categorical, Numeric

__all__ = ["load_dataset", "discretize_table", "binarize_at_median", "binarize_at_midrange", "train_test_split",
           "DATASETS_DIR", "VARIANTS"]

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
