"""NaiveBayesModel and the non-private fit (SPEC §1): agreement with scikit-learn, JSON round trip, validation."""
from __future__ import annotations

import json

import numpy as np
import pytest

from aggregator.lab.datasets import DATASETS_DIR
from aggregator.privacy.naive_bayes import NaiveBayesModel
from aggregator.privacy.naive_bayes.fit import fit_nonprivate
from aggregator.privacy.naive_bayes.model import PROB_FLOOR
from aggregator.privacy.schema import Categorical, Numeric
from survey_app.tables import load_table

sklearn_nb = pytest.importorskip("sklearn.naive_bayes")


@pytest.fixture(scope="module")
def tables():
    return {name: load_table(DATASETS_DIR / f"{name}.csv") for name in ("mushroom", "vote", "diabetes")}


def _categorical_sklearn(table):
    sizes = [a.size for a in table.attributes]
    clf = sklearn_nb.CategoricalNB(alpha=1.0, min_categories=sizes)
    return clf.fit(table.X.astype(int), table.y)


@pytest.mark.parametrize("name", ["mushroom", "vote"])
def test_categorical_fit_agrees_with_sklearn(tables, name):
    table = tables[name]
    model = fit_nonprivate(table.class_attribute, table.attributes, table.X, table.y, alpha=1.0)
    clf = _categorical_sklearn(table)
    # Fit on the whole table, predict on every row: identical parameters give identical log joints.
    np.testing.assert_allclose(model.prior, np.exp(clf.class_log_prior_), rtol=1e-12)
    for j, table_j in enumerate(model.conditionals):
        np.testing.assert_allclose(table_j.T, np.exp(clf.feature_log_prob_[j]), rtol=1e-12)
    np.testing.assert_allclose(model.log_joint(table.X), clf.predict_joint_log_proba(table.X.astype(int)), rtol=1e-10)
    np.testing.assert_array_equal(model.predict(table.X), clf.predict(table.X.astype(int)))
    np.testing.assert_allclose(model.predict_proba(table.X), clf.predict_proba(table.X.astype(int)), atol=1e-10)


def test_gaussian_fit_agrees_with_sklearn(tables):
    table = tables["diabetes"]
    assert all(isinstance(a, Numeric) for a in table.attributes)
    model = fit_nonprivate(table.class_attribute, table.attributes, table.X, table.y)
    # var_smoothing=0: scikit-learn otherwise adds 1e-9·max variance to every variance.
    clf = sklearn_nb.GaussianNB(var_smoothing=0.0).fit(table.X, table.y)
    mu = np.vstack([c[0] for c in model.conditionals]).T  # (k, m)
    sd = np.vstack([c[1] for c in model.conditionals]).T
    np.testing.assert_allclose(mu, clf.theta_, rtol=1e-12)
    np.testing.assert_allclose(sd**2, clf.var_, rtol=1e-10)
    np.testing.assert_allclose(model.log_joint(table.X), clf.predict_joint_log_proba(table.X), rtol=1e-10)
    np.testing.assert_array_equal(model.predict(table.X), clf.predict(table.X))
    np.testing.assert_allclose(model.predict_proba(table.X), clf.predict_proba(table.X), atol=1e-10)


def test_mixed_model_sums_the_two_kinds():
    """A model with a categorical and a numeric attribute adds log P(a|c) and the Gaussian log-density."""
    from scipy.stats import norm

    cls = Categorical("c", ("a", "b"))
    attrs = [Categorical("x", ("0", "1", "2")), Numeric("z", 0.0, 10.0)]
    cond_x = np.array([[0.2, 0.5], [0.3, 0.25], [0.5, 0.25]])
    cond_z = np.array([[2.0, 7.0], [1.0, 2.0]])
    model = NaiveBayesModel(cls, attrs, [0.4, 0.6], [cond_x, cond_z])
    X = np.array([[0, 1.5], [2, 8.0]])
    expected = np.log([0.4, 0.6]) + np.log(cond_x[[0, 2]]) + norm.logpdf(X[:, 1:], cond_z[0], cond_z[1])
    np.testing.assert_allclose(model.log_joint(X), expected, rtol=1e-12)
    assert model.predict_labels(X) == ["a", "b"]


@pytest.mark.parametrize("name", ["mushroom", "diabetes"])
def test_json_round_trip_gives_identical_predictions(tables, name):
    table = tables[name]
    model = fit_nonprivate(table.class_attribute, table.attributes, table.X, table.y)
    model.metadata["note"] = np.arange(3)  # numpy metadata must serialise
    text = model.to_json()
    data = json.loads(text)
    assert data["format"] == "coinflip-nb" and data["version"] == 1
    back = NaiveBayesModel.from_json(text)
    assert back.class_attribute == model.class_attribute and back.attributes == model.attributes
    np.testing.assert_array_equal(back.log_joint(table.X), model.log_joint(table.X))
    np.testing.assert_array_equal(back.predict(table.X), model.predict(table.X))
    assert back.metadata["note"] == [0, 1, 2]
    assert NaiveBayesModel.from_dict(model.to_dict()).to_dict() == back.to_dict()


def test_zero_probabilities_and_zero_sigma_are_floored():
    """Zeros give a finite penalty log(PROB_FLOOR), never −inf (RuntimeWarnings are errors here); σ = 0 is floored."""
    cls = Categorical("c", ("a", "b"))
    attrs = [Categorical("x", ("0", "1")), Numeric("z", 0.0, 1.0)]
    model = NaiveBayesModel(cls, attrs, [1.0, 0.0],
                            [np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[0.5, 0.5], [0.0, 0.0]])])
    lj = model.log_joint(np.array([[1, 0.5], [0, 0.7]]))
    assert np.all(np.isfinite(lj))
    assert lj[0, 1] - lj[0, 0] == pytest.approx(0.0, abs=1e-9)  # each class has exactly one floored factor
    np.testing.assert_allclose(lj[1, 0] - lj[1, 1], -2 * np.log(PROB_FLOOR), rtol=1e-12)
    assert np.all(np.isfinite(model.predict_proba(np.array([[1, 0.5]]))))


def test_columns_are_normalised():
    cls = Categorical("c", ("a", "b"))
    model = NaiveBayesModel(cls, [Categorical("x", ("0", "1"))], [2.0, 6.0], [np.array([[1.0, 3.0], [1.0, 1.0]])])
    np.testing.assert_allclose(model.prior, [0.25, 0.75])
    np.testing.assert_allclose(model.conditionals[0], [[0.5, 0.75], [0.5, 0.25]])


def _valid():
    cls = Categorical("c", ("a", "b"))
    attrs = [Categorical("x", ("0", "1", "2")), Numeric("z", 0.0, 1.0)]
    return cls, attrs, [0.5, 0.5], [np.full((3, 2), 1 / 3), np.array([[0.2, 0.8], [0.1, 0.1]])]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda a: a.__setitem__(0, Numeric("c", 0.0, 1.0)), "class attribute"),
        (lambda a: a.__setitem__(0, Categorical("c", ("only",))), "two classes"),
        (lambda a: a.__setitem__(2, [0.5, 0.3, 0.2]), "prior"),
        (lambda a: a.__setitem__(2, [-0.5, 1.5]), "prior"),
        (lambda a: a.__setitem__(2, [np.nan, 1.0]), "prior"),
        (lambda a: a.__setitem__(3, a[3][:1]), "conditional"),
        (lambda a: a.__setitem__(3, [np.full((2, 2), 0.5), a[3][1]]), "'x'"),
        (lambda a: a.__setitem__(3, [np.array([[1, -1], [0, 1], [0, 1.0]]), a[3][1]]), "'x'"),
        (lambda a: a.__setitem__(3, [np.array([[0, 1], [0, 1], [0, 1.0]]), a[3][1]]), "'x'"),
        (lambda a: a.__setitem__(3, [a[3][0], np.array([[0.2, 0.8], [-0.1, 0.1]])]), "'z'"),
        (lambda a: a.__setitem__(3, [a[3][0], np.ones((3, 2))]), "'z'"),
    ],
)
def test_constructor_validation(change, message):
    args = list(_valid())
    NaiveBayesModel(*args)  # the unchanged arguments are valid
    change(args)
    with pytest.raises(ValueError, match=message):
        NaiveBayesModel(*args)


@pytest.mark.parametrize(
    "X, message",
    [
        (np.zeros((2, 3)), "shape"),
        (np.array([[3, 0.5]]), "codes"),
        (np.array([[-1, 0.5]]), "codes"),
        (np.array([[0.5, 0.5]]), "codes"),
        (np.array([[0, np.nan]]), "finite"),
    ],
)
def test_input_validation(X, message):
    model = NaiveBayesModel(*_valid())
    with pytest.raises(ValueError, match=message):
        model.predict(X)


def test_serialised_format_is_checked():
    data = NaiveBayesModel(*_valid()).to_dict()
    with pytest.raises(ValueError, match="format"):
        NaiveBayesModel.from_dict({**data, "format": "other"})
    with pytest.raises(ValueError, match="version"):
        NaiveBayesModel.from_dict({**data, "version": 2})


def test_fit_validation():
    cls, attrs, _, _ = _valid()
    X = np.array([[0, 0.5], [1, 0.2]])
    with pytest.raises(ValueError, match="X"):
        fit_nonprivate(cls, attrs, X[:, :1], [0, 1])
    with pytest.raises(ValueError, match="alpha"):
        fit_nonprivate(cls, attrs, X, [0, 1], alpha=-1)
    with pytest.raises(ValueError, match="codes"):
        fit_nonprivate(cls, attrs, X, [0, 2])
    with pytest.raises(ValueError, match="codes"):
        fit_nonprivate(cls, attrs, np.array([[5, 0.5], [1, 0.2]]), [0, 1])
