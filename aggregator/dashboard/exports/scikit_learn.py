"""A published model as a fitted scikit-learn estimator (``sklearn_estimator``, ``sklearn_bytes``).

**scikit-learn** (``sklearn_estimator``): a ``CategoricalNB`` for discrete models (categorical questions, numeric
ones discretized into bins) or a ``GaussianNB`` for Gaussian models (SPEC §5b), whose fitted attributes are set from
the ``NaiveBayesModel`` — never fitted on data. They hold the model's *floored* parameters (``naive_bayes.model``):

* CategoricalNB: ``class_log_prior_`` = log max(P(c), PROB_FLOOR), ``feature_log_prob_[i]`` = log max(P(a | c),
  PROB_FLOOR) transposed to (classes, values);
* GaussianNB: ``class_prior_`` = max(P(c), PROB_FLOOR) — not renormalised, as in the model —, ``theta_`` = μ and
  ``var_`` = max(σ, SIGMA_FLOOR_FRACTION·(high − low))².

scikit-learn adds the same log terms in another order (and GaussianNB writes the log-density as
−½·log(2πσ²) − (x − μ)²/(2σ²) where ``scipy.stats.norm.logpdf`` computes −z²/2 − log σ − ½·log 2π), so the joint
log-likelihoods agree to rounding (≈ 1e-15 relative): class probabilities agree within 1e-9 and predictions agree
except at exact ties, which rounding may break either way (``tests/dashboard/test_exports.py``).

Inputs are the model's: one column per model attribute in the order of the JSON download's ``attributes`` — category
codes (0-based, in the order of each attribute's ``values``; a discretized numeric question as its bin code), or
values in the attribute's units for Gaussian models (the projected components for PCA/DCA surveys). ``class_count_``
and ``category_count_`` hold the estimated counts (P̂ × reports) for information only: ``partial_fit`` would
re-estimate from them without the floors.

A pickle runs code when it is loaded: load one only from a source you trust.
"""
from __future__ import annotations

import io
from typing import Sequence, cast

import numpy as np

from aggregator.privacy.naive_bayes.model import PROB_FLOOR, SIGMA_FLOOR_FRACTION, NaiveBayesModel
from aggregator.privacy.schema import Categorical, Numeric


def _estimated_class_counts(model: NaiveBayesModel) -> np.ndarray:
    return model.prior * float(model.metadata.get("reports") or 0)


def _categorical_nb(model: NaiveBayesModel):
    from sklearn.naive_bayes import CategoricalNB

    est = CategoricalNB()
    est.classes_ = np.asarray(model.classes, dtype=object)
    est.class_count_ = _estimated_class_counts(model)
    est.class_log_prior_ = np.log(np.maximum(model.prior, PROB_FLOOR))
    est.feature_log_prob_ = [np.log(np.maximum(table, PROB_FLOOR)).T for table in model.conditionals]
    est.category_count_ = [table.T * est.class_count_[:, None] for table in model.conditionals]
    est.n_categories_ = np.asarray([a.size for a in cast(Sequence[Categorical], model.attributes)], dtype=np.int64)
    est.n_features_in_ = len(model.attributes)
    return est


def _gaussian_nb(model: NaiveBayesModel):
    from sklearn.naive_bayes import GaussianNB

    est = GaussianNB()
    est.classes_ = np.asarray(model.classes, dtype=object)
    est.class_count_ = _estimated_class_counts(model)
    est.class_prior_ = np.maximum(model.prior, PROB_FLOOR)
    est.theta_ = np.vstack([table[0] for table in model.conditionals]).T
    sigma = [np.maximum(table[1], SIGMA_FLOOR_FRACTION * (a.high - a.low))
             for a, table in zip(cast(Sequence[Numeric], model.attributes), model.conditionals, strict=True)]
    est.var_ = np.vstack(sigma).T ** 2
    est.epsilon_ = 0.0
    est.n_features_in_ = len(model.attributes)
    return est


def has_sklearn_estimator(model: NaiveBayesModel) -> bool:
    """Whether ``sklearn_estimator`` can export ``model``: every attribute of one kind (not a mixed survey's)."""
    kinds = {isinstance(a, Numeric) for a in model.attributes}
    return len(kinds) <= 1


def sklearn_estimator(model: NaiveBayesModel):
    """The model as a fitted ``CategoricalNB`` (every attribute categorical) or ``GaussianNB`` (every attribute
    numeric); ``ValueError`` for a model that mixes both (scikit-learn has no single estimator for it)."""
    if all(isinstance(a, Categorical) for a in model.attributes):
        return _categorical_nb(model)
    if all(isinstance(a, Numeric) for a in model.attributes):
        return _gaussian_nb(model)
    raise ValueError("scikit-learn has no single Naive Bayes estimator for categorical and numeric attributes mixed: "
                     "use the model's JSON (NaiveBayesModel.from_dict) or the frequency tables")


def sklearn_bytes(model: NaiveBayesModel) -> bytes:
    """``sklearn_estimator(model)`` pickled with joblib (load it with ``joblib.load`` — from a trusted source only)."""
    import joblib

    buffer = io.BytesIO()
    joblib.dump(sklearn_estimator(model), buffer)
    return buffer.getvalue()
