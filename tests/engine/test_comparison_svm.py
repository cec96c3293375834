"""ε-DP SVM by objective perturbation (SPEC §7): calibration, noise distribution, solver, norm bound."""
import math

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import minimize

from aggregator.privacy.comparison.dp_svm import Encoder, calibrate, fit_dp_svm, huber_loss, noise_vector
from aggregator.privacy.schema import Categorical, Numeric


def test_calibration_follows_spec_in_both_branches():
    n, h, lam, eps = 1000, 0.5, 0.01, 1.0
    c = calibrate(eps, n, h, lam)
    expected = eps - math.log(1 + 1 / (n * h * lam) + 1 / (4 * n**2 * h**2 * lam**2))
    assert c.epsilon_prime == pytest.approx(expected) and expected > 0
    assert (c.epsilon_noise, c.regulariser) == (pytest.approx(expected), lam)
    small = calibrate(0.1, 50, h, lam)  # ε' ≤ 0: half the budget, a larger regulariser
    assert small.epsilon_prime <= 0
    assert small.epsilon_noise == pytest.approx(0.05)
    assert small.regulariser == pytest.approx(1 / (2 * 50 * h * (math.exp(0.1 / 4) - 1)))
    assert calibrate(math.inf, 10).regulariser == 0.01
    with pytest.raises(ValueError):
        calibrate(0.0, 10)


def test_noise_norm_is_gamma_and_direction_uniform():
    rng = np.random.default_rng(4)
    dim, eps = 7, 0.8
    draws = np.array([noise_vector(dim, eps, rng) for _ in range(4000)])
    norms = np.linalg.norm(draws, axis=1)
    assert stats.kstest(norms, stats.gamma(dim, scale=2 / eps).cdf).pvalue > 1e-3
    directions = draws / norms[:, None]
    # Uniform on the sphere: mean 0, covariance I/dim (each coordinate's variance 1/dim); 5 standard errors.
    assert np.all(np.abs(directions.mean(axis=0)) <= 5 * np.sqrt(1 / dim / len(draws)))
    assert np.all(np.abs((directions**2).mean(axis=0) - 1 / dim) <= 5 * np.sqrt(2 / dim**2 / len(draws)))
    assert np.all(noise_vector(dim, math.inf, rng) == 0)


def test_huber_loss_is_continuous_with_its_derivative():
    h = 0.5
    z = np.linspace(-1, 3, 4001)
    loss, grad = huber_loss(z, h)
    assert np.max(np.abs(np.diff(loss))) < 2e-3  # continuous (step 1e-3, slope ≤ 1)
    numeric = np.gradient(loss, z)
    assert np.max(np.abs(numeric[1:-1] - grad[1:-1])) < 5e-3


def test_rows_have_norm_at_most_one():
    attributes = [Categorical("a", ("x", "y", "z")), Numeric("b", 0.0, 10.0), Numeric("c", -1.0, 1.0)]
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 3, 500), rng.uniform(-5, 15, 500), rng.uniform(-1, 1, 500)])
    Z = Encoder(attributes)(X)
    assert Z.shape == (500, 3 + 1 + 1 + 1) and np.linalg.norm(Z, axis=1).max() <= 1 + 1e-12


def _data(rng, n=300):
    attributes = [Numeric("u", -1.0, 1.0), Numeric("v", -1.0, 1.0), Categorical("w", ("a", "b"))]
    X = np.column_stack([rng.uniform(-1, 1, n), rng.uniform(-1, 1, n), rng.integers(0, 2, n)])
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)
    return Categorical("y", ("no", "yes")), attributes, X, y


def test_without_noise_the_solver_finds_the_objectives_minimum():
    rng = np.random.default_rng(2)
    cls, attributes, X, y = _data(rng)
    model = fit_dp_svm(cls, attributes, X, y, math.inf, rng, regulariser=0.001)
    Z, labels = model.encoder(X), np.where(y == 1, 1.0, -1.0)

    def J(w):
        return huber_loss(labels * (Z @ w), 0.5)[0].mean() + 0.0005 * w @ w

    reference = minimize(J, np.zeros(Z.shape[1]), method="Nelder-Mead",
                         options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 200_000, "maxfev": 200_000})
    assert J(model.weights[0]) <= reference.fun + 1e-9
    assert np.allclose(model.weights[0], reference.x, atol=1e-3)
    assert np.mean(model.predict(X) == y) > 0.95


def test_noise_perturbs_the_solution_and_multiclass_splits_the_budget():
    rng = np.random.default_rng(3)
    cls, attributes, X, y = _data(rng, 2000)
    private = fit_dp_svm(cls, attributes, X, y, 0.5, rng)
    exact = fit_dp_svm(cls, attributes, X, y, math.inf, rng)
    assert private.noise_norms[0] > 0 and not np.allclose(private.weights, exact.weights)
    three = Categorical("y", ("a", "b", "c"))
    y3 = np.digitize(X[:, 0], [-0.33, 0.33])
    model = fit_dp_svm(three, attributes, X, y3, 3.0, rng)
    assert len(model.calibrations) == 3 and all(c.epsilon == pytest.approx(1.0) for c in model.calibrations)
    assert np.mean(model.predict(X) == y3) > 0.6
