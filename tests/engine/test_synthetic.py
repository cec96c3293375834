"""DP synthetic data (SPEC §8): the published exponential-mechanism algorithm (its class-selection probabilities
against the formula, exactly and by a chi-square test at a fixed seed; its honest guarantee) and the sound variant
that samples from a private model (P(c), P(a | c) and the numeric means reproduced within 5 standard errors)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from aggregator.privacy import synthetic as syn
from aggregator.privacy.central import fit_laplace_nb
from aggregator.privacy.naive_bayes import NaiveBayesModel
from aggregator.privacy.schema import Categorical, Numeric

CLS = Categorical("class", ("yes", "no", "maybe"))
ATTRS = (Categorical("a", ("x", "y")), Categorical("b", ("p", "q", "r")))


def toy(seed=0, n=200):
    rng = np.random.default_rng(seed)
    y = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    a = (rng.random(n) < np.array([0.8, 0.3, 0.5])[y]).astype(int)
    b = np.array([rng.choice(3, p=p) for p in np.array([[0.6, 0.3, 0.1], [0.1, 0.2, 0.7], [0.3, 0.4, 0.3]])[y]])
    return np.column_stack([a, b]).astype(np.float64), y


def formula_probabilities(X, y, x_rows, epsilon):
    """SPEC §8 from the raw counts: q(c) = log P(c) + Σ_j log P(x_j | c) with add-1 smoothing, P ∝ exp(εq/(2Δq))."""
    N, k = len(y), 3
    n_c = np.bincount(y, minlength=k)
    q = np.tile(np.log((n_c + 1) / (N + k)), (len(x_rows), 1))
    for j, a in enumerate(ATTRS):
        for c in range(k):
            n_vc = np.bincount(X[y == c, j].astype(int), minlength=a.size)
            q[:, c] += np.log((n_vc[x_rows[:, j].astype(int)] + 1) / (n_c[c] + a.size))
    z = np.exp(epsilon * q / (2 * math.ceil(math.log(2 * N))))
    return z / z.sum(axis=1, keepdims=True)


def test_class_probabilities_match_the_formula_exactly():
    X, y = toy()
    model = syn.smoothed_model(CLS, ATTRS, X, y)
    cells = np.array([[a, b] for a in range(2) for b in range(3)], dtype=float)
    for eps in (0.0, 0.5, 3.0, 40.0):
        np.testing.assert_allclose(syn.em_class_probabilities(model, cells, eps, len(y)),
                                   formula_probabilities(X, y, cells, eps), rtol=1e-12, atol=1e-300)
    assert syn.published_sensitivity(200) == math.ceil(math.log(400)) == 6


def test_published_draws_follow_the_formula_chi_square():
    """x uniform over the 6 cells, and within each cell the classes as the formula says (df = 6·(3 − 1));
    both statistics below the 0.999 quantile of their chi-square law at a fixed seed."""
    X, y = toy()
    eps, S = 2.0, 60_000
    out = syn.synthetic_published(CLS, ATTRS, X, y, eps, S, np.random.default_rng(1))
    cell = (out.X[:, 0] * 3 + out.X[:, 1]).astype(int)
    cell_counts = np.bincount(cell, minlength=6)
    assert stats.chisquare(cell_counts).statistic < stats.chi2.ppf(0.999, 5)
    cells = np.array([[a, b] for a in range(2) for b in range(3)], dtype=float)
    p = formula_probabilities(X, y, cells, eps)
    observed = np.zeros((6, 3))
    np.add.at(observed, (cell, out.y), 1)
    expected = cell_counts[:, None] * p
    assert np.all(expected > 5)
    chi2 = ((observed - expected) ** 2 / expected).sum()
    assert chi2 < stats.chi2.ppf(0.999, 6 * 2)


def test_published_guarantee_is_honest():
    X, y = toy()
    out = syn.synthetic_published(CLS, ATTRS, X, y, 0.5, 1000, 2)
    assert out.method == "synthetic-published-em"
    assert out.guarantee.startswith("Not shown to be differentially private")
    assert "one training row" in out.guarantee and "never composes" in out.guarantee
    d = len(ATTRS)
    assert out.epsilon_bound == pytest.approx(1000 * 0.5 * (1 + 2 * d) * math.log(2) / math.ceil(math.log(400)))
    assert syn.__doc__ and "not** shown to be ε-DP" in syn.__doc__


def test_row_sensitivity_bound_holds():
    """Replacing any one training row moves every q(c) by at most (1 + 2d)·ln 2 (the bound behind epsilon_bound)."""
    X, y = toy(n=40)
    cells = np.array([[a, b] for a in range(2) for b in range(3)], dtype=float)
    q = syn.class_scores(syn.smoothed_model(CLS, ATTRS, X, y), cells)
    worst = 0.0
    for i in range(len(y)):
        for a in range(2):
            for b in range(3):
                for c in range(3):
                    X2, y2 = X.copy(), y.copy()
                    X2[i], y2[i] = (a, b), c
                    q2 = syn.class_scores(syn.smoothed_model(CLS, ATTRS, X2, y2), cells)
                    worst = max(worst, np.abs(q2 - q).max())
    assert 0 < worst <= syn.row_sensitivity(len(ATTRS)) + 1e-12


def test_published_rejects_numeric_attributes():
    with pytest.raises(ValueError, match="categorical"):
        syn.synthetic_published(CLS, (Numeric("h", 0, 1),), np.zeros((3, 1)), np.array([0, 1, 2]), 1.0, 5, 0)


def _known_model():
    attrs = ATTRS + (Numeric("h", 0.0, 10.0),)
    prior = np.array([0.5, 0.3, 0.2])
    cond = [np.array([[0.8, 0.3, 0.5], [0.2, 0.7, 0.5]]),
            np.array([[0.6, 0.1, 0.3], [0.3, 0.2, 0.4], [0.1, 0.7, 0.3]]),
            np.array([[2.0, 5.0, 9.5], [1.5, 1.0, 2.0]])]
    return NaiveBayesModel(CLS, attrs, prior, cond, metadata={"mechanism": "central-laplace", "epsilon": 1.5})


def test_sampled_rows_reproduce_the_model():
    model = _known_model()
    S = 60_000
    out = syn.synthetic_from_model(model, S, np.random.default_rng(3))
    n_c = np.bincount(out.y, minlength=3)
    assert np.all(np.abs(n_c / S - model.prior) <= 5 * np.sqrt(model.prior * (1 - model.prior) / S))
    for j in (0, 1):
        table = model.conditionals[j]
        for c in range(3):
            freq = np.bincount(out.X[out.y == c, j].astype(int), minlength=table.shape[0]) / n_c[c]
            assert np.all(np.abs(freq - table[:, c]) <= 5 * np.sqrt(table[:, c] * (1 - table[:, c]) / n_c[c]))
    h = out.X[:, 2]
    assert h.min() >= 0.0 and h.max() <= 10.0
    for c in range(3):
        mu, sd = model.conditionals[2][:, c]
        a, b = (0.0 - mu) / sd, (10.0 - mu) / sd  # mean of N(μ, σ) clipped to [0, 10]
        clipped_mean = (mu * (stats.norm.cdf(b) - stats.norm.cdf(a)) + sd * (stats.norm.pdf(a) - stats.norm.pdf(b))
                        + 10.0 * stats.norm.sf(b))
        values = h[out.y == c]
        assert abs(values.mean() - clipped_mean) <= 5 * values.std() / math.sqrt(values.size)


def test_sound_variant_inherits_the_model_guarantee():
    out = syn.synthetic_from_model(_known_model(), 10, 4)
    assert out.method == "synthetic-from-model" and out.epsilon_bound == 1.5
    assert "Post-processing" in out.guarantee and "no extra ε" in out.guarantee
    plain = NaiveBayesModel(CLS, ATTRS, [1, 1, 1], [np.ones((2, 3)), np.ones((3, 3))],
                            metadata={"mechanism": "nonprivate"})
    assert syn.synthetic_from_model(plain, 5, 5).epsilon_bound is None


def test_sound_variant_from_a_private_fit_end_to_end():
    X, y = toy(n=2000)
    model = fit_laplace_nb(CLS, ATTRS, X, y, 2.0, 6)
    out = syn.synthetic_from_model(model, 500, 7)
    assert out.X.shape == (500, 2) and set(np.unique(out.y)) <= {0, 1, 2}
    assert out.epsilon_bound == 2.0
