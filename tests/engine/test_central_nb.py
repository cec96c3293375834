"""Central-DP Naive Bayes (SPEC §6): the ε split and every noise scale against SPEC's formulas (exact values), the
grid Laplace noise (statistically: fixed seeds, 5-standard-error tolerances), the fitted models' noise, the smooth
variant's parameters, and an accuracy sanity check on mushroom."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from aggregator.lab.datasets import DATASETS_DIR, train_test_split
from aggregator.privacy import noise
from aggregator.privacy.central import laplace_nb, smooth_nb
from aggregator.privacy.central.laplace_nb import ALPHA, epsilon_prime, fit_laplace_nb, grid_laplace, laplace_scales
from aggregator.privacy.central.smooth_nb import fit_smooth_nb
from aggregator.privacy.naive_bayes import NaiveBayesModel, fit_nonprivate
from aggregator.privacy.schema import Categorical, Numeric
from survey_app.tables import load_table

CLS = Categorical("class", ("a", "b"))
ATTRS = (
    Categorical("colour", ("red", "green", "blue")),
    Numeric("height", 0.0, 200.0),
    Categorical("size", ("s", "l")),
    Numeric("weight", -5.0, 5.0),
)


def toy(n_per_class=(300, 500), seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n_per_class)
    X = np.column_stack([
        rng.integers(0, 3, y.size), rng.normal(80 + 40 * y, 15), rng.integers(0, 2, y.size), rng.normal(y, 1.5),
    ]).astype(np.float64)
    return X, y


# -- the ε split and the scales: exact values ----------------------------------------------------------------------

def test_epsilon_split_follows_spec():
    # 2 categorical + 2 numeric attributes: 1 + 2 + 2·2 = 7 accesses
    assert epsilon_prime(1.4, ATTRS) == 1.4 / 7
    assert epsilon_prime(0.3, ATTRS[:1]) == 0.3 / 2
    assert epsilon_prime(0.3, ATTRS[1:2]) == 0.3 / 3
    assert epsilon_prime(2.0, ()) == 2.0
    for bad in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(ValueError):
            epsilon_prime(bad, ATTRS)


def test_noise_scales_follow_spec():
    eps, counts = 1.4, np.array([300, 500])
    eps_p = 1.4 / 7
    scales = laplace_scales(ATTRS, counts, eps)
    assert scales["count"] == pytest.approx(1 / eps_p, rel=1e-15)
    for a in (ATTRS[1], ATTRS[3]):
        mean_scale, sd_scale = scales[a.name]
        np.testing.assert_allclose(mean_scale, (a.high - a.low) / (counts * eps_p), rtol=1e-15)
        np.testing.assert_allclose(sd_scale, (a.high - a.low) / (np.sqrt(counts) * eps_p), rtol=1e-15)
    # an empty class is treated as one row
    assert laplace_scales(ATTRS, [0, 10], eps)["weight"][0][0] == pytest.approx(10 / eps_p, rel=1e-15)


def test_metadata_records_the_public_parameters():
    X, y = toy()
    model = fit_laplace_nb(CLS, ATTRS, X, y, 1.4, 0)
    md = model.metadata
    assert md["mechanism"] == "central-laplace" and md["epsilon"] == 1.4 and md["alpha"] == ALPHA
    assert md["epsilon_prime"] == epsilon_prime(1.4, ATTRS)
    assert md["count_scale"] == pytest.approx(7 / 1.4, rel=1e-15)
    assert md["numeric_scale_factors"] == pytest.approx({"height": 200 * 7 / 1.4, "weight": 10 * 7 / 1.4}, rel=1e-15)
    assert md["guarantee"] == laplace_nb.GUARANTEE
    # nothing that would publish the private class sizes or the row count exactly
    assert "rows" not in md and not any(isinstance(v, (int, float)) and v in (300, 500, 800) for v in md.values())
    assert NaiveBayesModel.from_json(model.to_json()).metadata == json.loads(model.to_json())["metadata"]


def test_smooth_metadata_and_release_scale_follow_spec():
    X, y = toy()
    for gamma in (2.0, 3.5):
        md = fit_smooth_nb(CLS, ATTRS, X, y, 1.4, 0, gamma=gamma).metadata
        eps_p = 1.4 / 7
        assert md["mechanism"] == "central-smooth-sensitivity" and md["epsilon_prime"] == eps_p
        assert md["beta"] == eps_p / (2 * (gamma + 1))
        assert md["noise_multiplier"] == pytest.approx(2 * (gamma + 1) / eps_p, rel=1e-15)
        assert md["count_scale"] == pytest.approx(1 / eps_p, rel=1e-15)
        assert md["guarantee"] == laplace_nb.GUARANTEE and "rows" not in md


# -- grid Laplace noise ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sensitivity,epsilon", [(1.0, 0.5), (0.4, 2.0), (200 / 300, 0.2)])
def test_grid_laplace_scale_and_grid(sensitivity, epsilon):
    """Values on the grid: noise mean 0 and variance that of the discrete Laplace of scale s/ε on the grid s/2¹⁰,
    within 5 standard errors (SE of the sample variance from the fourth moment, 24b⁴ for Laplace noise)."""
    n = 200_000
    step = sensitivity / laplace_nb.GRID_STEPS
    value = 37 * step
    out = grid_laplace(np.random.default_rng(1), np.full(n, value), sensitivity, epsilon)
    k = out / step
    assert np.all(np.abs(k - np.round(k)) < 1e-6)  # every output is an integer multiple of the grid step
    b = sensitivity / epsilon
    var = noise.discrete_laplace_variance(b, step)
    assert var == pytest.approx(2 * b * b, rel=1e-3)
    err = out - value
    assert abs(err.mean()) <= 5 * math.sqrt(var / n)
    assert abs(err.var() - var) <= 5 * math.sqrt((24 * b**4 - var**2) / n)
    assert abs(np.mean(np.abs(err)) - b) <= 5 * b / math.sqrt(n) + step  # E|Lap(b)| = b


def test_discrete_laplace_past_the_grid_precision():
    """Scale 10¹⁴ on the grid 2⁻¹⁰ (exp(−γ/b) rounds to 1): finite draws, mean 0 and E|X| = b within 5 SE (the
    discrete Laplace is the continuous one at this ratio; SD of |X| is b)."""
    n, b = 100_000, 1e14
    out = noise.discrete_laplace(np.random.default_rng(4), b, n)
    assert np.all(np.isfinite(out))
    assert abs(out.mean()) <= 5 * math.sqrt(2) * b / math.sqrt(n)
    assert abs(np.mean(np.abs(out)) - b) <= 5 * b / math.sqrt(n)


def test_grid_laplace_rounds_without_bias():
    n = 100_000
    value = 0.123456  # not on the grid 1/1024
    out = grid_laplace(np.random.default_rng(2), np.full(n, value), 1.0, 50.0)
    var = noise.discrete_laplace_variance(1 / 50.0, 1 / 1024) + (1 / 1024) ** 2 / 4  # noise + at most rounding's
    assert abs(out.mean() - value) <= 5 * math.sqrt(var / n)


def test_counts_noise_scale_statistically():
    """ñ_c − n_c over repeated fits: variance of the discrete Laplace with scale 1/ε' (counts far from α)."""
    X, y = toy((3000, 5000))
    eps_p = epsilon_prime(0.7, ATTRS)
    rng = np.random.default_rng(3)
    draws = np.array([laplace_nb.noisy_counts(CLS, ATTRS, X, y, eps_p, rng)[0] for _ in range(3000)])
    err = draws - np.array([3000, 5000])
    b = 1 / eps_p
    var = noise.discrete_laplace_variance(b, 1 / 1024)
    assert np.all(np.abs(err.mean(axis=0)) <= 5 * math.sqrt(var / len(err)))
    assert np.all(np.abs(err.var(axis=0) - var) <= 5 * math.sqrt((24 * b**4 - var**2) / len(err)))


def test_fitted_means_noise_scale_statistically():
    """μ̃ − μ over repeated fits has the variance of Laplace noise with SPEC's scale (u − l)/(n_c·ε')."""
    X, y = toy((300, 500))
    eps, reps = 0.5, 2000
    Xc = laplace_nb.check_data(CLS, ATTRS, X, y)[0]
    true_mu = np.array([Xc[y == c, 1].mean() for c in (0, 1)])
    rng = np.random.default_rng(4)
    mus = np.array([fit_laplace_nb(CLS, ATTRS, X, y, eps, rng).conditionals[1][0] for _ in range(reps)])
    b = laplace_scales(ATTRS, [300, 500], eps)["height"][0]
    var = 2 * b**2
    err = mus - true_mu
    assert np.all(np.abs(err.mean(axis=0)) <= 5 * np.sqrt(var / reps))
    assert np.all(np.abs(err.var(axis=0) - var) <= 5 * np.sqrt((24 * b**4 - var**2) / reps))


# -- the fitted models ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fit", [fit_laplace_nb, fit_smooth_nb])
def test_fits_are_valid_models_and_reproducible(fit):
    X, y = toy()
    m1, m2, m3 = fit(CLS, ATTRS, X, y, 1.0, 5), fit(CLS, ATTRS, X, y, 1.0, 5), fit(CLS, ATTRS, X, y, 1.0, 6)
    assert m1.to_json() == m2.to_json() != m3.to_json()
    assert m1.prior.sum() == pytest.approx(1.0)
    for a, table in zip(ATTRS, m1.conditionals, strict=True):
        if isinstance(a, Categorical):
            np.testing.assert_allclose(table.sum(axis=0), 1.0)
            assert np.all(table > 0)
        else:
            assert np.all(table[1] >= ALPHA)


@pytest.mark.parametrize("fit", [fit_laplace_nb, fit_smooth_nb])
def test_huge_epsilon_recovers_the_clipped_statistics(fit):
    """As ε → ∞ the noise vanishes: the models approach the non-private fit on values clipped to the bounds."""
    X, y = toy()
    X[:5, 1] = 1e6  # out of bounds: clipped to 200
    model = fit(CLS, ATTRS, X, y, 1e5, 7)
    clipped = X.copy()
    clipped[:, 1] = np.clip(clipped[:, 1], 0, 200)
    exact = fit_nonprivate(CLS, ATTRS, clipped, y, alpha=0.0)
    np.testing.assert_allclose(model.prior, exact.prior, atol=1e-4)
    for a, got, want in zip(ATTRS, model.conditionals, exact.conditionals, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-3 * (a.high - a.low if isinstance(a, Numeric) else 1))


def test_tiny_epsilon_floors_counts_at_alpha():
    X, y = toy((5, 5))
    model = fit_laplace_nb(CLS, ATTRS, X, y, 1e-6, 8)
    assert np.all(np.isfinite(model.prior)) and np.all(model.conditionals[0] > 0)


def test_smooth_trimming_and_empty_classes():
    X, y = toy((50, 60))
    X[0, 1] = -40.0  # clipped to 0, then trimmed away
    t = np.sort(np.clip(X[y == 0, 1], 0, 200))[5:-5]  # ⌊0.1·50⌋ = 5 values dropped at each end
    np.testing.assert_array_equal(smooth_nb.class_sample(X[y == 0, 1], ATTRS[1], 0.1), t)
    # at ε = 1e5 the releases sit near the trimmed statistics (Cauchy noise of scale ≈ 6/ε'·(u − l)/40 ≈ 2e-3)
    model = fit_smooth_nb(CLS, ATTRS, X, y, 1e5, 9, trim=0.1)
    assert model.conditionals[1][0, 0] == pytest.approx(t.mean(), abs=1.0)
    assert model.conditionals[1][1, 0] == pytest.approx(t.std(), abs=1.0)
    three = Categorical("class", ("a", "b", "c"))  # class c has no rows: a data-independent stand-in
    assert smooth_nb.class_sample([], ATTRS[1], 0.0).tolist() == [100.0]
    assert np.isfinite(fit_smooth_nb(three, ATTRS, X, y, 1.0, 10).conditionals[1]).all()
    with pytest.raises(ValueError):
        fit_smooth_nb(CLS, ATTRS, X, y, 1.0, 0, trim=0.5)


def test_smooth_release_uses_the_admissible_noise_at_spec_scale():
    """(release − f)/(2(γ+1)/ε·S) follows Z: for γ = 2 (Cauchy) P(|Z| ≤ 1) = 1/2 within 5 binomial SEs."""
    rng = np.random.default_rng(11)
    n, eps, S = 20_000, 0.3, 0.05
    z = np.array([smooth_nb.smooth_release(rng, 1.0, S, eps, 2.0) - 1.0 for _ in range(n)]) / (
        2 * 3 / eps * S)
    assert abs(np.mean(np.abs(z) <= 1.0) - 0.5) <= 5 * math.sqrt(0.25 / n)


def test_invalid_data_is_rejected():
    X, y = toy()
    with pytest.raises(ValueError):
        fit_laplace_nb(CLS, ATTRS, X, y + 5, 1.0, 0)
    with pytest.raises(ValueError):
        fit_laplace_nb(CLS, ATTRS, X[:, :3], y, 1.0, 0)
    bad = X.copy()
    bad[0, 0] = 7
    with pytest.raises(ValueError):
        fit_laplace_nb(CLS, ATTRS, bad, y, 1.0, 0)
    with pytest.raises(ValueError):
        fit_laplace_nb(CLS, ATTRS, X, y, 0.0, 0)


# -- accuracy sanity -----------------------------------------------------------------------------------------------

def test_mushroom_accuracy_close_to_nonprivate_at_epsilon_one():
    """Not a tight test: at ε = 1 the global-sensitivity model is within 5 points of the non-private one (mean of 3
    fits on one fixed split); a mis-scaled noise (e.g. ε' off by the number of attributes) falls far below."""
    table = load_table(DATASETS_DIR / "mushroom.csv")
    train, test = train_test_split(table, 0.2, np.random.default_rng(0))
    base = fit_nonprivate(train.class_attribute, train.attributes, train.X, train.y).accuracy(test.X, test.y)
    rng = np.random.default_rng(12)
    acc = np.mean([fit_laplace_nb(train.class_attribute, train.attributes, train.X, train.y, 1.0, rng)
                   .accuracy(test.X, test.y) for _ in range(3)])
    assert acc >= base - 0.05
