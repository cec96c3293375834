"""aggregator/dashboard/exports.py: scikit-learn estimators that predict as the NaiveBayesModel does, and report CSV
rows.

Equivalence: on random models — including probabilities below PROB_FLOOR (zeros) and σ below
SIGMA_FLOOR_FRACTION·range (zeros), which the model floors — and random inputs, scikit-learn's predictions equal the
model's and its class probabilities agree within 1e-9. Exact equality of probabilities is not possible: both add the
same log terms in a different order (and GaussianNB writes the log-density differently, exports docstring), so the
joint log-likelihoods differ by rounding (≈ 1e-15 relative). The tests assert the floored entries reach scikit-learn
with the very same values, so nothing but rounding separates the two.
"""
import csv
import io
import json
from datetime import date

import joblib
import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB, GaussianNB

from aggregator.dashboard import exports
from aggregator.privacy.naive_bayes.model import PROB_FLOOR, SIGMA_FLOOR_FRACTION, NaiveBayesModel
from aggregator.privacy.schema import Categorical, Numeric

TOLERANCE = 1e-9
CLASSES = Categorical("class", ("a", "b", "c"))


def random_categorical_model(rng) -> NaiveBayesModel:
    """Three classes, four attributes; about a quarter of the P(a | c) entries and one prior entry are zero
    (floored)."""
    attributes = [Categorical(f"x{i}", tuple(f"v{j}" for j in range(size))) for i, size in enumerate((2, 3, 5, 8))]
    tables = []
    for attr in attributes:
        table = rng.dirichlet(np.full(attr.size, 0.7), size=CLASSES.size).T
        table[rng.random(table.shape) < 0.25] = 0.0
        table[0] += table.sum(axis=0) == 0  # keep every column a distribution
        tables.append(table)
    prior = rng.dirichlet(np.ones(CLASSES.size))
    prior[rng.integers(CLASSES.size)] = 0.0
    return NaiveBayesModel(CLASSES, attributes, prior, tables)


def random_gaussian_model(rng) -> NaiveBayesModel:
    """Three numeric attributes; some σ are zero or below the floor, one prior entry is below PROB_FLOOR."""
    attributes = [Numeric("age", 18, 98), Numeric("weight", 40, 160), Numeric("score", -1, 1)]
    tables = []
    for attr in attributes:
        span = attr.high - attr.low
        mu = rng.uniform(attr.low, attr.high, CLASSES.size)
        sigma = rng.uniform(0.02, 0.3, CLASSES.size) * span
        sigma[rng.integers(CLASSES.size)] = rng.choice([0.0, 0.2 * SIGMA_FLOOR_FRACTION * span])
        tables.append(np.vstack([mu, sigma]))
    prior = np.array([0.5, 0.5 - PROB_FLOOR / 4, PROB_FLOOR / 4])
    return NaiveBayesModel(CLASSES, attributes, prior, tables)


def categorical_inputs(model, n, rng):
    return np.column_stack([rng.integers(0, a.size, n) for a in model.attributes])


def numeric_inputs(model, n, rng):
    return np.column_stack([rng.uniform(a.low, a.high, n) for a in model.attributes])


def assert_same_predictions(model, estimator, X):
    np.testing.assert_array_equal(estimator.predict(X), np.asarray(model.predict_labels(X), dtype=object))
    np.testing.assert_allclose(estimator.predict_proba(X), model.predict_proba(X), rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("seed", range(5))
def test_categorical_nb_predicts_as_the_model(seed):
    rng = np.random.default_rng(seed)
    model = random_categorical_model(rng)
    estimator = exports.sklearn_estimator(model)
    assert isinstance(estimator, CategoricalNB)
    assert list(estimator.classes_) == list(model.classes)
    assert min(np.min(t) for t in estimator.feature_log_prob_) == np.log(PROB_FLOOR)  # the floors are there
    assert np.min(estimator.class_log_prior_) == np.log(PROB_FLOOR)
    assert_same_predictions(model, estimator, categorical_inputs(model, 5000, rng))


@pytest.mark.parametrize("seed", range(5))
def test_gaussian_nb_predicts_as_the_model(seed):
    rng = np.random.default_rng(seed)
    model = random_gaussian_model(rng)
    estimator = exports.sklearn_estimator(model)
    assert isinstance(estimator, GaussianNB)
    floors = np.array([SIGMA_FLOOR_FRACTION * (a.high - a.low) for a in model.attributes])
    assert np.all(np.sqrt(estimator.var_) >= floors[None, :]) and np.any(np.isclose(np.sqrt(estimator.var_), floors))
    assert estimator.class_prior_[2] == PROB_FLOOR  # floored, not renormalised: as the model does
    assert_same_predictions(model, estimator, numeric_inputs(model, 5000, rng))


def test_the_pickle_round_trips_through_joblib(rng):
    model = random_categorical_model(rng)
    loaded = joblib.load(io.BytesIO(exports.sklearn_bytes(model)))
    X = categorical_inputs(model, 500, rng)
    np.testing.assert_array_equal(loaded.predict(X), exports.sklearn_estimator(model).predict(X))


def test_a_model_from_a_real_protocol_exports(rng):
    """An MRR model (numeric question discretized into bins) predicts the same through scikit-learn."""
    from aggregator.privacy import survey_protocol as sp

    config = {"mode": "mrr", "class": {"kind": "categorical", "name": "sick", "values": ["no", "yes"]},
              "features": [{"kind": "categorical", "name": "smoker", "values": ["never", "sometimes", "daily"]},
                           {"kind": "numeric", "name": "age", "low": 18, "high": 98}],
              "mrr": {"theta": 0.7}}
    protocol = sp.build(config)
    X = np.column_stack([rng.integers(0, 3, 800), rng.uniform(18, 98, 800)])
    y = (X[:, 0] == 2).astype(np.int64)
    model = protocol.estimate(protocol.fold(protocol.encode(X, y, rng)))
    model_input = protocol.to_model_input(X)
    assert_same_predictions(model, exports.sklearn_estimator(model), model_input.astype(np.int64))


def test_mixed_models_are_refused():
    model = NaiveBayesModel(CLASSES, [Categorical("x", ("0", "1")), Numeric("y", 0, 1)], [1, 1, 1],
                            [np.full((2, 3), 0.5), np.array([[0.5] * 3, [0.1] * 3])])
    with pytest.raises(ValueError, match="mixed"):
        exports.sklearn_estimator(model)


def test_report_rows_hold_id_date_kind_and_payload_only():
    reports = [(7, date(2026, 11, 20), {"answers": [1, 0, 2]}),
               (9, date(2026, 11, 21), {"validation": {"version": 1, "report": 0}}),
               (12, date(2026, 11, 21), {"report": "aé,\"x\""})]
    text = "".join(exports.report_rows(reports))
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["id", "received_on", "kind", "payload"]
    assert [r[:3] for r in rows[1:]] == [["7", "2026-11-20", "training"], ["9", "2026-11-21", "validation"],
                                         ["12", "2026-11-21", "training"]]
    assert [json.loads(r[3]) for r in rows[1:]] == [p for _, _, p in reports]  # quoting survives commas and quotes
