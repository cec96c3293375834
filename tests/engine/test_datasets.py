"""aggregator.lab.datasets: CSV tables into engine attributes and codes; EWD discretization; stratified split."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from aggregator.lab.datasets import DATASETS_DIR, discretize_table, train_test_split
from aggregator.privacy.schema import Categorical, Numeric
from survey_app.tables import MISSING, load_table, read_csv


@pytest.fixture(scope="module")
def mushroom():
    return load_table(DATASETS_DIR / "mushroom.csv")


def frame(text: str) -> pd.DataFrame:
    return read_csv(io.StringIO(text))


def test_mushroom(mushroom):
    t = mushroom
    assert t.n == 8124 and t.X.shape == (8124, 22) and len(t.columns) == 22
    assert t.class_attribute == Categorical("class", ("edible", "poisonous"))
    assert np.bincount(t.y).tolist() == [4208, 3916]
    assert all(isinstance(a, Categorical) for a in t.attributes)
    root = t.attributes[t.columns.index("stalk-root")]
    assert root.values == ("bulbous", "club", "equal", "rooted", MISSING)
    assert int(np.sum(t.X[:, t.columns.index("stalk-root")] == 4)) == 2480
    assert t.attributes[t.columns.index("veil-type")].values == ("partial",)
    # First row: convex, smooth, brown, ..., poisonous (codes index the sorted labels).
    cap = t.attributes[0]
    assert cap.values[int(t.X[0, 0])] == "convex" and t.y[0] == 1
    assert t.majority_accuracy() == pytest.approx(4208 / 8124)


def test_numeric_detection_and_bounds():
    t = load_table(DATASETS_DIR / "diabetes.csv")
    assert all(isinstance(a, Numeric) for a in t.attributes) and t.X.shape == (768, 8)
    mass = t.attributes[t.columns.index("mass")]
    assert (mass.low, mass.high) == (0.0, 67.1)
    np.testing.assert_array_equal(t.X[0], [6, 148, 72, 35, 0, 33.6, 0.627, 50])
    glass = load_table(DATASETS_DIR / "glass.csv")
    assert glass.class_attribute.size == 6  # the declared but unused class does not occur in the CSV
    vote = load_table(DATASETS_DIR / "vote.csv")
    assert all(a.values == ("n", "y", MISSING) for a in vote.attributes)


def test_auto_numeric_rule():
    """Numeric iff every non-missing value parses as a number and there are > 10 distinct values."""
    eleven = "\n".join(f"{i},{i % 3},{'x' if i == 0 else i},a" for i in range(11))
    t = load_table(frame("num,small,mixed,class\n" + eleven + "\n"))
    kinds = [type(a).__name__ for a in t.attributes]
    assert kinds == ["Numeric", "Categorical", "Categorical"]
    assert t.attributes[1].values == ("0", "1", "2")
    ten = frame("num,class\n" + "\n".join(f"{i},a" for i in range(10)) + "\n")
    assert isinstance(load_table(ten).attributes[0], Categorical)
    assert isinstance(load_table(ten, numeric=["num"]).attributes[0], Numeric)
    assert isinstance(load_table(ten, numeric="num").attributes[0], Numeric)
    # Distinct numbers, not distinct strings: 0..9 written twice ("3" and "3.0") is still 10 values; "inf" is no
    # finite number, so its column stays categorical.
    rows = "\n".join(f"{i},{2 * i if i else 'inf'},a\n{i}.0,{2 * i + 1},b" for i in range(10))
    twice = frame("num,inf,class\n" + rows + "\n")
    t = load_table(twice)
    assert [type(a).__name__ for a in t.attributes] == ["Categorical", "Categorical"]
    assert t.attributes[0].size == 20 and "inf" in t.attributes[1].values


def test_labels_sort_numerically_and_missing_policies():
    df = frame("a,b,class\n10,x,p\n9,,q\n,y,p\n2,x,q\n")
    t = load_table(df)
    assert t.attributes[0].values == ("2", "9", "10", MISSING)
    assert t.attributes[1].values == ("x", "y", MISSING)
    np.testing.assert_array_equal(t.X, [[2, 0], [1, 2], [3, 1], [0, 0]])
    np.testing.assert_array_equal(t.y, [0, 1, 0, 1])
    dropped = load_table(df, missing="drop")
    assert dropped.n == 2 and dropped.attributes[0].values == ("2", "10")
    with pytest.raises(ValueError, match="missing"):
        load_table(df, missing="error")
    with pytest.raises(ValueError, match="missing"):
        load_table(df, missing="zero")


def test_class_column_and_errors():
    df = frame("a,b,c\n1,x,p\n2,y,q\n")
    t = load_table(df, class_column="a")
    assert t.class_attribute.name == "a" and t.columns == ("b", "c")
    with pytest.raises(ValueError, match="no column"):
        load_table(df, class_column="z")
    with pytest.raises(ValueError, match="not in the table"):
        load_table(df, numeric=["z"])
    with pytest.raises(ValueError, match="class column"):
        load_table(df, numeric=["c"])
    with pytest.raises(ValueError, match="numeric column 'b'"):
        load_table(df, numeric=["b"])
    with pytest.raises(ValueError, match="class column"):
        load_table(frame("a,class\n1,p\n2,\n"))
    with pytest.raises(ValueError, match="at least one attribute"):
        load_table(frame("class\np\n"))


def test_read_csv_keeps_none_labels():
    df = frame("a,class\nNone,NA\n,n/a\n")
    assert df["a"].tolist()[0] == "None" and pd.isna(df["a"].tolist()[1]) and df["class"].tolist() == ["NA", "n/a"]


def test_discretize_table_uses_ewd():
    t = load_table(DATASETS_DIR / "diabetes.csv")
    d = discretize_table(t, bins=4)
    assert all(isinstance(a, Categorical) and a.size == 4 for a in d.attributes)
    mass = t.attributes[t.columns.index("mass")]
    width = (mass.high - mass.low) / 4
    expected = np.clip(np.floor((t.X[:, 5] - mass.low) / width), 0, 3)
    np.testing.assert_array_equal(d.X[:, 5], expected)
    assert d.X[:, 5].max() == 3  # the maximum falls in the last (closed) bin
    np.testing.assert_array_equal(d.y, t.y)
    assert t.attributes[0].kind == "numeric"  # the original is untouched


def test_stratified_split(mushroom):
    train, test = train_test_split(mushroom, 0.2, np.random.default_rng(0))
    assert train.n + test.n == mushroom.n
    assert np.bincount(test.y).tolist() == [round(0.2 * 4208), round(0.2 * 3916)]
    # Disjoint and covering: the multiset of rows is the original's.
    both = np.vstack([np.column_stack([train.X, train.y]), np.column_stack([test.X, test.y])])
    orig = np.column_stack([mushroom.X, mushroom.y])
    rows = [("", float)] * 23  # each row as one record, so that sorting keeps rows whole
    np.testing.assert_array_equal(np.sort(both.view(rows), axis=0), np.sort(orig.view(rows), axis=0))
    again, _ = train_test_split(mushroom, 0.2, np.random.default_rng(0))
    np.testing.assert_array_equal(again.X, train.X)
    with pytest.raises(ValueError, match="test_size"):
        train_test_split(mushroom, 1.0, np.random.default_rng(0))
