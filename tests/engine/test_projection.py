"""PCA and DCA projections fitted on a public reference sample (SPEC §5c): agreement with scikit-learn / numpy, the
generalized eigenproblem, DCA's discriminant power on separable data, bounds and clipping, round trips, validation."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import linalg
from sklearn.decomposition import PCA

from aggregator.privacy.continuous.gaussian import LDPGaussianNB
from aggregator.privacy.continuous.projection import BOUND_MARGIN, Projection, fit_dca, fit_pca
from aggregator.privacy.schema import Categorical, Numeric


def correlated(n: int, rng: np.random.Generator) -> np.ndarray:
    """Four correlated columns on very different scales."""
    Z = rng.normal(size=(n, 4)) @ np.array([[3, 1, 0, 0], [0, 2, 1, 0], [0, 0, 1, 0.5], [0, 0, 0, 0.2]])
    return Z * np.array([1.0, 10.0, 100.0, 0.01]) + np.array([5.0, -3.0, 1000.0, 0.0])


def separable(n: int, rng: np.random.Generator):
    """Two classes separated along column 2, while two strongly correlated nuisance columns (0, 1; correlation ≈ 0.99)
    carry the largest variance of the standardised data."""
    y = rng.integers(0, 2, n)
    shared = rng.normal(size=n)
    X = np.column_stack([
        10.0 * (shared + 0.1 * rng.normal(size=n)),
        shared + 0.1 * rng.normal(size=n),
        np.where(y == 1, 1.5, -1.5) + rng.normal(size=n),
    ])
    return X, y


def fisher_ratio(t: np.ndarray, y: np.ndarray) -> float:
    """Between-class over within-class variance of a 1-d projection."""
    means = np.array([t[y == c].mean() for c in np.unique(y)])
    weights = np.array([np.mean(y == c) for c in np.unique(y)])
    between = np.sum(weights * (means - t.mean()) ** 2)
    within = sum(np.sum((t[y == c] - t[y == c].mean()) ** 2) for c in np.unique(y)) / t.size
    return between / within


def test_pca_matches_sklearn_up_to_sign():
    X = correlated(500, np.random.default_rng(1))
    proj = fit_pca(X, 3)
    Z = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    assert np.allclose(proj.mean, X.mean(axis=0)) and np.allclose(proj.scale, X.std(axis=0, ddof=1))
    ref = PCA(n_components=3, svd_solver="full").fit(Z)
    signs = np.sign(np.sum(proj.W * ref.components_.T, axis=0))
    assert np.all(np.abs(signs) == 1)
    assert np.allclose(proj.W, ref.components_.T * signs, atol=1e-10)
    assert np.allclose(proj.project(X), ref.transform(Z) * signs, atol=1e-9)
    # The same as the top eigenvectors of the correlation matrix (numpy), and orthonormal.
    vals, vecs = np.linalg.eigh(np.corrcoef(X, rowvar=False))
    top = vecs[:, np.argsort(vals)[::-1][:3]]
    assert np.allclose(np.abs(top.T @ proj.W), np.eye(3), atol=1e-10)
    # Sign convention: the largest-magnitude loading of every component is positive.
    assert np.all(proj.W[np.argmax(np.abs(proj.W), axis=0), np.arange(3)] > 0)


def test_dca_solves_the_generalized_eigenproblem():
    """S_B w = λ (S_W + ρnI) w for the returned (unit-length) components, λ decreasing; with 3 classes only the first
    k − 1 = 2 eigenvalues are positive."""
    rng = np.random.default_rng(2)
    X = correlated(600, rng)
    y = rng.integers(0, 3, 600)
    X[:, 0] += 2.0 * y
    X[:, 1] += np.where(y == 2, 15.0, 0.0)
    rho = 0.05
    proj = fit_dca(X, y, 3, rho=rho)
    Z = (X - proj.mean) / proj.scale
    s_w = sum((Z[y == c] - Z[y == c].mean(axis=0)).T @ (Z[y == c] - Z[y == c].mean(axis=0)) for c in range(3))
    s_b = sum(np.sum(y == c) * np.outer(Z[y == c].mean(axis=0), Z[y == c].mean(axis=0)) for c in range(3))
    A = s_w + rho * Z.shape[0] * np.eye(4)
    lam = np.array([w @ s_b @ w / (w @ A @ w) for w in proj.W.T])
    assert np.allclose(s_b @ proj.W, (A @ proj.W) * lam, atol=1e-8 * np.abs(s_b).max())
    assert np.all(np.diff(lam) <= 1e-12) and lam[1] > 1e-3 and abs(lam[2]) < 1e-10
    assert np.allclose(np.linalg.norm(proj.W, axis=0), 1.0)
    assert np.allclose(lam[:2], np.sort(linalg.eigvalsh(s_b, A))[::-1][:2])


def test_dca_separates_classes_better_than_pca():
    """Separable synthetic data: PCA's first component follows the nuisance columns (Fisher ratio ≈ 0), DCA's first
    component the class direction; with a small ridge it is Fisher's LDA direction S_W⁻¹(m₁ − m₀) (cosine > 0.999)."""
    rng = np.random.default_rng(3)
    X, y = separable(2000, rng)
    pca, dca = fit_pca(X, 1), fit_dca(X, y, 1, rho=1e-6)
    f_pca = fisher_ratio(pca.project(X)[:, 0], y)
    f_dca = fisher_ratio(dca.project(X)[:, 0], y)
    assert f_pca < 0.05 and f_dca > 1.5, (f_pca, f_dca)
    Z = (X - dca.mean) / dca.scale
    s_w = sum(np.cov(Z[y == c], rowvar=False, ddof=0) * np.sum(y == c) for c in (0, 1))
    lda = np.linalg.solve(s_w, Z[y == 1].mean(axis=0) - Z[y == 0].mean(axis=0))
    assert abs(lda @ dca.W[:, 0]) / np.linalg.norm(lda) > 0.999
    # Fresh data from the same population: DCA still separates (the fit is not just memorising the sample).
    X2, y2 = separable(2000, np.random.default_rng(4))
    assert fisher_ratio(dca.project(X2)[:, 0], y2) > 1.5


def test_bounds_clipping_and_attributes():
    X, y = separable(300, np.random.default_rng(5))
    for proj, prefix in ((fit_pca(X, 2), "pc"), (fit_dca(X, y, 1), "dc")):
        T = proj.project(X)
        lo, hi = T.min(axis=0), T.max(axis=0)
        assert np.allclose(proj.low, lo - BOUND_MARGIN * (hi - lo))
        assert np.allclose(proj.high, hi + BOUND_MARGIN * (hi - lo))
        assert np.array_equal(proj.transform(X), T)  # the reference sample is strictly inside its bounds
        far = proj.mean + 1e6 * proj.scale * np.sign(proj.W[:, 0])
        out = proj.transform(np.vstack([far, -far + 2 * proj.mean]))
        assert np.allclose(out[:, 0], [proj.high[0], proj.low[0]])
        attrs = proj.attributes()
        assert [a.name for a in attrs] == [f"{prefix}{i + 1}" for i in range(proj.n_components)]
        assert all(isinstance(a, Numeric) and a.low == lo_ and a.high == hi_
                   for a, lo_, hi_ in zip(attrs, proj.low, proj.high, strict=True))
        assert proj.attributes("z")[0].name == "z1"


def test_round_trip_and_gaussian_pipeline():
    """to_dict/from_dict through JSON reproduces the transform exactly; the components feed LDPGaussianNB."""
    X, y = separable(400, np.random.default_rng(6))
    proj = fit_dca(X, y, 1)
    back = Projection.from_dict(json.loads(json.dumps(proj.to_dict())))
    assert back.method == "dca" and np.array_equal(back.transform(X), proj.transform(X))
    nb = LDPGaussianNB(Categorical("y", ("0", "1")), proj.attributes(), 4.0, approach=3)
    rng = np.random.default_rng(7)
    idx = rng.integers(0, 400, 20000)
    model = nb.estimate(nb.aggregate(nb.perturb(proj.transform(X[idx]), y[idx], rng)))
    assert model.accuracy(proj.transform(X), y) > 0.85  # the classes are ≈ 3 within-class SDs apart


def test_validation():
    X, y = separable(50, np.random.default_rng(8))
    with pytest.raises(ValueError, match="n_components"):
        fit_pca(X, 0)
    with pytest.raises(ValueError, match="n_components"):
        fit_pca(X, 4)
    with pytest.raises(ValueError, match="finite"):
        fit_pca(np.where(X > 5, np.nan, X), 1)
    with pytest.raises(ValueError, match="reference sample"):
        fit_pca(X[:1], 1)
    for rho in (0.0, -1.0, float("nan"), float("inf"), "x"):
        with pytest.raises(ValueError, match="rho"):
            fit_dca(X, y, 1, rho=rho)
    with pytest.raises(ValueError, match="two classes"):
        fit_dca(X, np.zeros(50), 1)
    with pytest.raises(ValueError, match="reference_y"):
        fit_dca(X, y[:10], 1)
    proj = fit_pca(X, 2)
    with pytest.raises(ValueError, match="shape"):
        proj.transform(X[:, :2])
    with pytest.raises(ValueError, match="finite"):
        proj.transform(np.full((1, 3), np.inf))
    data = proj.to_dict()
    for key, value in (("W", [[1.0]]), ("low", [0.0]), ("method", "ica"), ("scale", [1.0, 0.0, 1.0]),
                       ("high", data["low"])):
        with pytest.raises(ValueError, match="projection"):
            Projection.from_dict({**data, key: value})
    with pytest.raises(ValueError, match="projection"):
        Projection.from_dict({k: v for k, v in data.items() if k != "mean"})
    # A constant reference column keeps scale 1 instead of dividing by zero.
    Xc = X.copy()
    Xc[:, 2] = 7.0
    assert fit_pca(Xc, 1).scale[2] == 1.0
