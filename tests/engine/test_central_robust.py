"""The robust central-DP Naive Bayes (issue 13 item 5; ``privacy.central.robust_nb``): DP accounting (the parts of ε
and the sensitivity of every release, checked on neighbouring data sets), the non-private limit (large n·ε), and the
majority-class limit (tiny ε, tiny n). Fixed seeds; tolerances from the noise scales (stated at each test)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from aggregator.lab import methods
from aggregator.privacy.central import budget_split, fit_laplace_nb, fit_robust_nb, robust_nb
from aggregator.privacy.naive_bayes import fit_nonprivate
from aggregator.privacy.schema import Categorical, Numeric

CLS = Categorical("class", ("a", "b"))
ATTRS = (
    Categorical("colour", ("red", "green", "blue")),
    Numeric("height", 0.0, 200.0),
    Categorical("size", ("s", "l")),
    Numeric("weight", -5.0, 5.0),
)


def toy(n_per_class=(3000, 5000), seed=0):
    """Every categorical cell well populated, every σ far above 1 % of its range (the variance floor)."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n_per_class)
    colour = np.where(y == 0, rng.choice(3, y.size, p=[0.5, 0.3, 0.2]), rng.choice(3, y.size, p=[0.2, 0.3, 0.5]))
    size = np.where(rng.random(y.size) < np.where(y == 0, 0.7, 0.4), 0, 1)
    X = np.column_stack([colour, np.clip(rng.normal(80 + 40 * y, 15), 0, 200), size,
                         np.clip(rng.normal(y, 1.5), -5, 5)]).astype(np.float64)
    return X, y


# -- accounting ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("m", [0, 1, 4, 8, 22])
@pytest.mark.parametrize("epsilon", [1e-6, 0.1, 1.0, 7.3])
def test_budget_parts_sum_to_epsilon(m, epsilon):
    attrs = [Categorical(f"a{i}", ("x", "y")) for i in range(m)]
    eps_0, parts = budget_split(epsilon, attrs)
    assert len(parts) == m and all(p > 0 for p in parts) and eps_0 > 0
    # Basic composition: the total is the sum of the parts (to the last bits of a double).
    assert math.fsum((eps_0, *parts)) == pytest.approx(epsilon, rel=4e-16 * (m + 1), abs=0)
    if m:
        assert eps_0 / parts[0] == pytest.approx(m ** (1 / 3), rel=1e-12)  # ε₀ : ε_i = m^{1/3} : 1
        assert eps_0 >= epsilon / (1 + m) * (1 - 1e-12)  # at least SPEC §6's even split (equal at m = 1)


def test_budget_split_rejects_bad_epsilon():
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError):
            budget_split(bad, ATTRS)


_GRID_LAPLACE = robust_nb.grid_laplace


def _recorded_releases(monkeypatch, X, y, epsilon):
    """Every grid_laplace call of one fit: (values, sensitivity, ε)."""
    calls = []
    original = _GRID_LAPLACE

    def spy(rng, values, sensitivity, eps):
        calls.append((np.array(values, dtype=np.float64), sensitivity, eps))
        return original(rng, values, sensitivity, eps)

    monkeypatch.setattr(robust_nb, "grid_laplace", spy)
    fit_robust_nb(CLS, ATTRS, X, y, epsilon, rng=0)
    return calls


def test_releases_spend_exactly_epsilon_with_true_sensitivities(monkeypatch):
    """One release for the class counts and one per attribute, their ε summing to ε; for a record added at the
    extremes of every bound, each release's input moves by at most its declared L1 sensitivity (so each is
    ε_j-DP under add/remove and the fit is ε-DP by composition)."""
    X, y = toy((40, 60))
    epsilon = 0.8
    base = _recorded_releases(monkeypatch, X, y, epsilon)
    assert len(base) == 1 + len(ATTRS)
    assert math.fsum(eps for _, _, eps in base) == pytest.approx(epsilon, rel=1e-15)
    eps_0, parts = budget_split(epsilon, ATTRS)
    assert [eps for _, _, eps in base] == [eps_0, *parts]
    assert [s for _, s, _ in base] == [1.0, 1.0, robust_nb.NUMERIC_SENSITIVITY, 1.0, robust_nb.NUMERIC_SENSITIVITY]
    worst = np.zeros(len(base))
    for c in (0, 1):
        for colour in range(3):
            for h in (0.0, 100.0, 200.0):
                for size in (0, 1):
                    for w in (-5.0, 0.0, 5.0):
                        row = np.array([[colour, h, size, w]])
                        grown = _recorded_releases(monkeypatch, np.vstack([X, row]), np.append(y, c), epsilon)
                        for j, ((a, *_), (b, *_)) in enumerate(zip(base, grown, strict=True)):
                            worst[j] = max(worst[j], np.abs(b - a).sum())
    np.testing.assert_allclose(worst, [s for _, s, _ in base], rtol=1e-12)  # attained: the bounds are tight


def test_noise_variance_is_the_discrete_laplace_one():
    for s, eps in ((1.0, 0.1), (0.75, 2.0)):
        assert robust_nb.noise_variance(s, eps) == pytest.approx(2 * (s / eps) ** 2, rel=1e-3)


# -- the non-private limit ---------------------------------------------------------------------------------------------

def test_large_n_large_epsilon_matches_nonprivate_nb():
    """ε = 10⁴ on 8,000 rows: every count moves by ~1/ε₀ ≈ 10⁻⁴ and every normalised sum by ~10⁻⁴, so parameters agree
    with the maximum-likelihood ones to ~10⁻⁷ relative; a test prediction could change only within that margin of the
    decision boundary — none of 4,000 continuous test rows is (probability ~10⁻³ in all)."""
    X, y = toy()
    reference = fit_nonprivate(CLS, ATTRS, X, y, alpha=0.0)
    model, details = fit_robust_nb(CLS, ATTRS, X, y, 1e4, rng=1, return_details=True)
    np.testing.assert_allclose(model.prior, reference.prior, atol=1e-5)
    for got, want in zip(model.conditionals, reference.conditionals, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    for part in details["attributes"]:
        for key, w in part.items():
            # Both classes share one true σ per attribute, so the variances' between-class spread τ² is sampling
            # noise only and their weights stay a little below 1 (shrinking toward V̄ then moves nothing: the
            # parameters agree above).
            assert key == "rho" or np.all(w > (0.9 if key == "var_weights" else 0.999))
    X_test, _ = toy((2000, 2000), seed=5)
    np.testing.assert_array_equal(model.predict(X_test), reference.predict(X_test))
    assert model.metadata["mechanism"] == "central-robust"
    assert model.metadata["epsilon_class"] == pytest.approx(budget_split(1e4, ATTRS)[0])


# -- the majority-class limit ------------------------------------------------------------------------------------------

def test_tiny_epsilon_predicts_the_prior_argmax_everywhere():
    """ε = 10⁻⁶ on 800 rows: every noisy class count is noise of standard deviation ~10⁷. A class's conditionals are
    estimated only when its count exceeds 3 noise standard deviations, which Laplace noise does with probability
    ½·e^(−3√2) = 0.0072 (the pooled estimate has lighter tails); otherwise every weight is exactly 0, each conditional
    is its class-independent target and the model is constant at argmax P(c). Over 100 seeds at most 5 fits may keep
    a class-dependent part (expected ≤ 1.44; Poisson tail P(≥ 6) = 0.005)."""
    X, y = toy((300, 500))
    X_test, _ = toy((500, 500), seed=7)
    dependent = 0
    for seed in range(100):
        model, details = fit_robust_nb(CLS, ATTRS, X, y, 1e-6, rng=seed, return_details=True)
        weights = [w for part in details["attributes"] for key, w in part.items() if key != "rho"]
        if any(np.any(w > 0) for w in weights):
            dependent += 1
            continue
        assert np.all(model.predict(X_test) == np.argmax(model.prior))
    assert dependent <= 5


def test_tiny_n_predicts_the_majority_class_where_the_faithful_model_flips():
    """30 rows (24 vs 6) whose attributes say nothing about the class, ε = 1. The prior alone decides the sign of the
    majority unless its noise flips the count difference d = 18: with Laplace scale b = 1/ε₀ on each class count,
    P(flip) ≤ ½·e^(−d/b)·(1 + d/(2b)) = 0.0057 (pooling the table's column sums only lowers it). Over 200 seeds at
    most 5 flips (Poisson(1.14) tail P(≥ 6) = 0.001) and ≥ 95 % of all predictions are the majority; seed 003's
    faithful model, on the same data, predicts the minority class for a quarter of the seeds (measured: 26 %, mean
    70 % majority)."""
    attrs = (Numeric("h", 0.0, 10.0), Numeric("w", 0.0, 10.0), Categorical("c", ("x", "y", "z")))
    eps_0, _ = budget_split(1.0, attrs)
    b, d = 1 / eps_0, 18
    assert 0.5 * math.exp(-d / b) * (1 + d / (2 * b)) < 0.006

    def data(n0, n1, seed):
        rng = np.random.default_rng(seed)
        y = np.repeat([0, 1], (n0, n1))
        return np.column_stack([rng.uniform(0, 10, y.size), np.clip(rng.normal(5, 2, y.size), 0, 10),
                                rng.integers(0, 3, y.size)]), y

    X_test, _ = data(500, 500, 999)
    robust, faithful = [], []
    for seed in range(200):
        X, y = data(24, 6, seed)
        robust.append(np.mean(fit_robust_nb(CLS, attrs, X, y, 1.0, rng=seed).predict(X_test) == 0))
        faithful.append(np.mean(fit_laplace_nb(CLS, attrs, X, y, 1.0, rng=seed).predict(X_test) == 0))
    robust_a, faithful_a = np.array(robust), np.array(faithful)
    assert np.sum(robust_a < 0.5) <= 5
    assert robust_a.mean() >= 0.95
    assert faithful_a.mean() < robust_a.mean() - 0.1


# -- the lab --------------------------------------------------------------------------------------------------------

def test_registered_in_the_lab_beside_the_faithful_method():
    robust = methods.get("central-robust")
    faithful = methods.get("central-laplace")
    assert robust.parameter == faithful.parameter == "epsilon"
    assert robust.features is faithful.features
    X, y = toy((50, 80))
    rng = np.random.default_rng(0)
    assert robust.fit.__name__ == "fit"  # the same _central wrapper as central-laplace
    from survey_app.tables import Table
    table = Table(CLS, ATTRS, X, y, tuple(a.name for a in ATTRS))
    assert robust.fit(table, 1.0, rng)(X).shape == (X.shape[0],)
